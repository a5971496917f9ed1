/*
 * autoopt-bench-overhead: the time autoopt adds to each MPI call, measured side by side in one
 * run.  Run it under LD_PRELOAD=libautoopt.so on 2 ranks.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The same process alternates blocks of native calls (PMPI_Send / PMPI_Recv / PMPI_Allreduce,
 * which autoopt does not intercept) with blocks of the same calls made through MPI_* (which
 * go through autoopt), so both see the same machine state; each row reports the median over
 * the blocks.  A ping-pong iteration makes two calls per rank (send and receive), so the added
 * time per call is half the difference of the round-trip times.  For allreduce and bcast
 * each iteration is one call (a 4-B broadcast from rank 0, back to back); the row "allreduce
 * 8-64 B" calls four sizes in turn, and the row "alltoallv 4 B" sends 4 bytes to each rank.
 * Under AUTOOPT_TUNING=tools/overhead/native-rules.tune every collective is routed by a rule
 * that names MPI's own algorithm: the cost of the decision path instead of the default's
 * pass-through.  Under tools/overhead/sized-rules.tune allreduce and bcast run algorithms of
 * autoopt's and alltoallv's rules differ by size (its ranks agree on the blocks).  A last row
 * times MPI_Iprobe(MPI_PROC_NULL), which communicates nothing, to show the wrapper's own cost
 * without the network's noise.  The "chain" row compares 4
 * MPI_Sendrecv per iteration (a chain, in the default configuration) with the hand-written
 * PMPI_Irecv/PMPI_Isend/PMPI_Waitall version; its added time is per MPI_Sendrecv.  The
 * "site" row is a ping-pong of 64 KiB, which paging would convert: each call site's benefit
 * governor decides how its calls run (docs/govern.md), so the row shows what a converting
 * site's call costs, exploring included (with AUTOOPT_P2P_MODE=native: its path alone).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXBYTES 1024
#define SITEBYTES 65536     /* the "site" row: a call paging would convert (AUTOOPT_CONVERT_MIN) */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One block of ping-pong iterations; returns the mean round-trip time in seconds. */
static double pingpong(int use_pmpi, char *buf, int bytes, int iters, int rank)
{
    int peer = 1 - rank;
    double t0;
    PMPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0) {
            if (use_pmpi) {
                PMPI_Send(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                PMPI_Recv(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Send(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        } else {
            if (use_pmpi) {
                PMPI_Recv(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                PMPI_Send(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            } else {
                MPI_Recv(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            }
        }
    }
    return (MPI_Wtime() - t0) / iters;
}

/* One ping-pong row: a warm-up of each kind, then blocks of native and intercepted calls in
 * turns; prints the one-way times and the time added per call (rank 0). */
static void pingpong_row(const char *label, char *buf, int bytes, int blocks, int iters,
                         double *tn, double *ta, int rank)
{
    pingpong(1, buf, bytes, iters / 10 + 1, rank);
    pingpong(0, buf, bytes, iters / 10 + 1, rank);
    for (int b = 0; b < blocks; b++) {
        tn[b] = pingpong(1, buf, bytes, iters, rank);
        ta[b] = pingpong(0, buf, bytes, iters, rank);
    }
    if (rank == 0) {
        double mn = median(tn, blocks), ma = median(ta, blocks);
        printf("  %-17s %14.3f %14.3f %16.1f\n", label, mn * 1e6 / 2, ma * 1e6 / 2,
               (ma - mn) * 1e9 / 2);
    }
}

static double bcast(int use_pmpi, int iters)
{
    int v = 4, sink = 0;
    double t0;
    PMPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (use_pmpi)
            PMPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        else
            MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        sink += v;
    }
    if (sink == -1)
        printf("%d\n", sink);                 /* never: keeps the loop */
    return (MPI_Wtime() - t0) / iters;
}

static double allreduce(int use_pmpi, int iters)
{
    double in = 1.0, out, t0;
    PMPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (use_pmpi)
            PMPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    return (MPI_Wtime() - t0) / iters;
}

/* Allreduce at 8, 16, 32 and 64 B in turn, as a program that reduces vectors of several
 * lengths in one loop calls it; the row's time is per call.  Under a tuning file each size
 * needs its own remembered decision (collectives/coll_run.c, AOT_MEMO_SLOTS). */
static double allreduce_sizes(int use_pmpi, int iters)
{
    double in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8], t0;
    PMPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        int n = 1 << (i & 3);
        if (use_pmpi)
            PMPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    return (MPI_Wtime() - t0) / iters;
}

/* One row for a collective timed one call per iteration: a warm-up of each kind, then blocks
 * of native (PMPI_*) and intercepted calls in turns; medians, time added per call. */
/* Alltoallv of 4 bytes to each of the 2 ranks (the row "alltoallv 4 B"). */
static double alltoallv(int use_pmpi, int iters)
{
    static const int counts[2] = {4, 4}, displs[2] = {0, 4};
    char in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
    double t0;
    PMPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (use_pmpi)
            PMPI_Alltoallv(in, counts, displs, MPI_BYTE, out, counts, displs, MPI_BYTE,
                           MPI_COMM_WORLD);
        else
            MPI_Alltoallv(in, counts, displs, MPI_BYTE, out, counts, displs, MPI_BYTE,
                          MPI_COMM_WORLD);
    }
    return (MPI_Wtime() - t0) / iters;
}

static void collective_row(const char *label, double (*timed)(int use_pmpi, int iters),
                           int blocks, int iters, double *tn, double *ta, int rank)
{
    timed(1, iters / 10 + 1);
    timed(0, iters / 10 + 1);
    for (int b = 0; b < blocks; b++) {
        tn[b] = timed(1, iters);
        ta[b] = timed(0, iters);
    }
    if (rank == 0) {
        double mn = median(tn, blocks), ma = median(ta, blocks);
        printf("  %-17s %14.3f %14.3f %16.1f\n", label, mn * 1e6, ma * 1e6, (ma - mn) * 1e9);
    }
}

/* A chain: 4 MPI_Sendrecv of 512 B with the peer, then the program reads what arrived.
 * Native is the hand-written equivalent (PMPI_Irecv and PMPI_Isend per exchange, one
 * PMPI_Waitall), the best any conversion can do; through autoopt the 4 calls are learned as a
 * chain during the warm-up and then run as exactly those requests. */
#define CHAIN_N 64
static double chain(int use_pmpi, double *s, double *r, int iters, int rank, double *sink)
{
    int peer = 1 - rank;
    double t0, acc = 0;
    PMPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (use_pmpi) {
            MPI_Request q[8];
            MPI_Status st[8];     /* (GCC 12 warns about MPI_STATUSES_IGNORE) */
            for (int k = 0; k < 4; k++) {
                PMPI_Irecv(r + k * CHAIN_N, CHAIN_N, MPI_DOUBLE, peer, k, MPI_COMM_WORLD, &q[2 * k]);
                PMPI_Isend(s + k * CHAIN_N, CHAIN_N, MPI_DOUBLE, peer, k, MPI_COMM_WORLD,
                           &q[2 * k + 1]);
            }
            PMPI_Waitall(8, q, st);
        } else {
            for (int k = 0; k < 4; k++)
                MPI_Sendrecv(s + k * CHAIN_N, CHAIN_N, MPI_DOUBLE, peer, k, r + k * CHAIN_N,
                             CHAIN_N, MPI_DOUBLE, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        acc += r[i % (4 * CHAIN_N)];      /* the program uses the data: the phase ends here */
    }
    *sink += acc;
    return (MPI_Wtime() - t0) / iters;
}

/* A call that goes through a full wrapper (guard, counter, hook check) but does no
 * communication: MPI_Iprobe from MPI_PROC_NULL returns at once.  Isolates the wrapper's cost
 * from the network's noise. */
static double iprobe_null(int use_pmpi, int iters)
{
    int flag;
    MPI_Status st;
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (use_pmpi)
            PMPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st);
        else
            MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st);
    }
    return (MPI_Wtime() - t0) / iters;
}

