/*
 * sor: Red-Black SOR for the 2D Poisson equation on a P x Q process grid, after the solver
 * Natvig and Elster used to show transparent MPI optimization.  The same numerics run with
 * three border exchanges (-m sendrecv | isend | overlap, see sor_exchange.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Rank 0 prints one line, for example
 *   sor: n=256 grid=2x2 mode=sendrecv iters=100 avg_iter_us=123.4 residual=1.234567e-03 checksum=0x0123456789abcdef
 * where checksum is the 64-bit FNV-1a of the final n x n interior in global row-major order,
 * so it is the same for every mode, process grid and process count, and avg_iter_us is the
 * slowest rank's wall time per iteration (red phase + black phase, with their exchanges).
 *
 * With several modes (-m sendrecv,isend@pmpi) the modes take turns of -b iterations on the
 * same grid, each mode ITERS iterations in all, and a line per mode follows the result line:
 *   sor: turn mode=isend@pmpi iters=100 avg_iter_us=120.1
 * Every turn starts after a PMPI_Barrier and is timed alone; its slowest rank's time counts.
 * Each round of turns runs the modes in -m order, the next one in reverse (ex_turn_mode), so
 * that the run's drift (its first turns are the slowest) is not charged to the first mode.
 * The comparison is then made on the same ranks, cores and moment, which separate runs of
 * 4 ranks on 2 cores cannot give (their averages move 15-30 % from run to run).
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
#include "sor.h"

enum { SOR_MAX_MODES = 8 };

/* A mode of -m: an exchange variant, through MPI_* or (suffix @pmpi) through PMPI_*. */
struct sor_pick {
    const struct sor_mode *mode;
    const char *via;            /* "" or "@pmpi" */
};

struct sor_options {
    int n, iters;
    int P, Q;                   /* 0 x 0: let MPI_Dims_create choose */
    struct sor_pick modes[SOR_MAX_MODES];
    int nmodes;
    int turn;                   /* -b: iterations per turn when several modes alternate */
    int warmup;                 /* -W: untimed iterations through PMPI_* before the turns */
    double omega;
    int verify;                 /* -1: on when n <= 256 */
    int have_expected;
    uint64_t expected;
    const char *times;          /* -t FILE: rank 0's time of every iteration */
};

static void sor_usage(void)
{
    if (ex_rank != 0)
        return;
    printf("usage: sor [-n N] [-i ITERS] [-m MODE[,MODE...]] [-b TURN] [-W WARM] [-p PxQ]\n"
           "           [-w OMEGA] [-V] [-c HEX] [-t FILE] [-h]\n"
           "Red-Black SOR for the 2D Poisson equation on an N x N grid, P x Q processes.\n"
           "  -n N      interior grid size (default 256)\n"
           "  -i ITERS  iterations of each mode, each a red and a black phase (default 100)\n"
           "  -m MODE   border exchange (default sendrecv):\n");
    for (const struct sor_mode *m = sor_modes; m->name != NULL; m++)
        printf("              %-9s %s\n", m->name, m->summary);
    printf("            MODE@pmpi makes the same calls through PMPI_*, which tools that\n"
           "            intercept MPI_* (autoopt) do not see.  Several modes, comma-separated\n"
           "            (at most %d), take turns on the same grid and get a time each\n",
           SOR_MAX_MODES);
    printf("  -b TURN   iterations per turn with several modes (default 50)\n"
           EX_USAGE_WARMUP
           "  -p PxQ    process grid, P rows by Q columns, P*Q = number of processes\n"
           "            (default: MPI_Dims_create)\n"
           "  -w OMEGA  relaxation factor in (0, 2) (default 1.25; near the optimum\n"
           "            2/(1+sin(pi/(N+1))) the residual first rises, so few iterations fail)\n"
           "  -V        also run the SOR serially on rank 0 and compare bit for bit\n"
           "            (default: on when N <= 256)\n"
           "  -c HEX    fail unless the checksum equals HEX\n"
           "  -t FILE   write rank 0's wall time of every iteration to FILE, in microseconds,\n"
           "            one line each (start-up costs show in the first lines); with several\n"
           "            modes, a line per turn: the mode and its slowest rank's time per\n"
           "            iteration in that turn\n"
           "  -h        show this help\n"
           "Fails when the residual is not finite or not below the initial one.\n");
}

