/*
 * multigrid: V-cycles for the 3D Poisson equation on a P x Q x R process grid (multigrid.h:
 * the discretisation, why the result is the same bits on every process grid), written with
 * blocking calls: every smoothing sweep, residual and prolongation first exchanges the faces
 * of its level with one MPI_Sendrecv per side and dimension, faces 4 times smaller on each
 * coarser level.  -m picks the exchange (multigrid_exchange.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Rank 0 prints one line, for example
 *   multigrid: n=64 levels=4 grid=2x2x1 mode=sendrecv iters=300 avg_iter_us=41234.5 residual=1.234567e-12 checksum=0x0123456789abcdef
 * where an iteration is one V-cycle, residual is |f - Au| / |f| of the final u on the finest
 * grid, and checksum is the 64-bit FNV-1a of the finest u in global order (x fastest): the
 * same for every mode, process grid and process count.  With several modes a line per mode
 * follows (turns.h), as with sor.
 *
 * A V-cycle: 2 Jacobi sweeps, residual, restriction to the next level (zero initial guess),
 * the V-cycle there, prolongation of the correction, 2 Jacobi sweeps; on the coarsest level
 * 2 x (its cells per side) sweeps instead.
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

#include "common.h"
#include "multigrid.h"
#include "turns.h"

enum { MG_MAX_LEVELS = 16, MG_PRE = 2, MG_POST = 2 };

struct mg_options {
    int n, levels;              /* levels 0: down to 8 cells per side (or fewer levels) */
    struct ex_run_options run;  /* verify: -1 until decided (on when n <= 32) */
};

struct mg_state {
    struct mg_level lv[MG_MAX_LEVELS];
    int nlevels;
    struct mg_comm c;
};

static const char *const mg_names[] = { "sendrecv", "isend", NULL };

static void mg_usage(void)
{
    const char *summaries[2] = { mg_modes[0].summary, mg_modes[1].summary };

    if (ex_rank != 0)
        return;
    printf("usage: multigrid [-n N] [-l LEVELS] [-i CYCLES] [-m MODE[,MODE...]] [-b TURN]\n"
           "                 [-W WARM] [-V] [-c HEX] [-t FILE] [-h]\n"
           "Multigrid V-cycles for the 3D Poisson equation on N^3 cells, P x Q x R processes\n"
           "(MPI_Dims_create).\n"
           "  -n N      cells per side (default 64)\n"
           "  -l LEVELS grid levels, each with half the cells per side of the one above; N\n"
           "            must be a multiple of 2^(LEVELS-1) (default: down to 8 cells per side)\n"
           "  -i CYCLES V-cycles of each mode (default 300)\n"
           "  -m MODE   face exchange (default sendrecv):\n");
    ex_usage_modes(mg_names, summaries);
    ex_usage_checks("run the V-cycles", "N <= 32");
    printf("Every process needs at least one cell per dimension on the coarsest level.\n"
           "Fails when the relative residual |f - Au|/|f| is not finite or not below 1.\n");
}

static int mg_parse(int argc, char **argv, struct mg_options *o)
{
    int c;

    *o = (struct mg_options) {
        .n = 64,
        .run = { .t = { .names = mg_names, .npicks = 1, .iters = 300, .turn = 50 },
                 .verify = -1 },
    };
    opterr = 0;
    while ((c = getopt(argc, argv, ":n:l:i:m:b:W:Vc:t:h")) != -1) {
        int rc = ex_run_option(c, optarg, &o->run);

        if (c == 'n') {
            rc = ex_parse_int(c, optarg, 1, 1 << 12, &o->n);
        } else if (c == 'l') {
            rc = ex_parse_int(c, optarg, 1, MG_MAX_LEVELS, &o->levels);
        } else if (c == 'h') {
            mg_usage();
            return EX_OK;
        } else if (rc == EX_RUN) {
            return ex_bad_option(c, optopt);
        }
        if (rc != 0)
            return rc;
    }
    if (o->levels == 0) {
        o->levels = 1;
        while (o->levels < MG_MAX_LEVELS && o->n % (2 << (o->levels - 1)) == 0 &&
               o->n >> o->levels >= 8)
            o->levels++;
    }
    if (o->n % (1 << (o->levels - 1)) != 0) {
        ex_error("option -l: %d levels need N to be a multiple of %d, not %d", o->levels,
                 1 << (o->levels - 1), o->n);
        return EX_USAGE;
    }
    if (o->run.verify < 0)
        o->run.verify = o->n <= 32;
    if (ex_turns_check(&o->run.t) != EX_RUN)
        return EX_USAGE;
    return ex_no_operands(argc, argv, optind);
}

