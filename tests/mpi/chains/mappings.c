/*
 * mappings.c: buffers whose pages a touch probe must not cover.  Lifting a probe restores
 * read and write access, so a buffer in read-only memory (a const table) or in a shared
 * mapping (another process could write it) must keep its signature out of chains, while the
 * same exchange from private writable memory (heap, private anonymous mapping) may chain.
 * Every iteration rank 0 sends from each kind of memory and rank 1 receives into each kind;
 * rank 1 checks every value.  The CTest definition checks the statistics: two signatures
 * excluded for their mapping on each rank, and chains confirmed for the others.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <sys/mman.h>

#include "aot_test.h"

#define N 512
#define ITERS 40

static const double table[N] = { 1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 34.0 };

static double value(int it, int i)
{
    return it * 1e4 + i;
}

static void *map(int flags)
{
    void *p = mmap(NULL, N * sizeof(double), PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "mappings: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *shared = map(MAP_SHARED), *private = map(MAP_PRIVATE);
    double *heap = malloc(N * sizeof(double)), *heap2 = malloc(N * sizeof(double));

    for (int it = 0; it < ITERS; it++) {
        if (rank == 0) {
            for (int i = 0; i < N; i++)
                shared[i] = private[i] = heap[i] = value(it, i);
            /* read-only table, shared mapping, private mapping, heap: one phase */
            MPI_Send(table, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
            MPI_Send(shared, N, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
            MPI_Send(private, N, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
            MPI_Send(heap, N, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD);
        } else {
            for (int i = 0; i < N; i++)
                shared[i] = private[i] = heap[i] = heap2[i] = -1.0;
            MPI_Recv(heap2, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(shared, N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(private, N, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(heap, N, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++) {
                CHECK(heap2[i] == table[i], "iteration %d: table[%d] = %g, expected %g", it, i,
                      heap2[i], table[i]);
                CHECK(shared[i] == value(it, i), "iteration %d: shared[%d] = %g, expected %g",
                      it, i, shared[i], value(it, i));
                CHECK(private[i] == value(it, i), "iteration %d: private[%d] = %g, expected %g",
                      it, i, private[i], value(it, i));
                CHECK(heap[i] == value(it, i), "iteration %d: heap[%d] = %g, expected %g", it, i,
                      heap[i], value(it, i));
            }
        }
    }
    munmap(shared, N * sizeof(double));
    munmap(private, N * sizeof(double));
    free(heap);
    free(heap2);
    return aot_test_finish();
}
