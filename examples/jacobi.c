/*
 * jacobi: Jacobi iteration for the 2D Poisson equation, columns split over the processes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * -laplace(u) = 10 on the unit square, u = x^2 - y^2 on the boundary, n x n interior points.
 * Each rank owns a block of whole columns, stored row-major with one halo column on each side,
 * so a halo column is n doubles one row apart: an MPI_Type_vector(n, 1, cols + 2).  After every
 * sweep each rank swaps its first and last interior columns with its neighbours, with one
 * MPI_Sendrecv per direction.
 *
 * Rank 0 gathers the result and prints
 *   jacobi: n=256 procs=4 iters=100 avg_iter_us=12.3 residual=1.234567e+00 checksum=0x...
 * where checksum is the 64-bit FNV-1a of the n x n interior in global row-major order (the same
 * for every process count) and avg_iter_us the slowest rank's wall time per sweep.  With -V
 * (default for n <= 256) rank 0 repeats the iteration serially and requires the same bits.
 * Exit status: 0 passed, 1 a check failed, 2 bad command line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "common.h"

struct jacobi_options {
    int n, iters;
    int verify;                 /* -1: on when n <= 256 */
    int have_expected;
    uint64_t expected;
};

/* A block of columns col0+1 .. col0+cols of the global grid, halo and boundary rows included. */
struct jacobi_block {
    int n, cols, col0, stride;
    double *u, *next, *b;       /* (n + 2) x (cols + 2) each */
};

static void jacobi_usage(void)
{
    if (ex_rank != 0)
        return;
    printf("usage: jacobi [-n N] [-i ITERS] [-V] [-c HEX] [-h]\n"
           "Jacobi iteration for the 2D Poisson equation, columns split over the processes;\n"
           "halo columns travel as an MPI_Type_vector with MPI_Sendrecv.\n"
           "  -n N      interior grid size, at least the number of processes (default 256)\n"
           "  -i ITERS  sweeps (default 100)\n"
           "  -V        repeat the sweeps serially on rank 0 and compare bit for bit\n"
           "            (default: on when N <= 256)\n"
           "  -c HEX    fail unless the checksum equals HEX\n"
           "  -h        show this help\n"
           "Fails when the residual is not finite or not below the initial one.\n");
}

static int jacobi_parse(int argc, char **argv, struct jacobi_options *o)
{
    int c;

    *o = (struct jacobi_options) { .n = 256, .iters = 100, .verify = -1 };
    opterr = 0;
    while ((c = getopt(argc, argv, ":n:i:Vc:h")) != -1) {
        int rc = 0;

        switch (c) {
        case 'n':
            rc = ex_parse_int(c, optarg, 1, 1 << 15, &o->n);
            break;
        case 'i':
            rc = ex_parse_int(c, optarg, 1, INT_MAX, &o->iters);
            break;
        case 'V':
            o->verify = 1;
            break;
        case 'c':
            rc = ex_parse_hex64(c, optarg, &o->expected);
            o->have_expected = 1;
            break;
        case 'h':
            jacobi_usage();
            return EX_OK;
        default:
            return ex_bad_option(c, optopt);
        }
        if (rc != 0)
            return rc;
    }
    if (o->verify < 0)
        o->verify = o->n <= 256;
    return ex_no_operands(argc, argv, optind);
}

/* Columns of part k when n columns are split over parts: *len of them after column *start. */
static void jacobi_split(int n, int parts, int k, int *start, int *len)
{
    int base = n / parts, extra = n % parts;

    *len = base + (k < extra);
    *start = k * base + (k < extra ? k : extra);
}

static int jacobi_alloc(struct jacobi_block *blk, int n, int cols, int col0)
{
    size_t cells = (size_t) (n + 2) * (size_t) (cols + 2);

    blk->n = n;
    blk->cols = cols;
    blk->col0 = col0;
    blk->stride = cols + 2;
    blk->u = malloc(cells * sizeof(double));
    blk->next = malloc(cells * sizeof(double));
    blk->b = malloc(cells * sizeof(double));
    return blk->u && blk->next && blk->b ? 0 : -1;
}

static void jacobi_free(struct jacobi_block *blk)
{
    free(blk->u);
    free(blk->next);
    free(blk->b);
}

