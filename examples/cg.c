/*
 * cg: conjugate gradients on a sparse SPD matrix with irregular neighbours (cg.h: the matrix,
 * the partition, why the result is the same bits on every process count), written as HPCG and
 * NAS CG write it: before every product each rank posts an MPI_Irecv per neighbour, sends its
 * halo entries with a blocking MPI_Send and waits with MPI_Wait; two MPI_Allreduce per
 * iteration for the dot products.  -m picks the exchange (cg_exchange.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Rank 0 prints one line, for example
 *   cg: n=512 procs=4 neighbours=1-2 halo=2368-4997 mode=send iters=1000 avg_iter_us=812.3 residual=1.234567e-05 solves=1 checksum=0x0123456789abcdef
 * where neighbours and halo are the smallest and largest count of neighbours and of halo
 * entries over the ranks, residual is |b - Ax| / |b| for the final x, solves counts the
 * solves that converged (below), and checksum is the 64-bit
 * FNV-1a of x in global order: the same for every mode and process count.  With several
 * modes a line per mode follows (turns.h), as with sor.
 *
 * The iteration count is fixed (-i), for timing.  When the residual falls below 1e-10 |b| the
 * solve has converged and the next iteration solves again from x = 0, as a time-stepping code
 * solves one system per step: every iteration makes the same calls, and long runs never
 * divide by a vanishing residual.
 *
 * Exit status: 0 when every check passed, 1 when one failed, 2 for a bad command line.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "cg.h"
#include "common.h"
#include "turns.h"

#define CG_SHIFT 1e-2           /* added to the diagonal */
#define CG_TOL 1e-10            /* a solve ends when |r| < CG_TOL |b| */
#define CG_SEED UINT64_C(0x243f6a8885a308d3)

struct cg_options {
    int n;
    struct ex_run_options run;  /* verify: -1 until decided (on when n <= 128) */
};

/* One rank's share of the problem and the solver's state. */
struct cg_state {
    struct cg_matrix A;
    struct cg_halo h;
    long *row_start;            /* size + 1 */
    double *x, *r, *p, *q, *b;  /* nlocal + nhalo each */
    double rho, rho0;
    int converged;              /* the last iteration ended a solve */
    int solves;                 /* solves that reached CG_TOL */
};

static const char *const cg_names[] = { "send", "isend", "overlap", NULL };

static void cg_usage(void)
{
    const char *summaries[3];

    if (ex_rank != 0)
        return;
    for (int m = 0; m < 3; m++)
        summaries[m] = cg_modes[m].summary;
    printf("usage: cg [-n N] [-i ITERS] [-m MODE[,MODE...]] [-b TURN] [-W WARM] [-V] [-c HEX]\n"
           "          [-t FILE] [-h]\n"
           "Conjugate gradients for a sparse SPD matrix of N*N rows (a grid Laplacian with\n"
           "shortcut edges), rows in irregular blocks, so ranks have different neighbours.\n"
           "  -n N      grid side: N*N unknowns (default 512)\n"
           "  -i ITERS  CG iterations of each mode (default 1000)\n"
           "  -m MODE   halo exchange before each product (default send):\n");
    ex_usage_modes(cg_names, summaries);
    ex_usage_checks("run CG", "N <= 128");
    printf("Every solve ends when |r| < 1e-10 |b|, and the next starts from x = 0.  Fails when\n"
           "|b - Ax|/|b| is not finite, or not below 1 before the first solve ended.\n");
}

static int cg_parse(int argc, char **argv, struct cg_options *o)
{
    int c;

    *o = (struct cg_options) {
        .n = 512,
        .run = { .t = { .names = cg_names, .npicks = 1, .iters = 1000, .turn = 50 },
                 .verify = -1 },
    };
    opterr = 0;
    while ((c = getopt(argc, argv, ":n:i:m:b:W:Vc:t:h")) != -1) {
        int rc = ex_run_option(c, optarg, &o->run);

        if (c == 'n') {
            rc = ex_parse_int(c, optarg, 8, 1 << 14, &o->n);
        } else if (c == 'h') {
            cg_usage();
            return EX_OK;
        } else if (rc == EX_RUN) {
            return ex_bad_option(c, optopt);
        }
        if (rc != 0)
            return rc;
    }
    if (o->run.verify < 0)
        o->run.verify = o->n <= 128;
    if (ex_turns_check(&o->run.t) != EX_RUN)
        return EX_USAGE;
    return ex_no_operands(argc, argv, optind);
}