/* ------------------------------------------------------------------ faces */

/* The dimensions other than d, in order, and the range of each that the face of d covers:
 * the halo of a dimension exchanged before d is included. */
static void mg_face_dims(const struct mg_level *L, int d, int e[2], int lo[2], int hi[2])
{
    for (int k = 0, x = 0; x < 3; x++) {
        if (x == d)
            continue;
        e[k] = x;
        lo[k] = x < d ? 0 : 1;
        hi[k] = x < d ? L->n[x] + 1 : L->n[x];
        k++;
    }
}

int mg_face_cells(const struct mg_level *L, int d)
{
    int e[2], lo[2], hi[2];

    mg_face_dims(L, d, e, lo, hi);
    return (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1);
}

void mg_face_copy(const struct mg_level *L, int d, int plane, double *u, double *buf, int dir)
{
    int e[2], lo[2], hi[2], k = 0;

    mg_face_dims(L, d, e, lo, hi);
    for (int b = lo[1]; b <= hi[1]; b++)
        for (int a = lo[0]; a <= hi[0]; a++) {
            double *cell = &u[(size_t) plane * L->stride[d] + (size_t) a * L->stride[e[0]] +
                              (size_t) b * L->stride[e[1]]];

            if (dir == MG_PACK)
                buf[k++] = *cell;
            else
                *cell = buf[k++];
        }
}

/* Ghost plane @ghost = minus plane @inside: u = 0 on the boundary face between them. */
static void mg_face_reflect(const struct mg_level *L, int d, int ghost, int inside, double *u)
{
    int e[2], lo[2], hi[2];

    mg_face_dims(L, d, e, lo, hi);
    for (int b = lo[1]; b <= hi[1]; b++)
        for (int a = lo[0]; a <= hi[0]; a++) {
            size_t at = (size_t) a * L->stride[e[0]] + (size_t) b * L->stride[e[1]];

            u[at + (size_t) ghost * L->stride[d]] = -u[at + (size_t) inside * L->stride[d]];
        }
}

void mg_face_finish(struct mg_level *L, const struct mg_comm *c, int d, double *u)
{
    if (c->lo[d] != MPI_PROC_NULL)
        mg_face_copy(L, d, 0, u, L->recv[0], MG_UNPACK);
    else
        mg_face_reflect(L, d, 0, 1, u);
    if (c->hi[d] != MPI_PROC_NULL)
        mg_face_copy(L, d, L->n[d] + 1, u, L->recv[1], MG_UNPACK);
    else
        mg_face_reflect(L, d, L->n[d] + 1, L->n[d], u);
}

/* The serial reference has no neighbours: every halo is a boundary. */
static void mg_exchange_serial(struct mg_level *L, const struct mg_comm *c, double *u)
{
    for (int d = 0; d < 3; d++)
        mg_face_finish(L, c, d, u);
}

static const struct mg_mode mg_serial_mode = { "serial", "rank 0 alone", mg_exchange_serial };

/* ------------------------------------------------------------------ levels */

static size_t mg_cells(const struct mg_level *L)
{
    return (size_t) (L->n[0] + 2) * (L->n[1] + 2) * (L->n[2] + 2);
}

