/*
 * thread_release.c: another thread's libc calls while chains are learning do not leave pages
 * closed.  A helper thread, standing in for MPI's own progress thread (UCX's, which reads its
 * eventfd while the program computes), allocates and frees memory in a loop; every such call
 * goes through paging's wrappers, which lift chains' learning probes.  The main thread keeps
 * chains learning (a new buffer pair every iteration, so every call is learned and probed) and
 * reads each received message at once.  Before the probe state had a lock (chains/probe.c),
 * the helper's lift raced with the main thread's arming and fault handling, and a read of the
 * receive buffer died with SIGSEGV: 10 runs of 10 here, about 1 in 100 for p2p.np1 under load.
 * Received data must equal what was sent.  The helper is started through libc's own
 * pthread_create, as a library's thread would be (UCX's is made inside MPI_Init): a thread the
 * program starts itself switches conversion and chains off (src/threads.c), and nothing would
 * be probed.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "aot_test.h"

#define N 600                 /* doubles per message: under AUTOOPT_CONVERT_MIN, chains learn it */
#define SLOTS 400             /* buffer pairs, one per iteration: distinct signatures */
#define ITERS 4000

static volatile int running = 1;

static void *churn(void *arg)
{
    unsigned long n = 0;
    (void) arg;
    while (running) {
        void *p = malloc(64 + n % 512);
        if (p)
            ((volatile char *) p)[0] = (char) n;
        free(p);
        n++;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size;
    pthread_t helper;
    double *sbuf = malloc(sizeof(double) * N * SLOTS), *rbuf = malloc(sizeof(double) * N * SLOTS);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(sbuf && rbuf, "out of memory");
    {
        void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
        int (*libc_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
            libc ? (__typeof__(libc_create)) dlsym(libc, "pthread_create") : NULL;
        CHECK(libc_create && libc_create(&helper, NULL, churn, NULL) == 0, "pthread_create");
    }
    for (int it = 0; it < ITERS && sbuf && rbuf; it++) {
        int right = (rank + 1) % size, left = (rank + size - 1) % size, bad = 0;
        double *s = sbuf + (size_t) (it % SLOTS) * N, *r = rbuf + (size_t) (it % SLOTS) * N;
        for (int i = 0; i < N; i++)
            s[i] = rank * 1e7 + it * 1e3 + i;
        MPI_Sendrecv(s, N, MPI_DOUBLE, right, it % 7, r, N, MPI_DOUBLE, left, it % 7,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            bad += r[i] != left * 1e7 + it * 1e3 + i;
        CHECK(bad == 0, "iteration %d: %d wrong elements", it, bad);
    }
    running = 0;
    pthread_join(helper, NULL);
    free(sbuf);
    free(rbuf);
    return aot_test_finish();
}
