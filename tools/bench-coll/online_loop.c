/*
 * online_loop.c: the application loop of the online-tuning benchmark (docs/online.md):
 * allreduce and alltoall of several sizes, ITERS iterations, and nothing else.  Run under
 * autoopt in different modes by tools/bench-coll/online-vs-offline.sh; it knows nothing of
 * autoopt.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   online_loop [ITERS [STEADY_FROM]]       (default 1000 and ITERS / 2)
 *
 * Prints on rank 0 one line:
 *   total_s <s> steady_us_per_iter <us> iters <n> ranks <p>
 * total_s: the whole loop, the slowest rank; steady_us_per_iter: mean time of one iteration
 * from iteration STEADY_FROM on (after online tuning has decided), the slowest rank.  The
 * results are checked (integer-valued doubles sum exactly); a wrong one exits non-zero.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const int allreduce_counts[] = {1, 128, 2048, 16384};     /* doubles: 8 B .. 128 KiB */
static const int alltoall_counts[] = {8, 256, 4096};             /* ints per pair: 32 B .. 16 KiB */
#define NA (int) (sizeof(allreduce_counts) / sizeof(allreduce_counts[0]))
#define NT (int) (sizeof(alltoall_counts) / sizeof(alltoall_counts[0]))

int main(int argc, char **argv)
{
    int rank, p, iters, steady_from, bad = 0, anybad = 0;
    double *in, *out, t0, t_steady = 0, total, mine[2], worst[2];
    int *sb, *rb;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    iters = argc > 1 ? atoi(argv[1]) : 1000;
    steady_from = argc > 2 ? atoi(argv[2]) : iters / 2;
    if (iters < 1 || steady_from < 0 || steady_from >= iters) {
        if (rank == 0)
            fprintf(stderr, "usage: online_loop [ITERS [STEADY_FROM]] (0 <= STEADY_FROM < ITERS)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    in = malloc(16384 * sizeof(double));
    out = malloc(16384 * sizeof(double));
    sb = malloc((size_t) p * 4096 * sizeof(int));
    rb = malloc((size_t) p * 4096 * sizeof(int));
    for (int i = 0; i < 16384; i++)
        in[i] = rank + i % 7;
    for (int i = 0; i < p * 4096; i++)
        sb[i] = rank * 1000 + i % 1000;

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        double ts = 0;
        if (it == steady_from)
            ts = MPI_Wtime();
        for (int a = 0; a < NA; a++) {
            int n = allreduce_counts[a];
            MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            /* sum over ranks r of (r + i % 7) */
            if (out[n - 1] != (double) p * (p - 1) / 2 + (double) p * ((n - 1) % 7))
                bad = 1;
        }
        for (int a = 0; a < NT; a++) {
            int n = alltoall_counts[a];
            MPI_Alltoall(sb, n, MPI_INT, rb, n, MPI_INT, MPI_COMM_WORLD);
            /* block s came from rank s: its element j of block `rank` */
            for (int s = 0; s < p; s++)
                if (rb[s * n] != s * 1000 + (rank * n) % 1000)
                    bad = 1;
        }
        if (it == steady_from)
            t_steady = ts;
    }
    total = MPI_Wtime() - t0;
    mine[0] = total;
    mine[1] = (MPI_Wtime() - t_steady) / (iters - steady_from);
    MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (anybad)
            printf("online_loop: wrong results\n");
        else
            printf("total_s %.6f steady_us_per_iter %.3f iters %d ranks %d\n", worst[0],
                   worst[1] * 1e6, iters, p);
    }
    free(in);
    free(out);
    free(sb);
    free(rb);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