static void *mg_alloc(size_t n, size_t size)
{
    void *p = calloc(n > 0 ? n : 1, size);

    if (p == NULL) {
        fprintf(stderr, "multigrid: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    return p;
}

/*
 * The levels of the block at coordinates @coords of a @dims process grid.  A dimension of
 * the coarsest level (n >> (levels-1) cells) is cut as evenly as possible; level l's block is
 * that cut times 2^(levels-1-l), so a coarse block covers exactly its fine block's cells.
 */
static void mg_levels_alloc(struct mg_state *s, int n, int levels, const int dims[3],
                            const int coords[3])
{
    int coarse = n >> (levels - 1);

    s->nlevels = levels;
    for (int l = 0; l < levels; l++) {
        struct mg_level *L = &s->lv[l];
        int scale = 1 << (levels - 1 - l);
        size_t face = 0;

        L->N = n >> l;
        L->h2 = 1.0 / ((double) L->N * L->N);
        for (int d = 0; d < 3; d++) {
            int start = (int) ((long) coords[d] * coarse / dims[d]);
            int end = (int) ((long) (coords[d] + 1) * coarse / dims[d]);

            L->off[d] = start * scale;
            L->n[d] = (end - start) * scale;
        }
        L->stride[0] = 1;
        L->stride[1] = (size_t) L->n[0] + 2;
        L->stride[2] = L->stride[1] * (L->n[1] + 2);
        L->u = mg_alloc(mg_cells(L), sizeof(double));
        L->f = mg_alloc(mg_cells(L), sizeof(double));
        L->r = mg_alloc(mg_cells(L), sizeof(double));
        L->tmp = mg_alloc(mg_cells(L), sizeof(double));
        for (int d = 0; d < 3; d++)
            if ((size_t) mg_face_cells(L, d) > face)
                face = (size_t) mg_face_cells(L, d);
        for (int side = 0; side < 2; side++) {
            L->send[side] = mg_alloc(face, sizeof(double));
            L->recv[side] = mg_alloc(face, sizeof(double));
        }
    }
}

static void mg_levels_free(struct mg_state *s)
{
    for (int l = 0; l < s->nlevels; l++) {
        struct mg_level *L = &s->lv[l];

        free(L->u);
        free(L->f);
        free(L->r);
        free(L->tmp);
        for (int side = 0; side < 2; side++) {
            free(L->send[side]);
            free(L->recv[side]);
        }
    }
}

#define MG_AT(L, i, j, k) ((size_t) (i) + (size_t) (j) * (L)->stride[1] + \
                           (size_t) (k) * (L)->stride[2])

/* f at the cell centres of the finest level; u = 0. */
static void mg_init(struct mg_level *L)
{
    for (int k = 1; k <= L->n[2]; k++)
        for (int j = 1; j <= L->n[1]; j++)
            for (int i = 1; i <= L->n[0]; i++) {
                double x = (L->off[0] + i - 0.5) / L->N, y = (L->off[1] + j - 0.5) / L->N;
                double z = (L->off[2] + k - 0.5) / L->N;

                L->f[MG_AT(L, i, j, k)] = x * (1.0 - x) + y * (1.0 - y) + z * (1.0 - z);
            }
}

/* The sum of the 6 neighbours of the cell at @at, in one fixed order. */
static double mg_neighbours(const struct mg_level *L, const double *u, size_t at)
{
    return u[at - 1] + u[at + 1] + u[at - L->stride[1]] + u[at + L->stride[1]] +
           u[at - L->stride[2]] + u[at + L->stride[2]];
}

/* One weighted Jacobi sweep (weight 6/7): exchange, update into tmp, swap. */
static void mg_smooth(struct mg_level *L, const struct mg_comm *c, const struct mg_mode *m)
{
    double *t;

    m->exchange(L, c, L->u);
    for (int k = 1; k <= L->n[2]; k++)
        for (int j = 1; j <= L->n[1]; j++)
            for (int i = 1; i <= L->n[0]; i++) {
                size_t at = MG_AT(L, i, j, k);

                L->tmp[at] = L->u[at] + (L->h2 * L->f[at] + mg_neighbours(L, L->u, at) -
                                         6.0 * L->u[at]) * (1.0 / 7.0);
            }
    t = L->u;
    L->u = L->tmp;
    L->tmp = t;
}

/* r = f - A u (u's halo current). */
static void mg_residual_local(struct mg_level *L)
{
    for (int k = 1; k <= L->n[2]; k++)
        for (int j = 1; j <= L->n[1]; j++)
            for (int i = 1; i <= L->n[0]; i++) {
                size_t at = MG_AT(L, i, j, k);

                L->r[at] = L->f[at] - (6.0 * L->u[at] - mg_neighbours(L, L->u, at)) / L->h2;
            }
}

/* Coarse f = the average of the 8 children of fine r; coarse u = 0. */
static void mg_restrict(const struct mg_level *F, struct mg_level *C)
{
    memset(C->u, 0, mg_cells(C) * sizeof(double));
    for (int k = 1; k <= C->n[2]; k++)
        for (int j = 1; j <= C->n[1]; j++)
            for (int i = 1; i <= C->n[0]; i++) {
                size_t a = MG_AT(F, 2 * i - 1, 2 * j - 1, 2 * k - 1);
                const size_t sy = F->stride[1], sz = F->stride[2];
                const double *r = F->r;

                C->f[MG_AT(C, i, j, k)] =
                    (r[a] + r[a + 1] + r[a + sy] + r[a + sy + 1] + r[a + sz] + r[a + sz + 1] +
                     r[a + sz + sy] + r[a + sz + sy + 1]) * 0.125;
            }
}

/* Fine u += trilinear interpolation of coarse u (whose halo, corners included, is current).
 * Fine cell i (1-based) lies in coarse cell (i+1)/2, next to coarse neighbour -1 (i odd) or
 * +1 (i even): weights 3/4 and 1/4 per dimension. */
static void mg_prolong(const struct mg_level *C, struct mg_level *F)
{
    for (int k = 1; k <= F->n[2]; k++)
        for (int j = 1; j <= F->n[1]; j++)
            for (int i = 1; i <= F->n[0]; i++) {
                ptrdiff_t a = (ptrdiff_t) MG_AT(C, (i + 1) / 2, (j + 1) / 2, (k + 1) / 2);
                ptrdiff_t dx = i % 2 ? -1 : 1;
                ptrdiff_t dy = (j % 2 ? -1 : 1) * (ptrdiff_t) C->stride[1];
                ptrdiff_t dz = (k % 2 ? -1 : 1) * (ptrdiff_t) C->stride[2];
                const double *u = C->u;
                double near = 0.75 * (0.75 * (0.75 * u[a] + 0.25 * u[a + dx]) +
                                      0.25 * (0.75 * u[a + dy] + 0.25 * u[a + dy + dx]));
                double far = 0.75 * (0.75 * u[a + dz] + 0.25 * u[a + dz + dx]) +
                             0.25 * (0.75 * u[a + dz + dy] + 0.25 * u[a + dz + dy + dx]);

                F->u[MG_AT(F, i, j, k)] += near + 0.25 * far;
            }
}

static void mg_vcycle(struct mg_state *s, int l, const struct mg_mode *m)
{
    struct mg_level *L = &s->lv[l], *C = &s->lv[l + 1];

    if (l == s->nlevels - 1) {
        for (int it = 0; it < 2 * L->N; it++)
            mg_smooth(L, &s->c, m);
        return;
    }
    for (int it = 0; it < MG_PRE; it++)
        mg_smooth(L, &s->c, m);
    m->exchange(L, &s->c, L->u);
    mg_residual_local(L);
    mg_restrict(L, C);
    mg_vcycle(s, l + 1, m);
    m->exchange(C, &s->c, C->u);
    mg_prolong(C, L);
    for (int it = 0; it < MG_POST; it++)
        mg_smooth(L, &s->c, m);
}

static void mg_step(void *ctx, const struct ex_pick *pick)
{
    mg_vcycle(ctx, 0, pick->pmpi ? &mg_modes_pmpi[pick->mode] : &mg_modes[pick->mode]);
}

/* ------------------------------------------------------------------ results */

/* |f - Au| / |f| of a serial finest level (whose u is set). */
static double mg_relative_residual(struct mg_state *s)
{
    struct mg_level *L = &s->lv[0];
    double rr = 0.0, ff = 0.0;

    mg_exchange_serial(L, &s->c, L->u);
    mg_residual_local(L);
    for (int k = 1; k <= L->n[2]; k++)
        for (int j = 1; j <= L->n[1]; j++)
            for (int i = 1; i <= L->n[0]; i++) {
                size_t at = MG_AT(L, i, j, k);

                rr += L->r[at] * L->r[at];
                ff += L->f[at] * L->f[at];
            }
    return sqrt(rr / ff);
}

static uint64_t mg_checksum(const struct mg_level *L)
{
    uint64_t hash = EX_FNV_OFFSET;

    for (int k = 1; k <= L->n[2]; k++)
        for (int j = 1; j <= L->n[1]; j++)
            for (int i = 1; i <= L->n[0]; i++)
                hash = ex_fnv1a_double(hash, L->u[MG_AT(L, i, j, k)]);
    return hash;
}

/* A serial state: one block of the whole grid, no neighbours. */
static void mg_serial_setup(struct mg_state *s, int n, int levels)
{
    const int one[3] = { 1, 1, 1 }, zero[3] = { 0, 0, 0 };

    memset(s, 0, sizeof *s);
    mg_levels_alloc(s, n, levels, one, zero);
    for (int d = 0; d < 3; d++)
        s->c.lo[d] = s->c.hi[d] = MPI_PROC_NULL;
    s->c.comm = MPI_COMM_SELF;
    mg_init(&s->lv[0]);
}

/* Every block's finest u into the serial state's grid on rank 0, placed by its offsets. */
static void mg_gather(const struct mg_state *s, struct mg_state *all)
{
    const struct mg_level *L = &s->lv[0];
    int rank, size, mine = L->n[0] * L->n[1] * L->n[2], *counts = NULL, *displs = NULL;
    int (*where)[6] = NULL, info[6] = { L->off[0], L->off[1], L->off[2], L->n[0], L->n[1],
                                        L->n[2] };
    double *block = mg_alloc((size_t) mine, sizeof *block), *recv = NULL;
    size_t k = 0;

    MPI_Comm_rank(s->c.comm, &rank);
    MPI_Comm_size(s->c.comm, &size);
    for (int z = 1; z <= L->n[2]; z++)
        for (int y = 1; y <= L->n[1]; y++)
            for (int x = 1; x <= L->n[0]; x++)
                block[k++] = L->u[MG_AT(L, x, y, z)];
    if (rank == 0) {
        where = mg_alloc((size_t) size, sizeof *where);
        counts = mg_alloc((size_t) size, sizeof *counts);
        displs = mg_alloc((size_t) size, sizeof *displs);
        recv = mg_alloc((size_t) L->N * L->N * L->N, sizeof *recv);
    }
    MPI_Gather(info, 6, MPI_INT, where, 6, MPI_INT, 0, s->c.comm);
    for (int r = 0, off = 0; rank == 0 && r < size; r++) {
        counts[r] = where[r][3] * where[r][4] * where[r][5];
        displs[r] = off;
        off += counts[r];
    }
    MPI_Gatherv(block, mine, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, 0, s->c.comm);
    for (int r = 0; rank == 0 && r < size; r++) {
        const struct mg_level *A = &all->lv[0];
        const double *b = &recv[displs[r]];

        k = 0;
        for (int z = 1; z <= where[r][5]; z++)
            for (int y = 1; y <= where[r][4]; y++)
                for (int x = 1; x <= where[r][3]; x++)
                    A->u[MG_AT(A, where[r][0] + x, where[r][1] + y, where[r][2] + z)] = b[k++];
    }
    free(block);
    free(where);
    free(counts);
    free(displs);
    free(recv);
}

/* The same V-cycles serially: the reference of -V. */
static uint64_t mg_serial_checksum(int n, int levels, int cycles)
{
    struct mg_state s;
    uint64_t hash;

    mg_serial_setup(&s, n, levels);
    for (int it = 0; it < cycles; it++)
        mg_vcycle(&s, 0, &mg_serial_mode);
    hash = mg_checksum(&s.lv[0]);
    mg_levels_free(&s);
    return hash;
}

static int mg_report(const struct mg_options *o, const int dims[3], struct mg_state *all,
                     const double *spent)
{
    double residual = mg_relative_residual(all);
    uint64_t hash = mg_checksum(&all->lv[0]);
    int status = EX_OK;

    printf("multigrid: n=%d levels=%d grid=%dx%dx%d", o->n, o->levels, dims[0], dims[1],
           dims[2]);
    ex_print_timing(&o->run.t, spent);
    printf(" residual=%.6e checksum=0x%016" PRIx64 "\n", residual, hash);
    ex_print_turn_lines(&o->run.t, spent);
    fflush(stdout);
    if (!isfinite(residual) || !(residual < 1.0)) {
        fprintf(stderr, "multigrid: FAILED: relative residual %.6e is not below 1\n", residual);
        status = EX_FAILED;
    }
    if (ex_check_checksum(&o->run, hash, !o->run.verify ? 0 :
                          mg_serial_checksum(o->n, o->levels, (int) ex_turns_total(&o->run.t)))
        != EX_OK)
        status = EX_FAILED;
    return status;
}

int main(int argc, char **argv)
{
    struct mg_options o;
    struct mg_state s = { 0 }, all = { 0 };
    int rank, size, status, dims[3] = { 0, 0, 0 }, periods[3] = { 0, 0, 0 }, coords[3];
    double spent[EX_MAX_MODES] = { 0 };
    MPI_Comm cart;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ex_setup("multigrid", rank);
    status = mg_parse(argc, argv, &o);
    if (status == EX_RUN) {
        MPI_Dims_create(size, 3, dims);
        for (int d = 0; d < 3 && status == EX_RUN; d++)
            if (dims[d] > o.n >> (o.levels - 1)) {
                ex_error("%d processes make a %dx%dx%d grid, too many for %d cells per side on "
                         "the coarsest level (try fewer levels, -l)", size, dims[0], dims[1],
                         dims[2], o.n >> (o.levels - 1));
                status = EX_USAGE;
            }
    }
    if (status != EX_RUN) {
        MPI_Finalize();
        return status;
    }

    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 3, coords);
    s.c.comm = cart;
    for (int d = 0; d < 3; d++)
        MPI_Cart_shift(cart, d, 1, &s.c.lo[d], &s.c.hi[d]);
    mg_levels_alloc(&s, o.n, o.levels, dims, coords);
    mg_init(&s.lv[0]);

    if (ex_run_turns(cart, &o.run.t, mg_step, &s, o.run.times, spent) != 0)
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    if (rank == 0)
        mg_serial_setup(&all, o.n, 1);
    mg_gather(&s, &all);
    if (rank == 0) {
        all.nlevels = 1;
        status = mg_report(&o, dims, &all, spent);
        mg_levels_free(&all);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, cart);

    mg_levels_free(&s);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return status;
}
