/*
 * syscall_probe.c: a program that hands just-received data to the kernel works while chains
 * are learning.  Small messages (below AUTOOPT_CONVERT_MIN, so chains learn them with probes)
 * are exchanged every iteration and written at once to a pipe and to a file with write(2) and
 * fwrite; what comes back must equal what was sent.  Without the probe release in paging's
 * libc wrappers, write(2) failed with EFAULT on a probed page.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "aot_test.h"

#define N 1024
#define ITERS 40

int main(int argc, char **argv)
{
    int rank, size, fds[2];
    static int sbuf[N], rbuf[N], back[N];
    FILE *f = tmpfile();

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(f != NULL && pipe(fds) == 0, "tmpfile/pipe");
    for (int it = 0; it < ITERS; it++) {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        for (int i = 0; i < N; i++)
            sbuf[i] = rank * 100000 + it * 1000 + i;
        MPI_Sendrecv(sbuf, N, MPI_INT, right, it, rbuf, N, MPI_INT, left, it, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        /* the received data goes to the kernel before the program reads it itself */
        ssize_t w = write(fds[1], rbuf, sizeof(rbuf));
        CHECK(w == (ssize_t) sizeof(rbuf), "iteration %d: write returned %zd", it, w);
        ssize_t r = read(fds[0], back, sizeof(back));
        CHECK(r == (ssize_t) sizeof(back), "iteration %d: read returned %zd", it, r);
        CHECK(memcmp(back, rbuf, sizeof(rbuf)) == 0, "iteration %d: pipe data differ", it);
        rewind(f);
        CHECK(fwrite(rbuf, sizeof(int), N, f) == N, "iteration %d: fwrite", it);
        for (int i = 0; i < N; i++)
            CHECK(rbuf[i] == left * 100000 + it * 1000 + i, "iteration %d element %d", it, i);
    }
    fclose(f);
    return aot_test_finish();
}
