/*
 * masked: the program blocks SIGSEGV (alone, or every signal) and touches buffers of converted
 * calls meanwhile (issue 55, item 5).  A fault with SIGSEGV blocked is not delivered: the
 * kernel kills.  For each way of blocking (sigprocmask or pthread_sigmask; SIGSEGV alone or
 * all signals), rank 0
 *   - receives 1 MiB (rank 1 sends after 0.2 s: the converted receive is pending and guarded),
 *     blocks, compares the buffer with the pattern sent, and while still blocked receives a
 *     second message and reads it and sends one (no guard may be taken now), then unblocks;
 *   - sends 1 MiB (a guarded send buffer), blocks, overwrites the buffer, unblocks: rank 1
 *     must receive the data as it was at the send.
 * Then mask queries that block nothing (SIG_BLOCK with an empty set, a NULL set, SIG_UNBLOCK
 * of SIGSEGV), and one more receive read unblocked.  Every buffer is compared with the
 * reference pattern.  Before issue 55 the first read killed rank 0 (AUTOOPT_P2P_MODE=guarded).
 * The statistics runs count the calls passed while blocked (passed.SIGMASK).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "paging_test.h"

#define N (1L << 17)            /* doubles: 1 MiB */
#define NWAYS 4

static const char *const way_name[NWAYS] = { "sigprocmask SIGSEGV", "sigprocmask all",
                                             "pthread_sigmask SIGSEGV", "pthread_sigmask all" };

/* Blocks SIGSEGV (or every signal) the way w does; the mask before goes to *was. */
static void block(int w, sigset_t *was)
{
    sigset_t set;

    if (w % 2)
        sigfillset(&set);
    else {
        sigemptyset(&set);
        sigaddset(&set, SIGSEGV);
    }
    if (w < 2)
        CHECK(sigprocmask(SIG_BLOCK, &set, was) == 0, "sigprocmask failed");
    else
        CHECK(pthread_sigmask(SIG_BLOCK, &set, was) == 0, "pthread_sigmask failed");
}

static void unblock(int w, const sigset_t *was)
{
    if (w < 2)
        CHECK(sigprocmask(SIG_SETMASK, was, NULL) == 0, "sigprocmask failed");
    else
        CHECK(pthread_sigmask(SIG_SETMASK, was, NULL) == 0, "pthread_sigmask failed");
}

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
    sigset_t was, none, now;

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    for (int w = 0; w < NWAYS; w++) {
        int m = 10 * w;
        if (pt_rank == 0) {
            MPI_Recv(a, N, MPI_DOUBLE, 1, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            block(w, &was);
            pt_check(a, N, m, way_name[w]);          /* touched while blocked */
            MPI_Recv(b, N, MPI_DOUBLE, 1, m + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(b, N, m + 1, way_name[w]);
            pt_fill(a, N, m + 2);
            MPI_Send(a, N, MPI_DOUBLE, 1, m + 2, MPI_COMM_WORLD);
            pt_fill(a, N, -1);                       /* after the send returned */
            unblock(w, &was);
            pt_fill(b, N, m + 3);
            MPI_Send(b, N, MPI_DOUBLE, 1, m + 3, MPI_COMM_WORLD);
            block(w, &was);
            pt_fill(b, N, -2);                       /* a guarded send buffer, written */
            unblock(w, &was);
        } else if (pt_rank == 1) {
            pt_fill(a, N, m);
            usleep(200000);
            MPI_Send(a, N, MPI_DOUBLE, 0, m, MPI_COMM_WORLD);
            pt_fill(b, N, m + 1);
            MPI_Send(b, N, MPI_DOUBLE, 0, m + 1, MPI_COMM_WORLD);
            MPI_Recv(a, N, MPI_DOUBLE, 0, m + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(a, N, m + 2, way_name[w]);
            MPI_Recv(b, N, MPI_DOUBLE, 0, m + 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(b, N, m + 3, way_name[w]);
        }
    }
    /* queries and unblocking: nothing is blocked, nothing must change */
    if (pt_rank == 0) {
        MPI_Recv(a, N, MPI_DOUBLE, 1, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sigemptyset(&none);
        CHECK(sigprocmask(SIG_BLOCK, &none, &now) == 0 && !sigismember(&now, SIGSEGV),
              "sigprocmask(SIG_BLOCK, empty) failed");
        CHECK(sigprocmask(SIG_BLOCK, NULL, &now) == 0 && !sigismember(&now, SIGSEGV),
              "sigprocmask(SIG_BLOCK, NULL) failed");
        CHECK(pthread_sigmask(SIG_SETMASK, NULL, &now) == 0 && !sigismember(&now, SIGSEGV),
              "pthread_sigmask(SIG_SETMASK, NULL) failed");
        sigaddset(&none, SIGSEGV);
        CHECK(pthread_sigmask(SIG_UNBLOCK, &none, NULL) == 0, "pthread_sigmask failed");
        pt_check(a, N, 100, "after the queries");
        MPI_Recv(b, N, MPI_DOUBLE, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pt_check(b, N, 101, "after the queries");
    } else if (pt_rank == 1) {
        pt_fill(a, N, 100);
        MPI_Send(a, N, MPI_DOUBLE, 0, 100, MPI_COMM_WORLD);
        pt_fill(b, N, 101);
        MPI_Send(b, N, MPI_DOUBLE, 0, 101, MPI_COMM_WORLD);
    }
    free(a);
    free(b);
    return aot_test_finish();
}
