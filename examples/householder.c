/*
 * householder: Householder tridiagonalization of a symmetric matrix, columns dealt out
 * cyclically; the communication is one MPI_Bcast and one MPI_Allreduce of a vector per step
 * (the workload Imamura studied for eigenvalue solvers).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Step j (0 <= j < k) removes column j below the subdiagonal with H = I - beta v v^T acting on
 * rows and columns j+1 .. n-1:
 *   - the owner of column j computes v and beta from that column, and MPI_Bcast sends them;
 *   - every rank multiplies its own columns of the trailing matrix by v: a partial A v;
 *   - MPI_Allreduce sums the partial vectors: p = beta A v;
 *   - every rank forms w = p - (beta/2)(p.v) v and updates its columns: A -= v w^T + w v^T.
 * Both vectors shrink by one element per step.
 *
 * The transformation is an orthogonal similarity, so the trace and the Frobenius norm of the
 * matrix do not change: both must agree with the original within 1e-10 (relative to the norm).
 * With -V (default for n <= 256) rank 0 also repeats the k steps alone, on MPI_COMM_SELF, and
 * requires every entry to agree within 1e-10 of the norm.  Rank 0 prints
 *   householder: n=256 procs=4 steps=254 avg_iter_us=88.1 trace=... frobenius=... check=ok
 * avg_iter_us being the slowest rank's wall time per step.
 * Exit status: 0 passed, 1 a check failed, 2 bad command line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "common.h"

#define HH_TOLERANCE 1e-10

struct hh_options {
    int n, steps;               /* steps: 0 means n - 2 */
    int verify;                 /* -1: on when n <= 256 */
};

/* This rank's columns c = l * size + rank, column-major: entry (i, c) is a[l * n + i]. */
struct hh_matrix {
    int n, rank, size, ncols;
    double *a;
};

/* Work vectors, n + 2 doubles each: v (then beta and alpha behind it), p, w. */
struct hh_work {
    double *v, *p, *w;
};

static void hh_usage(void)
{
    if (ex_rank != 0)
        return;
    printf("usage: householder [-n N] [-k STEPS] [-V] [-h]\n"
           "Householder tridiagonalization of a symmetric N x N matrix, columns cyclic over\n"
           "the processes: one MPI_Bcast and one MPI_Allreduce of a vector per step.\n"
           "  -n N      matrix size, at least 3 (default 256)\n"
           "  -k STEPS  Householder steps, 1 .. N-2 (default N-2: fully tridiagonal)\n"
           "  -V        repeat the steps on rank 0 alone and compare every entry\n"
           "            (default: on when N <= 256)\n"
           "  -h        show this help\n"
           "Checks that the trace and the Frobenius norm are unchanged.\n");
}

static int hh_parse(int argc, char **argv, struct hh_options *o)
{
    int c;

    *o = (struct hh_options) { .n = 256, .verify = -1 };
    opterr = 0;
    while ((c = getopt(argc, argv, ":n:k:Vh")) != -1) {
        int rc = 0;

        switch (c) {
        case 'n':
            rc = ex_parse_int(c, optarg, 3, 1 << 15, &o->n);
            break;
        case 'k':
            rc = ex_parse_int(c, optarg, 1, INT_MAX, &o->steps);
            break;
        case 'V':
            o->verify = 1;
            break;
        case 'h':
            hh_usage();
            return EX_OK;
        default:
            return ex_bad_option(c, optopt);
        }
        if (rc != 0)
            return rc;
    }
    if (o->steps == 0)
        o->steps = o->n - 2;
    if (o->steps > o->n - 2) {
        ex_error("option -k: %d steps is more than N-2 = %d", o->steps, o->n - 2);
        return EX_USAGE;
    }
    if (o->verify < 0)
        o->verify = o->n <= 256;
    return ex_no_operands(argc, argv, optind);
}

/* Entry (i, j) of the symmetric test matrix: a hash of the unordered pair, in [-1, 1). */
static double hh_entry(int i, int j, int n)
{
    uint64_t z;

    if (i > j) {
        int t = i;
        i = j;
        j = t;
    }
    z = (uint64_t) i * (uint64_t) n + (uint64_t) j + UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    z ^= z >> 31;
    return (double) (z >> 11) * 0x1p-52 - 1.0;
}