static void usage(void)
{
    printf("usage: autoopt-bench-overhead [-b BLOCKS] [-i ITERS]\n"
           "  Runs on exactly 2 ranks under LD_PRELOAD=libautoopt.so.  Alternates BLOCKS blocks\n"
           "  (default 41) of ITERS iterations (default 2000) of native (PMPI_*) and intercepted\n"
           "  (MPI_*) calls, and prints the median times and the time added per call.\n");
}

int main(int argc, char **argv)
{
    int rank, size, blocks = 41, iters = 2000;
    static char buf[MAXBYTES], sitebuf[SITEBYTES];
    double *tn, *ta;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-b") && i + 1 < argc)
            blocks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-i") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        } else {
            fprintf(stderr, "autoopt-bench-overhead: unknown option '%s' (see -h)\n", argv[i]);
            return 2;
        }
    }
    if (blocks < 1 || iters < 1) {
        fprintf(stderr, "autoopt-bench-overhead: -b and -i need positive integers\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "autoopt-bench-overhead: needs exactly 2 ranks, got %d\n", size);
        MPI_Finalize();
        return 2;
    }
    tn = malloc(sizeof(double) * (size_t) blocks);
    ta = malloc(sizeof(double) * (size_t) blocks);
    if (rank == 0) {
        const char *d = getenv("AUTOOPT_DISABLE"), *t = getenv("AUTOOPT_TUNING");
        printf("# autoopt-bench-overhead: 2 ranks, %d blocks x %d iterations, interleaved native/autoopt\n",
               blocks, iters);
        printf("# autoopt mode: %s%s%s\n", d && !strcmp(d, "1") ? "pass-through (AUTOOPT_DISABLE=1)"
                                                              : "default configuration",
               t && *t ? ", AUTOOPT_TUNING=" : "", t && *t ? t : "");
        printf("# %-18s %14s %14s %16s\n", "test", "native us", "autoopt us", "added ns/call");
    }
    for (int bytes = 0; bytes <= MAXBYTES; bytes = bytes ? bytes * 2 : 1) {
        char label[32];
        snprintf(label, sizeof(label), "pingpong %d", bytes);
        pingpong_row(label, buf, bytes, blocks, iters, tn, ta, rank);
    }
    pingpong_row("site pingpong 64K", sitebuf, SITEBYTES, blocks, iters / 4 + 1, tn, ta, rank);
    collective_row("allreduce 8 B", allreduce, blocks, iters, tn, ta, rank);
    collective_row("allreduce 8-64 B", allreduce_sizes, blocks, iters, tn, ta, rank);
    collective_row("bcast 4 B", bcast, blocks, iters, tn, ta, rank);
    collective_row("alltoallv 4 B", alltoallv, blocks, iters, tn, ta, rank);
    {
        double *cs = calloc(4 * CHAIN_N, sizeof(double)), *cr = calloc(4 * CHAIN_N, sizeof(double));
        double sink = 0;
        chain(1, cs, cr, iters / 10 + 1, rank, &sink);
        chain(0, cs, cr, iters / 10 + 1, rank, &sink);
        for (int b = 0; b < blocks; b++) {
            tn[b] = chain(1, cs, cr, iters, rank, &sink);
            ta[b] = chain(0, cs, cr, iters, rank, &sink);
        }
        if (rank == 0) {
            double mn = median(tn, blocks), ma = median(ta, blocks);
            printf("  chain 4x512 B     %14.3f %14.3f %16.1f\n", mn * 1e6, ma * 1e6,
                   (ma - mn) * 1e9 / 4);
        }
        free(cs);
        free(cr);
        if (sink < 0)
            printf("%g\n", sink);          /* never: keeps the reads */
    }
    iprobe_null(1, iters);
    iprobe_null(0, iters);
    for (int b = 0; b < blocks; b++) {
        tn[b] = iprobe_null(1, iters * 50);
        ta[b] = iprobe_null(0, iters * 50);
    }
    if (rank == 0) {
        double mn = median(tn, blocks), ma = median(ta, blocks);
        printf("  iprobe PROC_NULL  %14.4f %14.4f %16.1f\n", mn * 1e6, ma * 1e6, (ma - mn) * 1e9);
    }
    free(tn);
    free(ta);
    MPI_Finalize();
    return 0;
}