/* ------------------------------------------------------------------ the matrix */

/* The shortcut edge of row i of an N = n*n matrix: a column j >= i + 2 that is not a grid
 * neighbour, or -1.  Every edge has one origin, so no edge is made twice. */
static long cg_shortcut(long i, int n)
{
    long N = (long) n * n, span = N / 4, j;
    uint64_t h = ex_hash64((uint64_t) i ^ CG_SEED);

    if ((h & 15) != 0 || span < 1)
        return -1;
    j = i + 2 + (long) ((h >> 8) % (uint64_t) span);
    return j >= N || j == i + n ? -1 : j;
}

/* The exact solution, from a hash of the index: a rough vector in [-0.5, 0.5). */
static double cg_exact(long i)
{
    return (double) (ex_hash64((uint64_t) i) >> 11) * 0x1p-53 - 0.5;
}

/* Rows of rank r: whole chunks, in proportions 3:4:5:3:4:5... (size + 1 row indices). */
static void cg_partition(int n, int size, long *row_start)
{
    long N = (long) n * n, total = 0, below = 0;

    for (int r = 0; r < size; r++)
        total += 3 + r % 3;
    for (int r = 0; r <= size; r++) {
        long chunk = CG_CHUNKS * below / total;

        row_start[r] = chunk * N / CG_CHUNKS;
        if (r < size)
            below += 3 + r % 3;
    }
}