static int sor_parse_grid(const char *arg, int *P, int *Q)
{
    const char *second;
    char *end;
    long p, q;

    p = strtol(arg, &end, 10);
    if (end == arg || (*end != 'x' && *end != 'X'))
        goto bad;
    second = end + 1;
    q = strtol(second, &end, 10);
    if (end == second || *end != '\0' || p < 1 || q < 1 || p > 65536 || q > 65536)
        goto bad;
    *P = (int) p;
    *Q = (int) q;
    return 0;
bad:
    ex_error("option -p: '%s' is not a process grid PxQ such as 2x3", arg);
    return EX_USAGE;
}

/* -m LIST: modes separated by commas, each MODE or MODE@pmpi. */
static int sor_parse_modes(const char *arg, struct sor_options *o)
{
    const char *p = arg;

    o->nmodes = 0;
    for (;;) {
        size_t len = strcspn(p, ","), base = len;
        const struct sor_mode *table = sor_modes, *m;
        const char *via = "";

        if (len > 5 && strncmp(p + len - 5, "@pmpi", 5) == 0) {
            base = len - 5;
            table = sor_modes_pmpi;
            via = "@pmpi";
        }
        for (m = table; m->name != NULL; m++)
            if (strlen(m->name) == base && strncmp(m->name, p, base) == 0)
                break;
        if (m->name == NULL) {
            ex_error("option -m: unknown mode '%.*s' (sendrecv, isend or overlap, each "
                     "optionally with @pmpi)", (int) len, p);
            return EX_USAGE;
        }
        if (o->nmodes == SOR_MAX_MODES) {
            ex_error("option -m: more than %d modes in '%s'", SOR_MAX_MODES, arg);
            return EX_USAGE;
        }
        o->modes[o->nmodes++] = (struct sor_pick) { m, via };
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

/* Iterations in the turn that starts after @done iterations of each mode (the last may be
 * short). */
static int sor_turn_iters(const struct sor_options *o, int done)
{
    return o->iters - done < o->turn ? o->iters - done : o->turn;
}

/*
 * -t FILE.  One mode: one line per iteration, its wall time in microseconds (stamps).  Several:
 * one line per turn, "MODE US", the slowest rank's time per iteration in it, in the order the
 * turns ran (turns).
 */
static int sor_write_times(const char *path, const struct sor_options *o, const double *stamps,
                           const double *turns)
{
    FILE *f = fopen(path, "w");
    int bad;

    if (f == NULL) {
        fprintf(stderr, "sor: -t %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (int it = 0; o->nmodes == 1 && it < o->iters; it++)
        fprintf(f, "%.2f\n", (stamps[it + 1] - stamps[it]) * 1e6);
    for (int done = 0, i = 0; o->nmodes > 1 && done < o->iters; done += o->turn) {
        int n_it = sor_turn_iters(o, done);

        for (int j = 0; j < o->nmodes; j++, i++) {
            int k = ex_turn_mode(done / o->turn, j, o->nmodes);

            fprintf(f, "%s%s %.2f\n", o->modes[k].mode->name, o->modes[k].via,
                    turns[i] / n_it * 1e6);
        }
    }
    bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "sor: -t %s: write error\n", path);
        return -1;
    }
    return 0;
}

/* EX_RUN to go on, otherwise the exit status. */
static int sor_parse(int argc, char **argv, struct sor_options *o)
{
    int c;

    *o = (struct sor_options) {
        .n = 256, .iters = 100, .modes = { { &sor_modes[0], "" } }, .nmodes = 1, .turn = 50,
        .omega = 1.25, .verify = -1,
    };
    opterr = 0;
    while ((c = getopt(argc, argv, ":n:i:m:b:W:p:w:Vc:t:h")) != -1) {
        int rc = 0;

        switch (c) {
        case 'n':
            rc = ex_parse_int(c, optarg, 1, 1 << 15, &o->n);
            break;
        case 'i':
            rc = ex_parse_int(c, optarg, 1, INT_MAX, &o->iters);
            break;
        case 'm':
            rc = sor_parse_modes(optarg, o);
            break;
        case 'b':
            rc = ex_parse_int(c, optarg, 1, INT_MAX, &o->turn);
            break;
        case 'W':
            rc = ex_parse_int(c, optarg, 0, INT_MAX, &o->warmup);
            break;
        case 'p':
            rc = sor_parse_grid(optarg, &o->P, &o->Q);
            break;
        case 'w':
            rc = ex_parse_double(c, optarg, 0.0, 2.0, &o->omega);
            break;
        case 'V':
            o->verify = 1;
            break;
        case 'c':
            rc = ex_parse_hex64(c, optarg, &o->expected);
            o->have_expected = 1;
            break;
        case 't':
            o->times = optarg;
            break;
        case 'h':
            sor_usage();
            return EX_OK;
        default:
            return ex_bad_option(c, optopt);
        }
        if (rc != 0)
            return rc;
    }
    if (o->verify < 0)
        o->verify = o->n <= 256;
    if ((long long) o->iters * o->nmodes + o->warmup > INT_MAX) {
        ex_error("option -i: %d iterations of %d modes are too many", o->iters, o->nmodes);
        return EX_USAGE;
    }
    return ex_no_operands(argc, argv, optind);
}

/*
 * Collects every block's interior into the global grid on rank 0 (boundary already set).
 * Blocks arrive packed, in rank order, and rank 0 places them by their cartesian coordinates.
 */
static void sor_gather(struct sor_grid *g, MPI_Comm cart, const int dims[2],
                       struct sor_grid *all)
{
    int rank, size;
    int *counts = NULL, *displs = NULL;
    double *mine, *recv = NULL;

    MPI_Comm_rank(cart, &rank);
    MPI_Comm_size(cart, &size);
    mine = malloc((size_t) g->rows * g->cols * sizeof *mine);
    if (rank == 0) {
        counts = malloc((size_t) size * sizeof *counts);
        displs = malloc((size_t) size * sizeof *displs);
        recv = malloc((size_t) g->n * g->n * sizeof *recv);
    }
    if (mine == NULL || (rank == 0 && (counts == NULL || displs == NULL || recv == NULL))) {
        fprintf(stderr, "sor: rank %d: out of memory gathering the grid\n", rank);
        MPI_Abort(cart, EX_FAILED);
    }
    for (int i = 0; i < g->rows; i++)
        memcpy(&mine[(size_t) i * g->cols], &g->u[(size_t) (i + 1) * g->stride + 1],
               (size_t) g->cols * sizeof *mine);
    if (rank == 0) {
        for (int r = 0, off = 0; r < size; r++) {
            int coords[2], r0, c0, nr, nc;

            MPI_Cart_coords(cart, r, 2, coords);
            sor_block(g->n, dims[0], coords[0], &r0, &nr);
            sor_block(g->n, dims[1], coords[1], &c0, &nc);
            counts[r] = nr * nc;
            displs[r] = off;
            off += counts[r];
        }
    }
    MPI_Gatherv(mine, g->rows * g->cols, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, 0, cart);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            int coords[2], r0, c0, nr, nc;
            const double *block = &recv[displs[r]];

            MPI_Cart_coords(cart, r, 2, coords);
            sor_block(g->n, dims[0], coords[0], &r0, &nr);
            sor_block(g->n, dims[1], coords[1], &c0, &nc);
            for (int i = 0; i < nr; i++)
                memcpy(&all->u[(size_t) (r0 + 1 + i) * all->stride + c0 + 1],
                       &block[(size_t) i * nc], (size_t) nc * sizeof *block);
        }
    }
    free(mine);
    free(counts);
    free(displs);
    free(recv);
}

