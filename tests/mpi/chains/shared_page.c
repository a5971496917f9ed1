/*
 * shared_page.c: the learner's probes when the buffers of one phase share a page.  Three
 * MPI_Sendrecv per iteration, all six buffers in one page; between the second and the third
 * call the program reads the first call's receive buffer.  A learning call opens only its own
 * pages and the probes of the earlier calls must be back before the program runs again, so
 * that read ends the phase: the chain has two members, never three.  Were it missed, chain
 * mode would leave the first receive in flight while the program reads it.  The value read in
 * the middle and every received buffer are checked against what the neighbours sent.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "aot_test.h"

#define N 48                            /* 6 buffers x 48 doubles = 2304 bytes: one page */
#define ITERS 60

static double value(int rank, int it, int which, int i)
{
    return rank * 1e6 + it * 1e3 + which * 100 + i;
}

int main(int argc, char **argv)
{
    int rank, size;
    double *page = NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    if (posix_memalign((void **) &page, 4096, 4096) != 0)
        abort();
    /* interleaved, so that every call's pages are the others' pages too */
    double *r1 = page, *s2 = page + N, *r2 = page + 2 * N, *s3 = page + 3 * N,
           *r3 = page + 4 * N, *s1 = page + 5 * N;

    for (int it = 0; it < ITERS; it++) {
        double mid;
        for (int i = 0; i < N; i++) {
            s1[i] = value(rank, it, 1, i);
            s2[i] = value(rank, it, 2, i);
            s3[i] = value(rank, it, 3, i);
        }
        MPI_Sendrecv(s1, N, MPI_DOUBLE, right, 1, r1, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(s2, N, MPI_DOUBLE, left, 2, r2, N, MPI_DOUBLE, right, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        mid = r1[N - 1];                /* the first call's data, read mid-phase */
        MPI_Sendrecv(s3, N, MPI_DOUBLE, right, 3, r3, N, MPI_DOUBLE, left, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        CHECK(mid == value(left, it, 1, N - 1), "iteration %d: read %g mid-phase, expected %g",
              it, mid, value(left, it, 1, N - 1));
        int bad = -1;
        for (int i = 0; i < N && bad < 0; i++)
            if (r1[i] != value(left, it, 1, i) || r2[i] != value(right, it, 2, i) ||
                r3[i] != value(left, it, 3, i))
                bad = i;
        CHECK(bad < 0, "iteration %d: wrong value at %d", it, bad);
    }
    free(page);
    return aot_test_finish();
}
