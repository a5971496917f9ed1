/*
 * verify.c: a program that breaks chain mode's assumption once.  Each iteration is a chain of
 * two MPI_Sendrecv; only in iteration 50 does the program read the first receive buffer between
 * the two calls.  With AUTOOPT_CHAIN_VERIFY=1 autoopt keeps the calls guarded and must report
 * that access (address and code); the results stay right.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define N 4096                          /* 32 KiB per buffer: pages of their own */
#define ITERS 80
#define TOUCH_AT 50

static double *page_buffer(void)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, N * sizeof(double)) != 0)
        abort();
    return p;
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0, total = 0;
    volatile double peek = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *s1 = page_buffer(), *r1 = page_buffer(), *s2 = page_buffer(), *r2 = page_buffer();

    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < N; i++) {
            s1[i] = rank + it + i;
            s2[i] = -(rank + it + i);
        }
        MPI_Sendrecv(s1, N, MPI_DOUBLE, right, 1, r1, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (it == TOUCH_AT)
            peek = r1[N / 2];           /* the access chain mode assumes never happens */
        MPI_Sendrecv(s2, N, MPI_DOUBLE, left, 2, r2, N, MPI_DOUBLE, right, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            if (r1[i] != left + it + i || r2[i] != -(right + it + i)) {
                errors++;
                break;
            }
        if (it == TOUCH_AT && peek != left + it + N / 2)
            errors++;
    }
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "Found %d errors\n" : "No Errors\n", total);
    MPI_Finalize();
    return total != 0;
}