/* The same iterations, serially on the whole grid: the reference for -V. */
static uint64_t sor_serial_checksum(int n, int iters, double omega)
{
    struct sor_grid s;
    uint64_t hash;

    if (sor_grid_alloc(&s, n, n, n, 0, 0, omega) != 0) {
        fprintf(stderr, "sor: out of memory for the serial check\n");
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    sor_grid_init(&s);
    for (int it = 0; it < iters; it++) {
        sor_sweep(&s, SOR_RED, 1, n, 1, n);
        sor_sweep(&s, SOR_BLACK, 1, n, 1, n);
    }
    hash = sor_checksum(&s);
    sor_grid_free(&s);
    return hash;
}

/* Rank 0: checks the gathered result and prints the result lines; returns the exit status.
 * spent[k] is the slowest rank's time in mode k, in seconds. */
static int sor_report(const struct sor_options *o, const int dims[2], struct sor_grid *all,
                      double initial_residual, const double *spent)
{
    double residual = sor_residual(all);
    uint64_t hash = sor_checksum(all);
    int status = EX_OK;

    printf("sor: n=%d grid=%dx%d mode=", o->n, dims[0], dims[1]);
    for (int k = 0; k < o->nmodes; k++)
        printf("%s%s%s", k > 0 ? "," : "", o->modes[k].mode->name, o->modes[k].via);
    if (o->nmodes == 1)
        printf(" iters=%d avg_iter_us=%.1f", o->iters, spent[0] / o->iters * 1e6);
    else
        printf(" turn=%d iters=%d", o->turn, o->iters);
    printf(" residual=%.6e checksum=0x%016" PRIx64 "\n", residual, hash);
    for (int k = 0; o->nmodes > 1 && k < o->nmodes; k++)
        printf("sor: turn mode=%s%s iters=%d avg_iter_us=%.1f\n", o->modes[k].mode->name,
               o->modes[k].via, o->iters, spent[k] / o->iters * 1e6);
    fflush(stdout);
    if (!isfinite(residual) || !(residual < initial_residual)) {
        fprintf(stderr, "sor: FAILED: residual %.6e is not below the initial %.6e\n",
                residual, initial_residual);
        status = EX_FAILED;
    }
    if (o->verify) {
        uint64_t ref = sor_serial_checksum(o->n, o->iters * o->nmodes + o->warmup,
                                           o->omega);

        if (ref != hash) {
            fprintf(stderr, "sor: FAILED: checksum 0x%016" PRIx64 " differs from the serial "
                    "run's 0x%016" PRIx64 "\n", hash, ref);
            status = EX_FAILED;
        }
    }
    if (o->have_expected && o->expected != hash) {
        fprintf(stderr, "sor: FAILED: checksum 0x%016" PRIx64 " is not the expected 0x%016"
                PRIx64 "\n", hash, o->expected);
        status = EX_FAILED;
    }
    return status;
}

int main(int argc, char **argv)
{
    struct sor_options o;
    struct sor_grid g, all = { 0 };
    struct sor_halo h;
    int rank, size, dims[2], periods[2] = { 0, 0 }, coords[2], r0, c0, nr, nc, status;
    double initial_residual = 0.0, *stamps = NULL, *turns, *slowest = NULL;
    double spent[SOR_MAX_MODES] = { 0 };
    int nturns;
    MPI_Comm cart;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ex_setup("sor", rank);

    status = sor_parse(argc, argv, &o);
    if (status == EX_RUN) {
        dims[0] = o.P;
        dims[1] = o.Q;
        if (o.P == 0)
            MPI_Dims_create(size, 2, dims);
        if (dims[0] * dims[1] != size) {
            ex_error("option -p: grid %dx%d needs %d processes, not %d", dims[0], dims[1],
                     dims[0] * dims[1], size);
            status = EX_USAGE;
        } else if (o.n < dims[0] || o.n < dims[1]) {
            ex_error("option -n: %d is too small for the %dx%d process grid", o.n, dims[0],
                     dims[1]);
            status = EX_USAGE;
        }
    }
    if (status != EX_RUN) {
        MPI_Finalize();
        return status;
    }

    /* The block of this rank, its neighbours and its column buffers. */
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    sor_block(o.n, dims[0], coords[0], &r0, &nr);
    sor_block(o.n, dims[1], coords[1], &c0, &nc);
    h.comm = cart;
    MPI_Cart_shift(cart, 0, 1, &h.up, &h.down);
    MPI_Cart_shift(cart, 1, 1, &h.left, &h.right);
    h.send_left = malloc((size_t) nr * sizeof(double));
    h.send_right = malloc((size_t) nr * sizeof(double));
    h.recv_left = malloc((size_t) nr * sizeof(double));
    h.recv_right = malloc((size_t) nr * sizeof(double));
    if (sor_grid_alloc(&g, o.n, nr, nc, r0, c0, o.omega) != 0 || h.send_left == NULL ||
        h.send_right == NULL || h.recv_left == NULL || h.recv_right == NULL) {
        fprintf(stderr, "sor: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    /* The halos start with the values the neighbours start with: no first exchange needed. */
    sor_grid_init(&g);

    if (o.times != NULL && rank == 0 && o.nmodes == 1) {
        stamps = malloc(((size_t) o.iters + 1) * sizeof(double));
        if (stamps == NULL) {
            fprintf(stderr, "sor: out of memory for -t\n");
            MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
        }
    }
    if (o.nmodes == 1)
        o.turn = o.iters;
    nturns = (o.iters + o.turn - 1) / o.turn;
    turns = malloc((size_t) nturns * o.nmodes * sizeof *turns);
    if (rank == 0)
        slowest = malloc((size_t) nturns * o.nmodes * sizeof *slowest);
    if (turns == NULL || (rank == 0 && slowest == NULL)) {
        fprintf(stderr, "sor: rank %d: out of memory for the turn times\n", rank);
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    MPI_Barrier(cart);
    /* -W: plain MPI warms the ranks up (the first iterations of a run are its slowest, with
     * or without a tool) before any timed turn, so that none of the modes is charged for it. */
    if (o.warmup > 0) {
        const struct sor_mode *w = &sor_modes_pmpi[o.modes[0].mode - (o.modes[0].via[0] ?
                                                                   sor_modes_pmpi : sor_modes)];

        for (int it = 0; it < o.warmup; it++) {
            w->phase(&g, &h, SOR_RED);
            w->phase(&g, &h, SOR_BLACK);
        }
        PMPI_Barrier(cart);
    }
    /* One mode: a single turn of every iteration.  Several: turns of o.turn iterations, the
     * modes of each round in -m order and then reversed (ex_turn_mode); the barrier (invisible
     * to a tool, being PMPI) lets every turn start together, so no mode is charged for the
     * previous one's stragglers. */
    for (int done = 0, turn = 0; done < o.iters; done += o.turn, turn++) {
        int n_it = sor_turn_iters(&o, done);

        for (int j = 0; j < o.nmodes; j++) {
            int k = ex_turn_mode(turn, j, o.nmodes);
            sor_phase_fn phase = o.modes[k].mode->phase;
            double t0;

            if (o.nmodes > 1)
                PMPI_Barrier(cart);
            t0 = MPI_Wtime();
            for (int it = done; it < done + n_it; it++) {
                if (stamps != NULL)
                    stamps[it] = MPI_Wtime();
                phase(&g, &h, SOR_RED);
                phase(&g, &h, SOR_BLACK);
            }
            turns[turn * o.nmodes + j] = MPI_Wtime() - t0;   /* in the order they ran */
        }
    }
    if (stamps != NULL)
        stamps[o.iters] = MPI_Wtime();
    /* A turn lasts until its slowest rank is done. */
    MPI_Reduce(turns, slowest, nturns * o.nmodes, MPI_DOUBLE, MPI_MAX, 0, cart);
    if (o.times != NULL && rank == 0 && sor_write_times(o.times, &o, stamps, slowest) != 0)
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    free(stamps);
    for (int i = 0; rank == 0 && i < nturns * o.nmodes; i++)
        spent[ex_turn_mode(i / o.nmodes, i % o.nmodes, o.nmodes)] += slowest[i];
    free(turns);
    free(slowest);

    if (rank == 0) {
        if (sor_grid_alloc(&all, o.n, o.n, o.n, 0, 0, o.omega) != 0) {
            fprintf(stderr, "sor: out of memory for the global grid\n");
            MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
        }
        sor_grid_init(&all);
        initial_residual = sor_residual(&all);
    }
    sor_gather(&g, cart, dims, &all);
    if (rank == 0)
        status = sor_report(&o, dims, &all, initial_residual, spent);
    MPI_Bcast(&status, 1, MPI_INT, 0, cart);

    sor_grid_free(&all);
    sor_grid_free(&g);
    free(h.send_left);
    free(h.send_right);
    free(h.recv_left);
    free(h.recv_right);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return status;
}