/* 0 inside, x^2 - y^2 on the boundary, in both arrays; b = h^2 f. */
static void jacobi_init(struct jacobi_block *blk)
{
    int n = blk->n;
    double h = 1.0 / (n + 1);

    for (int i = 0; i < n + 2; i++) {
        for (int j = 0; j < blk->cols + 2; j++) {
            int gj = blk->col0 + j;
            double x = gj * h, y = i * h;
            size_t c = (size_t) i * blk->stride + j;
            int edge = i == 0 || i == n + 1 || gj == 0 || gj == n + 1;

            blk->u[c] = blk->next[c] = edge ? x * x - y * y : 0.0;
            blk->b[c] = h * h * 10.0;
        }
    }
}

/* One Jacobi sweep of the interior from u into next; the only place a cell is computed. */
static void jacobi_sweep(struct jacobi_block *blk)
{
    const int s = blk->stride;

    for (int i = 1; i <= blk->n; i++) {
        for (int j = 1; j <= blk->cols; j++) {
            size_t c = (size_t) i * s + j;
            const double *u = &blk->u[c];

            blk->next[c] = 0.25 * (u[-s] + u[s] + u[-1] + u[1] + blk->b[c]);
        }
    }
}

static void jacobi_swap(struct jacobi_block *blk)
{
    double *t = blk->u;

    blk->u = blk->next;
    blk->next = t;
}

/*
 * Halo columns, rows 1..n, as one element of the vector type.  The left neighbour's right halo
 * gets my first column; my right halo comes from the right neighbour's first column.
 */
static void jacobi_exchange(struct jacobi_block *blk, MPI_Datatype column, int left, int right,
                            MPI_Comm comm)
{
    double *row1 = &blk->u[blk->stride];

    MPI_Sendrecv(&row1[1], 1, column, left, 1, &row1[blk->cols + 1], 1, column, right, 1, comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&row1[blk->cols], 1, column, right, 2, &row1[0], 1, column, left, 2, comm,
                 MPI_STATUS_IGNORE);
}

/* RMS of f + laplace_h(u) over the interior. */
static double jacobi_residual(const struct jacobi_block *blk)
{
    const int s = blk->stride;
    double h = 1.0 / (blk->n + 1), sum = 0.0;

    for (int i = 1; i <= blk->n; i++) {
        for (int j = 1; j <= blk->cols; j++) {
            size_t c = (size_t) i * s + j;
            const double *u = &blk->u[c];
            double r = u[-s] + u[s] + u[-1] + u[1] - 4.0 * u[0] + blk->b[c];

            sum += r * r;
        }
    }
    return sqrt(sum / ((double) blk->n * blk->cols)) / (h * h);
}

static uint64_t jacobi_checksum(const struct jacobi_block *blk)
{
    uint64_t hash = EX_FNV_OFFSET;

    for (int i = 1; i <= blk->n; i++)
        for (int j = 1; j <= blk->cols; j++)
            hash = ex_fnv1a_double(hash, blk->u[(size_t) i * blk->stride + j]);
    return hash;
}

/* Rank 0 receives every block (packed, rank order) into the interior of the global grid. */
static void jacobi_gather(const struct jacobi_block *blk, struct jacobi_block *all, int rank,
                          int size)
{
    int n = blk->n, *counts = NULL, *displs = NULL;
    double *mine = malloc((size_t) n * blk->cols * sizeof *mine), *recv = NULL;

    if (rank == 0) {
        counts = malloc((size_t) size * sizeof *counts);
        displs = malloc((size_t) size * sizeof *displs);
        recv = malloc((size_t) n * n * sizeof *recv);
    }
    if (mine == NULL || (rank == 0 && (counts == NULL || displs == NULL || recv == NULL))) {
        fprintf(stderr, "jacobi: rank %d: out of memory gathering the grid\n", rank);
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    for (int i = 0; i < n; i++)
        memcpy(&mine[(size_t) i * blk->cols], &blk->u[(size_t) (i + 1) * blk->stride + 1],
               (size_t) blk->cols * sizeof *mine);
    if (rank == 0) {
        for (int r = 0, off = 0; r < size; r++) {
            int c0, nc;

            jacobi_split(n, size, r, &c0, &nc);
            counts[r] = n * nc;
            displs[r] = off;
            off += counts[r];
        }
    }
    MPI_Gatherv(mine, n * blk->cols, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            int c0, nc;

            jacobi_split(n, size, r, &c0, &nc);
            for (int i = 0; i < n; i++)
                memcpy(&all->u[(size_t) (i + 1) * all->stride + c0 + 1],
                       &recv[displs[r] + (size_t) i * nc], (size_t) nc * sizeof *recv);
        }
    }
    free(mine);
    free(counts);
    free(displs);
    free(recv);
}