static int cg_owner(const long *row_start, int size, long g)
{
    int lo = 0, hi = size - 1;

    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;

        if (row_start[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

struct cg_entry {
    long col;
    double w;
};

static int cg_cmp_long(const void *a, const void *b)
{
    long x = *(const long *) a, y = *(const long *) b;

    return (x > y) - (x < y);
}

static void *cg_alloc(size_t n, size_t size)
{
    void *p = calloc(n > 0 ? n : 1, size);

    if (p == NULL) {
        fprintf(stderr, "cg: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    return p;
}

/*
 * The rows [row0, row1) with global column indices: rowptr, gcol (sorted per row), val.
 * Incoming shortcuts come from every earlier row, so every rank scans the rows before row1.
 */
static void cg_build_rows(int n, long row0, long row1, int **rowptr_out, long **gcol_out,
                          double **val_out)
{
    int nlocal = (int) (row1 - row0), *rowptr, *nin = cg_alloc((size_t) nlocal, sizeof *nin);
    int *inptr = cg_alloc((size_t) nlocal + 1, sizeof *inptr);
    long *in, *gcol;
    double *val;

    for (long i = 0; i < row1; i++) {
        long j = cg_shortcut(i, n);

        if (j >= row0 && j < row1)
            nin[j - row0]++;
    }
    for (int i = 0; i < nlocal; i++)
        inptr[i + 1] = inptr[i] + nin[i];
    in = cg_alloc((size_t) inptr[nlocal], sizeof *in);
    memset(nin, 0, (size_t) nlocal * sizeof *nin);
    for (long i = 0; i < row1; i++) {
        long j = cg_shortcut(i, n);

        if (j >= row0 && j < row1)
            in[inptr[j - row0] + nin[j - row0]++] = i;
    }

    rowptr = cg_alloc((size_t) nlocal + 1, sizeof *rowptr);
    gcol = cg_alloc((size_t) 6 * nlocal + inptr[nlocal], sizeof *gcol);
    val = cg_alloc((size_t) 6 * nlocal + inptr[nlocal], sizeof *val);
    for (int li = 0; li < nlocal; li++) {
        long i = row0 + li, x = i % n, y = i / n, out = cg_shortcut(i, n);
        struct cg_entry e[6 + 64];
        int ne = 0, k0 = rowptr[li];
        double sum = 0.0;

        if (y > 0)
            e[ne++] = (struct cg_entry) { i - n, 1.0 };
        if (x > 0)
            e[ne++] = (struct cg_entry) { i - 1, 1.0 };
        e[ne++] = (struct cg_entry) { i, 0.0 };
        if (x < n - 1)
            e[ne++] = (struct cg_entry) { i + 1, 1.0 };
        if (y < n - 1)
            e[ne++] = (struct cg_entry) { i + n, 1.0 };
        if (out >= 0)
            e[ne++] = (struct cg_entry) { out, 0.5 };
        if (inptr[li + 1] - inptr[li] > 64) {
            fprintf(stderr, "cg: row %ld has more than 64 incoming shortcuts\n", i);
            MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
        }
        for (int k = inptr[li]; k < inptr[li + 1]; k++)
            e[ne++] = (struct cg_entry) { in[k], 0.5 };
        /* insertion sort by column: rows are short */
        for (int a = 1; a < ne; a++)
            for (int b = a; b > 0 && e[b - 1].col > e[b].col; b--) {
                struct cg_entry t = e[b];

                e[b] = e[b - 1];
                e[b - 1] = t;
            }
        for (int k = 0; k < ne; k++)
            sum += e[k].w;
        for (int k = 0; k < ne; k++) {
            gcol[k0 + k] = e[k].col;
            val[k0 + k] = e[k].col == i ? sum + CG_SHIFT : -e[k].w;
        }
        rowptr[li + 1] = k0 + ne;
    }
    free(nin);
    free(inptr);
    free(in);
    *rowptr_out = rowptr;
    *gcol_out = gcol;
    *val_out = val;
}

/*
 * Rank @rank of @size: its rows, local column numbers, halo and send lists, chunks, and the
 * vectors.  The matrix is symmetric, so a rank knows from its own rows what every neighbour
 * needs from it, and the entries go in ascending global order both ways: no set-up messages.
 */
static void cg_setup(struct cg_state *s, int n, int size, int rank, MPI_Comm comm)
{
    struct cg_matrix *A = &s->A;
    struct cg_halo *h = &s->h;
    long row0, row1, *gcol, *halo, *pairs;
    int nnz, nh = 0, np = 0, *rowptr, total;
    double *val;

    memset(s, 0, sizeof *s);
    s->row_start = cg_alloc((size_t) size + 1, sizeof *s->row_start);
    cg_partition(n, size, s->row_start);
    row0 = s->row_start[rank];
    row1 = s->row_start[rank + 1];
    cg_build_rows(n, row0, row1, &rowptr, &gcol, &val);
    A->nlocal = (int) (row1 - row0);
    A->row0 = row0;
    nnz = rowptr[A->nlocal];

    /* The halo: off-rank columns, sorted and unique; pairs: (owner, local row) to send. */
    halo = cg_alloc((size_t) nnz, sizeof *halo);
    pairs = cg_alloc((size_t) nnz, sizeof *pairs);
    for (int k = 0; k < nnz; k++)
        if (gcol[k] < row0 || gcol[k] >= row1)
            halo[nh++] = gcol[k];
    qsort(halo, (size_t) nh, sizeof *halo, cg_cmp_long);
    A->nhalo = 0;
    for (int k = 0; k < nh; k++)
        if (A->nhalo == 0 || halo[A->nhalo - 1] != halo[k])
            halo[A->nhalo++] = halo[k];
    for (int li = 0; li < A->nlocal; li++)
        for (int k = rowptr[li]; k < rowptr[li + 1]; k++)
            if (gcol[k] < row0 || gcol[k] >= row1)
                pairs[np++] = (long) cg_owner(s->row_start, size, gcol[k]) * (row1 - row0 + 1)
                              + li;
    qsort(pairs, (size_t) np, sizeof *pairs, cg_cmp_long);

    /* Local column numbers; rows split into inner and outer. */
    A->rowptr = rowptr;
    A->col = cg_alloc((size_t) nnz, sizeof *A->col);
    A->val = val;
    A->inner = cg_alloc((size_t) A->nlocal, sizeof *A->inner);
    A->outer = cg_alloc((size_t) A->nlocal, sizeof *A->outer);
    for (int li = 0; li < A->nlocal; li++) {
        int reads_halo = 0;

        for (int k = rowptr[li]; k < rowptr[li + 1]; k++) {
            long g = gcol[k];

            if (g >= row0 && g < row1) {
                A->col[k] = (int) (g - row0);
            } else {
                long *at = bsearch(&g, halo, (size_t) A->nhalo, sizeof *halo, cg_cmp_long);

                A->col[k] = A->nlocal + (int) (at - halo);
                reads_halo = 1;
            }
        }
        if (reads_halo)
            A->outer[A->nouter++] = li;
        else
            A->inner[A->ninner++] = li;
    }

    /* Neighbours: the owners of the halo, which are also the ranks that need our rows. */
    h->comm = comm;
    h->nbr = cg_alloc((size_t) size, sizeof *h->nbr);
    h->recv_count = cg_alloc((size_t) size, sizeof *h->recv_count);
    h->recv_off = cg_alloc((size_t) size, sizeof *h->recv_off);
    h->send_count = cg_alloc((size_t) size, sizeof *h->send_count);
    h->send_off = cg_alloc((size_t) size, sizeof *h->send_off);
    for (int k = 0; k < A->nhalo; k++) {
        int owner = cg_owner(s->row_start, size, halo[k]);

        if (h->nnbr == 0 || h->nbr[h->nnbr - 1] != owner) {
            h->nbr[h->nnbr] = owner;
            h->recv_off[h->nnbr++] = k;
        }
        h->recv_count[h->nnbr - 1]++;
    }
    h->send_idx = cg_alloc((size_t) np, sizeof *h->send_idx);
    total = 0;
    for (int k = 0; k < np; k++) {
        int owner = (int) (pairs[k] / (row1 - row0 + 1)), li = (int) (pairs[k] % (row1 - row0 + 1));
        int nb = 0;

        if (k > 0 && pairs[k] == pairs[k - 1])
            continue;
        while (nb < h->nnbr && h->nbr[nb] != owner)
            nb++;
        if (nb == h->nnbr) {
            fprintf(stderr, "cg: rank %d: rank %d reads my rows but I read none of its\n",
                    rank, owner);
            MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
        }
        if (h->send_count[nb]++ == 0)
            h->send_off[nb] = total;
        h->send_idx[total++] = li;
    }
    h->send_buf = cg_alloc((size_t) total, sizeof *h->send_buf);
    h->req = cg_alloc((size_t) 2 * h->nnbr, sizeof *h->req);
    h->status = cg_alloc((size_t) 2 * h->nnbr, sizeof *h->status);
    h->chunk_start = cg_alloc(CG_CHUNKS + 1, sizeof *h->chunk_start);
    for (int c = 0; c <= CG_CHUNKS; c++)
        h->chunk_start[c] = (long) c * ((long) n * n) / CG_CHUNKS;
    for (int c = 0; c < CG_CHUNKS; c++) {
        if (h->chunk_start[c] == row0)
            h->chunk0 = c;
        if (h->chunk_start[c] >= row0 && h->chunk_start[c] < row1)
            h->nchunks++;
    }
    free(gcol);
    free(pairs);

    /* b = A x_exact, from the exact solution at every column the rows read. */
    s->x = cg_alloc((size_t) A->nlocal + A->nhalo, sizeof(double));
    s->r = cg_alloc((size_t) A->nlocal + A->nhalo, sizeof(double));
    s->p = cg_alloc((size_t) A->nlocal + A->nhalo, sizeof(double));
    s->q = cg_alloc((size_t) A->nlocal + A->nhalo, sizeof(double));
    s->b = cg_alloc((size_t) A->nlocal + A->nhalo, sizeof(double));
    for (int li = 0; li < A->nlocal; li++)
        s->x[li] = cg_exact(row0 + li);
    for (int k = 0; k < A->nhalo; k++)
        s->x[A->nlocal + k] = cg_exact(halo[k]);
    free(halo);
    cg_rows(A, NULL, A->nlocal, s->x, s->b);
    memset(s->x, 0, ((size_t) A->nlocal + A->nhalo) * sizeof(double));
}

static void cg_free(struct cg_state *s)
{
    free(s->A.rowptr);
    free(s->A.col);
    free(s->A.val);
    free(s->A.inner);
    free(s->A.outer);
    free(s->h.nbr);
    free(s->h.recv_count);
    free(s->h.recv_off);
    free(s->h.send_count);
    free(s->h.send_off);
    free(s->h.send_idx);
    free(s->h.send_buf);
    free(s->h.req);
    free(s->h.status);
    free(s->h.chunk_start);
    free(s->row_start);
    free(s->x);
    free(s->r);
    free(s->p);
    free(s->q);
    free(s->b);
}

void cg_rows(const struct cg_matrix *A, const int *list, int n, const double *p, double *q)
{
    for (int k = 0; k < n; k++) {
        int i = list != NULL ? list[k] : k;
        double sum = 0.0;

        for (int e = A->rowptr[i]; e < A->rowptr[i + 1]; e++)
            sum += A->val[e] * p[A->col[e]];
        q[i] = sum;
    }
}

/* ------------------------------------------------------------------ the solver */

/* The serial reference: no neighbours, and the chunk sums are already the totals. */
static void cg_spmv_serial(const struct cg_matrix *A, struct cg_halo *h, double *p, double *q)
{
    (void) h;
    cg_rows(A, NULL, A->nlocal, p, q);
}

static void cg_reduce_serial(struct cg_halo *h)
{
    memcpy(h->sums, h->slots, sizeof h->sums);
}

static const struct cg_mode cg_serial_mode = {
    "serial", "rank 0 alone", cg_spmv_serial, cg_reduce_serial,
};

/* a . b: each chunk summed in row order, the chunks in order (cg.h). */
static double cg_dot(struct cg_state *s, const struct cg_mode *m, const double *a,
                     const double *b)
{
    struct cg_halo *h = &s->h;
    double total = 0.0;

    memset(h->slots, 0, sizeof h->slots);
    for (int c = h->chunk0; c < h->chunk0 + h->nchunks; c++) {
        double sum = 0.0;

        for (long i = h->chunk_start[c] - s->A.row0; i < h->chunk_start[c + 1] - s->A.row0; i++)
            sum += a[i] * b[i];
        h->slots[c] = sum;
    }
    m->reduce(h);
    for (int c = 0; c < CG_CHUNKS; c++)
        total += h->sums[c];
    return total;
}

static void cg_start(struct cg_state *s, const struct cg_mode *m)
{
    int nl = s->A.nlocal;

    memcpy(s->r, s->b, (size_t) nl * sizeof(double));
    memcpy(s->p, s->b, (size_t) nl * sizeof(double));
    s->rho = s->rho0 = cg_dot(s, m, s->r, s->r);
}

/* One CG iteration in mode m; a solve that has converged starts again from x = 0. */
static void cg_iteration(struct cg_state *s, const struct cg_mode *m)
{
    int nl = s->A.nlocal;
    double pq, alpha, beta, rho_new;

    if (s->converged) {
        memset(s->x, 0, (size_t) nl * sizeof(double));
        memcpy(s->r, s->b, (size_t) nl * sizeof(double));
        memcpy(s->p, s->b, (size_t) nl * sizeof(double));
        s->rho = s->rho0;
        s->converged = 0;
    }
    m->spmv(&s->A, &s->h, s->p, s->q);
    pq = cg_dot(s, m, s->p, s->q);
    if (!(s->rho > 0.0 && pq > 0.0))
        return;         /* solved exactly: nothing left to do */
    alpha = s->rho / pq;
    for (int i = 0; i < nl; i++) {
        s->x[i] += alpha * s->p[i];
        s->r[i] -= alpha * s->q[i];
    }
    rho_new = cg_dot(s, m, s->r, s->r);
    beta = rho_new / s->rho;
    for (int i = 0; i < nl; i++)
        s->p[i] = s->r[i] + beta * s->p[i];
    s->rho = rho_new;
    if (rho_new < CG_TOL * CG_TOL * s->rho0) {
        s->converged = 1;
        s->solves++;
    }
}

static const struct cg_mode *cg_mode_of(const struct ex_pick *pick)
{
    return pick->pmpi ? &cg_modes_pmpi[pick->mode] : &cg_modes[pick->mode];
}

static void cg_step(void *ctx, const struct ex_pick *pick)
{
    cg_iteration(ctx, cg_mode_of(pick));
}

/* |b - Ax| / |b| after the run (x's halo brought up to date by mode m's product). */
static double cg_residual(struct cg_state *s, const struct cg_mode *m)
{
    m->spmv(&s->A, &s->h, s->x, s->q);
    for (int i = 0; i < s->A.nlocal; i++)
        s->r[i] = s->b[i] - s->q[i];
    return sqrt(cg_dot(s, m, s->r, s->r) / cg_dot(s, m, s->b, s->b));
}

static uint64_t cg_checksum(const double *x, long n)
{
    uint64_t hash = EX_FNV_OFFSET;

    for (long i = 0; i < n; i++)
        hash = ex_fnv1a_double(hash, x[i]);
    return hash;
}

/* The same iterations serially on rank 0: the reference of -V. */
static uint64_t cg_serial_checksum(int n, int iters)
{
    struct cg_state s;
    uint64_t hash;

    cg_setup(&s, n, 1, 0, MPI_COMM_SELF);
    cg_start(&s, &cg_serial_mode);
    for (int it = 0; it < iters; it++)
        cg_iteration(&s, &cg_serial_mode);
    hash = cg_checksum(s.x, (long) n * n);
    cg_free(&s);
    return hash;
}

/* Rank 0: the result lines and the checks; returns the exit status. */
static int cg_report(const struct cg_options *o, int size, const int range[4], double residual,
                     int solves, const double *all_x, const double *spent)
{
    uint64_t hash = cg_checksum(all_x, (long) o->n * o->n);
    int status = EX_OK;

    printf("cg: n=%d procs=%d neighbours=%d-%d halo=%d-%d", o->n, size, range[0], range[1],
           range[2], range[3]);
    ex_print_timing(&o->run.t, spent);
    printf(" residual=%.6e solves=%d checksum=0x%016" PRIx64 "\n", residual, solves, hash);
    ex_print_turn_lines(&o->run.t, spent);
    fflush(stdout);
    if (!isfinite(residual) || !(residual < 1.0 || solves > 0)) {
        fprintf(stderr, "cg: FAILED: relative residual %.6e is not below 1\n", residual);
        status = EX_FAILED;
    }
    if (ex_check_checksum(&o->run, hash, o->run.verify ?
                          cg_serial_checksum(o->n, (int) ex_turns_total(&o->run.t)) : 0) != EX_OK)
        status = EX_FAILED;
    return status;
}

int main(int argc, char **argv)
{
    struct cg_options o;
    struct cg_state s;
    int rank, size, status, mine[4], range[4];
    int *counts = NULL, *displs = NULL;
    double spent[EX_MAX_MODES] = { 0 }, residual, *all_x = NULL;
    const struct cg_mode *first;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ex_setup("cg", rank);
    status = cg_parse(argc, argv, &o);
    if (status == EX_RUN && size > CG_CHUNKS / 4) {
        ex_error("at most %d processes (the rows are cut into %d chunks)", CG_CHUNKS / 4,
                 CG_CHUNKS);
        status = EX_USAGE;
    }
    if (status != EX_RUN) {
        MPI_Finalize();
        return status;
    }

    cg_setup(&s, o.n, size, rank, MPI_COMM_WORLD);
    first = cg_mode_of(&o.run.t.picks[0]);
    cg_start(&s, first);
    if (ex_run_turns(MPI_COMM_WORLD, &o.run.t, cg_step, &s, o.run.times, spent) != 0)
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    residual = cg_residual(&s, first);

    /* The spread of the communication pattern: min and max over the ranks. */
    mine[0] = -s.h.nnbr;
    mine[1] = s.h.nnbr;
    mine[2] = -s.A.nhalo;
    mine[3] = s.A.nhalo;
    MPI_Reduce(mine, range, 4, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    range[0] = -range[0];
    range[2] = -range[2];

    /* x in global order on rank 0: ranks own ascending row ranges. */
    if (rank == 0) {
        counts = cg_alloc((size_t) size, sizeof *counts);
        displs = cg_alloc((size_t) size, sizeof *displs);
        all_x = cg_alloc((size_t) o.n * o.n, sizeof *all_x);
        for (int r = 0; r < size; r++) {
            displs[r] = (int) s.row_start[r];
            counts[r] = (int) (s.row_start[r + 1] - s.row_start[r]);
        }
    }
    MPI_Gatherv(s.x, s.A.nlocal, MPI_DOUBLE, all_x, counts, displs, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    if (rank == 0)
        status = cg_report(&o, size, range, residual, s.solves, all_x, spent);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(counts);
    free(displs);
    free(all_x);
    cg_free(&s);
    MPI_Finalize();
    return status;
}
