/*
 * export_run.c: tools.tune.export's program.  Built against MPICH and, when the machine has
 * Open MPI's development files, against Open MPI; run with and without the selection file
 * autoopt-tune export wrote, it must print the same hash of its results either way.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every collective that the export covers, at message sizes from 0 to 512 KiB on both sides
 * of every boundary in tests/mpi/tools/export.tune: integer sums (commutative, built in), a
 * user-defined non-commutative operation (composition of affine maps x -> a*x + b modulo
 * 2^32, whose result depends on the order of the ranks but not on how they are grouped), in
 * place and not, roots 0 and p-1.  Integer results do not depend on the algorithm, so any
 * difference is a wrong result.  Only standard MPI: no autoopt header.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash = 1469598103934665603ull;

static void mix(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        hash = (hash ^ c[i]) * 1099511628211ull;
}

/* in (a1, b1), inout (a2, b2): the map "in first, then inout" */
static void affine(void *in, void *inout, int *len, MPI_Datatype *type)
{
    uint32_t *x = in, *y = inout;
    (void)type;
    for (int i = 0; i < *len; i++) {
        uint32_t a = y[2 * i] * x[2 * i], b = y[2 * i] * x[2 * i + 1] + y[2 * i + 1];
        y[2 * i] = a;
        y[2 * i + 1] = b;
    }
}

static void fill(uint32_t *v, size_t n, int rank, int salt)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)(rank * 2654435761u + i * 40503u + (unsigned)salt) | 1u;
}

int main(int argc, char **argv)
{
    static const int bytes[] = {0, 4, 8, 60, 64, 68, 252, 256, 1024, 2044, 2048, 4096, 8192,
                                16384, 16388, 32768, 65536, 131072, 262144, 524288};
    int rank, p;
    MPI_Op op;
    MPI_Datatype pair;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Op_create(affine, 0, &op);
    MPI_Type_contiguous(2, MPI_UINT32_T, &pair);
    MPI_Type_commit(&pair);

    size_t maxn = 524288 / 4 * (size_t)p + 16;
    uint32_t *s = malloc(maxn * 4), *r = malloc(maxn * 4);
    int *counts = malloc(p * sizeof(int)), *displs = malloc(p * sizeof(int));
    if (!s || !r || !counts || !displs)
        MPI_Abort(MPI_COMM_WORLD, 1);

    for (size_t k = 0; k < sizeof(bytes) / sizeof(bytes[0]); k++) {
        int n = bytes[k] / 4;
        for (int inplace = 0; inplace < 2; inplace++) {
            /* allreduce: sum, and the ordered affine composition */
            fill(s, n, rank, 1);
            memcpy(r, s, n * 4);
            MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, n, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
            mix(r, n * 4);
            fill(s, n, rank, 2);
            memcpy(r, s, n * 4);
            MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, n / 2, pair, op, MPI_COMM_WORLD);
            mix(r, (n / 2) * 8);
            /* reduce at roots 0 and p-1 */
            for (int root = 0; root < p; root += p > 1 ? p - 1 : 1) {
                fill(s, n, rank, 3 + root);
                memcpy(r, s, n * 4);
                int ip = inplace && rank == root;
                MPI_Reduce(ip ? MPI_IN_PLACE : s, r, n, MPI_UINT32_T, MPI_SUM, root,
                           MPI_COMM_WORLD);
                if (rank == root)
                    mix(r, n * 4);
                fill(s, n, rank, 5 + root);
                memcpy(r, s, n * 4);
                MPI_Reduce(ip ? MPI_IN_PLACE : s, r, n / 2, pair, op, root, MPI_COMM_WORLD);
                if (rank == root)
                    mix(r, (n / 2) * 8);
                /* bcast */
                fill(r, n, rank == root ? 7 : rank, 7);
                MPI_Bcast(r, n, MPI_UINT32_T, root, MPI_COMM_WORLD);
                mix(r, n * 4);
                if (p == 1)
                    break;
            }
            /* allgather, allgatherv (block i has n + i % 3 - 1 elements, at least 0) */
            fill(s, n, rank, 9);
            for (int i = 0; i < p; i++)
                fill(r + (size_t)i * n, n, i, 9);
            MPI_Allgather(inplace ? MPI_IN_PLACE : s, n, MPI_UINT32_T, r, n, MPI_UINT32_T,
                          MPI_COMM_WORLD);
            mix(r, (size_t)n * p * 4);
            for (int i = 0, d = 0; i < p; i++) {
                counts[i] = n + i % 3 - 1 > 0 ? n + i % 3 - 1 : 0;
                displs[i] = d;
                d += counts[i];
            }
            fill(s, counts[rank], rank, 10);
            for (int i = 0; i < p; i++)
                fill(r + displs[i], counts[i], i, 10);
            MPI_Allgatherv(inplace ? MPI_IN_PLACE : s, counts[rank], MPI_UINT32_T, r, counts,
                           displs, MPI_UINT32_T, MPI_COMM_WORLD);
            mix(r, (size_t)(displs[p - 1] + counts[p - 1]) * 4);
            /* alltoall, alltoallv */
            fill(s, (size_t)n * p, rank, 11);
            memcpy(r, s, (size_t)n * p * 4);
            MPI_Alltoall(inplace ? MPI_IN_PLACE : s, n, MPI_UINT32_T, r, n, MPI_UINT32_T,
                         MPI_COMM_WORLD);
            mix(r, (size_t)n * p * 4);
            for (int i = 0; i < p; i++) {
                counts[i] = n;
                displs[i] = i * n;
            }
            fill(s, (size_t)n * p, rank, 12);
            memcpy(r, s, (size_t)n * p * 4);
            MPI_Alltoallv(inplace ? MPI_IN_PLACE : s, counts, displs, MPI_UINT32_T, r, counts,
                          displs, MPI_UINT32_T, MPI_COMM_WORLD);
            mix(r, (size_t)n * p * 4);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    uint64_t *all = rank == 0 ? malloc(p * sizeof(uint64_t)) : NULL;
    MPI_Gather(&hash, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        hash = 1469598103934665603ull;
        mix(all, p * sizeof(uint64_t));
        printf("export_run: %d ranks, hash %016llx\n", p, (unsigned long long)hash);
        free(all);
    }
    free(s);
    free(r);
    free(counts);
    free(displs);
    MPI_Type_free(&pair);
    MPI_Op_free(&op);
    MPI_Finalize();
    return 0;
}