static int hh_alloc(struct hh_matrix *m, struct hh_work *w, int n, int rank, int size)
{
    m->n = n;
    m->rank = rank;
    m->size = size;
    m->ncols = n / size + (rank < n % size);
    m->a = malloc(((size_t) n * m->ncols + 1) * sizeof *m->a);
    w->v = malloc(((size_t) n + 2) * sizeof(double));
    w->p = malloc(((size_t) n + 2) * sizeof(double));
    w->w = malloc(((size_t) n + 2) * sizeof(double));
    return m->a && w->v && w->p && w->w ? 0 : -1;
}

static void hh_free(struct hh_matrix *m, struct hh_work *w)
{
    free(m->a);
    free(w->v);
    free(w->p);
    free(w->w);
}

static void hh_init(struct hh_matrix *m)
{
    for (int l = 0; l < m->ncols; l++)
        for (int i = 0; i < m->n; i++)
            m->a[(size_t) l * m->n + i] = hh_entry(i, l * m->size + m->rank, m->n);
}

/* Trace and squared Frobenius norm of the whole matrix (MPI_Allreduce of local sums). */
static void hh_invariants(const struct hh_matrix *m, MPI_Comm comm, double out[2])
{
    out[0] = out[1] = 0.0;
    for (int l = 0; l < m->ncols; l++) {
        const double *col = &m->a[(size_t) l * m->n];

        out[0] += col[l * m->size + m->rank];
        for (int i = 0; i < m->n; i++)
            out[1] += col[i] * col[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, out, 2, MPI_DOUBLE, MPI_SUM, comm);
}

/* One Householder step on rows and columns j+1 .. n-1; see the header for the algebra. */
static void hh_step(struct hh_matrix *m, struct hh_work *wk, int j, MPI_Comm comm)
{
    const int n = m->n, len = n - j - 1, owner = j % m->size;
    double *v = wk->v, *p = wk->p, *w = wk->w;
    double beta, alpha, pv = 0.0, half;
    int first;

    if (m->rank == owner) {
        const double *x = &m->a[(size_t) (j / m->size) * n + j + 1];
        double norm2 = 0.0, vv = 0.0;

        for (int r = 0; r < len; r++)
            norm2 += x[r] * x[r];
        alpha = -copysign(sqrt(norm2), x[0]);
        memcpy(v, x, (size_t) len * sizeof *v);
        v[0] -= alpha;
        for (int r = 0; r < len; r++)
            vv += v[r] * v[r];
        v[len] = vv > 0.0 ? 2.0 / vv : 0.0;
        v[len + 1] = alpha;
    }
    MPI_Bcast(v, len + 2, MPI_DOUBLE, owner, comm);
    beta = v[len];
    alpha = v[len + 1];

    /* My first column after j, then the partial product of my trailing columns with v. */
    first = (j + 1 - m->rank + m->size - 1) / m->size;    /* j + 1 - rank > -size */
    memset(p, 0, (size_t) len * sizeof *p);
    for (int l = first; l < m->ncols; l++) {
        const double *col = &m->a[(size_t) l * n + j + 1];
        double vc = v[l * m->size + m->rank - j - 1];

        for (int r = 0; r < len; r++)
            p[r] += col[r] * vc;
    }
    MPI_Allreduce(MPI_IN_PLACE, p, len, MPI_DOUBLE, MPI_SUM, comm);

    for (int r = 0; r < len; r++) {
        p[r] *= beta;
        pv += p[r] * v[r];
    }
    half = 0.5 * beta * pv;
    for (int r = 0; r < len; r++)
        w[r] = p[r] - half * v[r];

    /* Rank-2 update of my trailing columns; row j becomes (alpha, 0, ..., 0) there. */
    for (int l = first; l < m->ncols; l++) {
        int c = l * m->size + m->rank - j - 1;
        double *col = &m->a[(size_t) l * n];

        col[j] = c == 0 ? alpha : 0.0;
        for (int r = 0; r < len; r++)
            col[j + 1 + r] -= v[r] * w[c] + w[r] * v[c];
    }
    /* Column j becomes (..., alpha, 0, ..., 0) below the diagonal. */
    if (m->rank == owner) {
        double *col = &m->a[(size_t) (j / m->size) * n];

        col[j + 1] = alpha;
        memset(&col[j + 2], 0, (size_t) (len - 1) * sizeof *col);
    }
}

/* Rank 0: every column of the distributed matrix, in the column-major order of a 1-rank run. */
static double *hh_gather(const struct hh_matrix *m)
{
    int n = m->n, *counts = NULL, *displs = NULL;
    double *recv = NULL, *all = NULL;

    if (m->rank == 0) {
        counts = malloc((size_t) m->size * sizeof *counts);
        displs = malloc((size_t) m->size * sizeof *displs);
        recv = malloc((size_t) n * n * sizeof *recv);
        all = malloc((size_t) n * n * sizeof *all);
        if (!counts || !displs || !recv || !all) {
            fprintf(stderr, "householder: out of memory gathering the matrix\n");
            MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
        }
        for (int r = 0, off = 0; r < m->size; r++) {
            counts[r] = (n / m->size + (r < n % m->size)) * n;
            displs[r] = off;
            off += counts[r];
        }
    }
    MPI_Gatherv(m->a, m->ncols * n, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    if (m->rank == 0) {
        for (int r = 0; r < m->size; r++)
            for (int l = 0; l * m->size + r < n; l++)
                memcpy(&all[(size_t) (l * m->size + r) * n], &recv[displs[r] + (size_t) l * n],
                       (size_t) n * sizeof *all);
    }
    free(counts);
    free(displs);
    free(recv);
    return all;
}

/* -V on rank 0: the same steps alone; the largest entry difference relative to the norm. */
static double hh_serial_difference(const double *all, int n, int steps, double norm)
{
    struct hh_matrix s;
    struct hh_work wk;
    double diff = 0.0;

    if (hh_alloc(&s, &wk, n, 0, 1) != 0) {
        fprintf(stderr, "householder: out of memory for the serial check\n");
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    hh_init(&s);
    for (int j = 0; j < steps; j++)
        hh_step(&s, &wk, j, MPI_COMM_SELF);
    for (size_t e = 0; e < (size_t) n * n; e++)
        diff = fmax(diff, fabs(s.a[e] - all[e]));
    hh_free(&s, &wk);
    return diff / norm;
}

int main(int argc, char **argv)
{
    struct hh_options o;
    struct hh_matrix m;
    struct hh_work wk;
    int rank, size, status;
    double before[2], after[2], t, tmax;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ex_setup("householder", rank);

    status = hh_parse(argc, argv, &o);
    if (status != EX_RUN) {
        MPI_Finalize();
        return status;
    }
    if (hh_alloc(&m, &wk, o.n, rank, size) != 0) {
        fprintf(stderr, "householder: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    hh_init(&m);
    hh_invariants(&m, MPI_COMM_WORLD, before);

    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int j = 0; j < o.steps; j++)
        hh_step(&m, &wk, j, MPI_COMM_WORLD);
    t = MPI_Wtime() - t;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    hh_invariants(&m, MPI_COMM_WORLD, after);
    if (o.verify) {
        double *all = hh_gather(&m);

        if (rank == 0) {
            double norm = sqrt(before[1]);
            double diff = hh_serial_difference(all, o.n, o.steps, norm);

            if (!(diff <= HH_TOLERANCE)) {
                fprintf(stderr, "householder: FAILED: an entry differs from the serial run by "
                        "%.3e of the norm\n", diff);
                status = EX_FAILED;
            }
        }
        free(all);
    }
    if (rank == 0) {
        double norm = sqrt(before[1]);
        double dtrace = fabs(after[0] - before[0]) / norm;
        double dnorm = fabs(sqrt(after[1]) - norm) / norm;

        if (!(dtrace <= HH_TOLERANCE) || !(dnorm <= HH_TOLERANCE)) {
            fprintf(stderr, "householder: FAILED: trace %.17g -> %.17g, Frobenius norm %.17g "
                    "-> %.17g\n", before[0], after[0], norm, sqrt(after[1]));
            status = EX_FAILED;
        }
        if (status == EX_RUN)
            status = EX_OK;
        printf("householder: n=%d procs=%d steps=%d avg_iter_us=%.1f trace=%.12e "
               "frobenius=%.12e check=%s\n", o.n, size, o.steps, tmax / o.steps * 1e6,
               after[0], sqrt(after[1]), status == EX_OK ? "ok" : "FAILED");
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);

    hh_free(&m, &wk);
    MPI_Finalize();
    return status;
}
