/*
 * coll_online_default.c: online tuning in the default configuration (AUTOOPT_TUNE=exact,
 * docs/online.md), every result compared with MPI's own (PMPI_, which autoopt does not wrap).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   coll_online_default fpsum ITERS   MPI_Allreduce and MPI_Reduce (root moving) with MPI_SUM
 *                                      of doubles and floats, 6 sizes, values whose sum depends
 *                                      on the order (1e16, 1 and -1e16 interleaved by rank and
 *                                      index): bit-identical to PMPI_ at every call.  An int
 *                                      MPI_SUM beside them, which may be tuned, equals PMPI_'s
 *   coll_online_default heavy ITERS BYTES  MPI_Alltoall of BYTES per pair, ITERS times (an
 *                                      FFT's transposes): results equal PMPI_Alltoall's
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_test.h"

static double fp_value(int rank, int i, int it)
{
    switch ((rank * 7 + i * 3 + it) % 4) {
    case 0: return 1e16;
    case 1: return 1.0 + (double) (i % 5) * 0.1;
    case 2: return -1e16;
    default: return 3.3e-3 * (double) (rank + 1);
    }
}

static void fpsum(int iters)
{
    static const int sizes[] = {1, 3, 17, 1000, 5000, 40000};
    int rank, size;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        int n = sizes[s];
        double *d = malloc((size_t) n * sizeof(*d)), *r1 = malloc((size_t) n * sizeof(*r1)),
               *r2 = malloc((size_t) n * sizeof(*r2));
        float *f = malloc((size_t) n * sizeof(*f)), *f1 = malloc((size_t) n * sizeof(*f1)),
              *f2 = malloc((size_t) n * sizeof(*f2));
        int *x = malloc((size_t) n * sizeof(*x)), *x1 = malloc((size_t) n * sizeof(*x1)),
            *x2 = malloc((size_t) n * sizeof(*x2));
        for (int it = 0; it < iters; it++) {
            int root = it % size;
            for (int i = 0; i < n; i++) {
                d[i] = fp_value(rank, i, it);
                f[i] = (float) (d[i] * 1e-10);
                x[i] = (int) (d[i] / 1e6) + i;
            }
            MPI_Allreduce(d, r1, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            PMPI_Allreduce(d, r2, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            CHECK(memcmp(r1, r2, (size_t) n * sizeof(*r1)) == 0,
                  "allreduce of %d doubles, iteration %d: not the bits of MPI's own", n, it);
            MPI_Allreduce(f, f1, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            PMPI_Allreduce(f, f2, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            CHECK(memcmp(f1, f2, (size_t) n * sizeof(*f1)) == 0,
                  "allreduce of %d floats, iteration %d: not the bits of MPI's own", n, it);
            memset(r1, 0, (size_t) n * sizeof(*r1));
            memset(r2, 0, (size_t) n * sizeof(*r2));
            MPI_Reduce(d, r1, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
            PMPI_Reduce(d, r2, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
            CHECK(rank != root || memcmp(r1, r2, (size_t) n * sizeof(*r1)) == 0,
                  "reduce of %d doubles to %d, iteration %d: not the bits of MPI's own", n,
                  root, it);
            MPI_Allreduce(x, x1, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            PMPI_Allreduce(x, x2, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            CHECK(memcmp(x1, x2, (size_t) n * sizeof(*x1)) == 0,
                  "allreduce of %d ints, iteration %d: differs from MPI's own", n, it);
        }
        free(d), free(r1), free(r2), free(f), free(f1), free(f2), free(x), free(x1), free(x2);
    }
}

static void heavy(int iters, size_t bytes)
{
    int rank, size;
    unsigned char *sb, *rb, *ref;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sb = malloc(bytes * (size_t) size);
    rb = malloc(bytes * (size_t) size);
    ref = malloc(bytes * (size_t) size);
    CHECK(sb && rb && ref, "out of memory");
    if (!sb || !rb || !ref)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int it = 0; it < iters; it++) {
        for (size_t i = 0; i < bytes * (size_t) size; i++)
            sb[i] = (unsigned char) (i * 31 + (size_t) rank * 7 + (size_t) it);
        memset(rb, 0, bytes * (size_t) size);
        MPI_Alltoall(sb, (int) bytes, MPI_BYTE, rb, (int) bytes, MPI_BYTE, MPI_COMM_WORLD);
        PMPI_Alltoall(sb, (int) bytes, MPI_BYTE, ref, (int) bytes, MPI_BYTE, MPI_COMM_WORLD);
        CHECK(memcmp(rb, ref, bytes * (size_t) size) == 0,
              "alltoall of %zu bytes per pair, iteration %d: differs from MPI's own", bytes, it);
    }
    free(sb);
    free(rb);
    free(ref);
}

int main(int argc, char **argv)
{
    int rank, iters = argc > 2 ? atoi(argv[2]) : 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc >= 3 && iters > 0 && strcmp(argv[1], "fpsum") == 0) {
        fpsum(iters);
    } else if (argc == 4 && iters > 0 && strcmp(argv[1], "heavy") == 0 && atol(argv[3]) > 0) {
        heavy(iters, (size_t) atol(argv[3]));
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: coll_online_default fpsum ITERS | heavy ITERS BYTES\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return aot_test_finish();
}