static uint64_t jacobi_serial_checksum(int n, int iters)
{
    struct jacobi_block s;
    uint64_t hash;

    if (jacobi_alloc(&s, n, n, 0) != 0) {
        fprintf(stderr, "jacobi: out of memory for the serial check\n");
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    jacobi_init(&s);
    for (int it = 0; it < iters; it++) {
        jacobi_sweep(&s);
        jacobi_swap(&s);
    }
    hash = jacobi_checksum(&s);
    jacobi_free(&s);
    return hash;
}

static int jacobi_report(const struct jacobi_options *o, int size, const struct jacobi_block *all,
                         double initial_residual, double avg_iter_us)
{
    double residual = jacobi_residual(all);
    uint64_t hash = jacobi_checksum(all);
    int status = EX_OK;

    printf("jacobi: n=%d procs=%d iters=%d avg_iter_us=%.1f residual=%.6e checksum=0x%016"
           PRIx64 "\n", o->n, size, o->iters, avg_iter_us, residual, hash);
    fflush(stdout);
    if (!isfinite(residual) || !(residual < initial_residual)) {
        fprintf(stderr, "jacobi: FAILED: residual %.6e is not below the initial %.6e\n",
                residual, initial_residual);
        status = EX_FAILED;
    }
    if (o->verify) {
        uint64_t ref = jacobi_serial_checksum(o->n, o->iters);

        if (ref != hash) {
            fprintf(stderr, "jacobi: FAILED: checksum 0x%016" PRIx64 " differs from the "
                    "serial run's 0x%016" PRIx64 "\n", hash, ref);
            status = EX_FAILED;
        }
    }
    if (o->have_expected && o->expected != hash) {
        fprintf(stderr, "jacobi: FAILED: checksum 0x%016" PRIx64 " is not the expected 0x%016"
                PRIx64 "\n", hash, o->expected);
        status = EX_FAILED;
    }
    return status;
}

int main(int argc, char **argv)
{
    struct jacobi_options o;
    struct jacobi_block blk, all = { 0 };
    int rank, size, left, right, c0, nc, status;
    double initial_residual = 0.0, t, tmax;
    MPI_Datatype column;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ex_setup("jacobi", rank);

    status = jacobi_parse(argc, argv, &o);
    if (status == EX_RUN && o.n < size) {
        ex_error("option -n: %d columns cannot be split over %d processes", o.n, size);
        status = EX_USAGE;
    }
    if (status != EX_RUN) {
        MPI_Finalize();
        return status;
    }

    jacobi_split(o.n, size, rank, &c0, &nc);
    left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    if (jacobi_alloc(&blk, o.n, nc, c0) != 0) {
        fprintf(stderr, "jacobi: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    jacobi_init(&blk);
    /* n doubles, one per interior row, a row (stride doubles) apart */
    MPI_Type_vector(o.n, 1, blk.stride, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int it = 0; it < o.iters; it++) {
        jacobi_sweep(&blk);
        jacobi_swap(&blk);
        jacobi_exchange(&blk, column, left, right, MPI_COMM_WORLD);
    }
    t = MPI_Wtime() - t;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        if (jacobi_alloc(&all, o.n, o.n, 0) != 0) {
            fprintf(stderr, "jacobi: out of memory for the global grid\n");
            MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
        }
        jacobi_init(&all);
        initial_residual = jacobi_residual(&all);
    }
    jacobi_gather(&blk, &all, rank, size);
    if (rank == 0)
        status = jacobi_report(&o, size, &all, initial_residual, tmax / o.iters * 1e6);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);

    MPI_Type_free(&column);
    if (rank == 0)
        jacobi_free(&all);
    jacobi_free(&blk);
    MPI_Finalize();
    return status;
}
