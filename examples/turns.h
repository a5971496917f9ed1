/*
 * Modes taking turns within one job, for the examples that run one computation with several
 * exchange variants (cg, multigrid): -m MODE[,MODE...] with the @pmpi suffix, turns of -b
 * iterations on the same data, each timed alone, -t FILE, and the options and checks of a
 * checksum (-V, -c) that go with them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Header-only, like common.h.  A mode is an index into the example's table of names plus a
 * flag for @pmpi: the example compiles its communication twice, once calling MPI_* and once
 * PMPI_*, which a tool that intercepts MPI_* (autoopt) does not see, so that the program under
 * the tool and plain MPI can take turns on the same ranks and cores (see sor.c, which does the
 * same with its own code).  With one mode the whole run is a single turn.
 */
#ifndef EXAMPLES_TURNS_H
#define EXAMPLES_TURNS_H

#include <mpi.h>

#include "common.h"

enum { EX_MAX_MODES = 8 };

struct ex_pick {
    int mode;                   /* index into the example's names */
    int pmpi;                   /* 1: through PMPI_* */
};

struct ex_turns {
    const char *const *names;   /* the example's modes, NULL-terminated */
    struct ex_pick picks[EX_MAX_MODES];
    int npicks;
    int iters;                  /* -i: iterations of every pick */
    int turn;                   /* -b: iterations per turn (set to iters with one pick) */
    int warmup;                 /* -W: untimed iterations of pick 0 through PMPI_* first */
};

/* The options every such example takes: -i -m -b -W -V -c -t. */
struct ex_run_options {
    struct ex_turns t;
    int verify;                 /* -V; -1 until decided */
    int have_expected;          /* -c HEX */
    uint64_t expected;
    const char *times;          /* -t FILE */
};

static inline int ex_parse_modes(const char *arg, struct ex_turns *t);

/* getopt()'s option c if it is one of -i -m -b -W -V -c -t: 0 (taken), EX_USAGE (bad value,
 * after a message) or EX_RUN (not one of them). */
static inline int ex_run_option(int c, const char *arg, struct ex_run_options *o)
{
    switch (c) {
    case 'i':
        return ex_parse_int(c, arg, 1, INT_MAX, &o->t.iters);
    case 'm':
        return ex_parse_modes(arg, &o->t);
    case 'b':
        return ex_parse_int(c, arg, 1, INT_MAX, &o->t.turn);
    case 'W':
        return ex_parse_int(c, arg, 0, INT_MAX, &o->t.warmup);
    case 'V':
        o->verify = 1;
        return 0;
    case 'c':
        o->have_expected = 1;
        return ex_parse_hex64(c, arg, &o->expected);
    case 't':
        o->times = arg;
        return 0;
    default:
        return EX_RUN;
    }
}

/* The usage lines of -V, -c, -t and -h; @what names the serial reference run. */
static inline void ex_usage_checks(const char *what, const char *verify_default)
{
    printf("  -V        also %s serially on rank 0 and compare bit for bit\n"
           "            (default: on when %s)\n"
           "  -c HEX    fail unless the checksum equals HEX\n"
           "  -t FILE   write rank 0's wall time of every iteration to FILE (µs, one a line);\n"
           "            with several modes a line per turn: the mode and its time per\n"
           "            iteration\n"
           "  -h        show this help\n", what, verify_default);
}

/* Rank 0: compares the checksum with the serial run's (@ref, when -V) and with -c's; returns
 * EX_OK or EX_FAILED after a message. */
static inline int ex_check_checksum(const struct ex_run_options *o, uint64_t hash,
                                    uint64_t ref)
{
    int status = EX_OK;

    if (o->verify && ref != hash) {
        fprintf(stderr, "%s: FAILED: checksum 0x%016" PRIx64 " differs from the serial run's "
                "0x%016" PRIx64 "\n", ex_prog, hash, ref);
        status = EX_FAILED;
    }
    if (o->have_expected && o->expected != hash) {
        fprintf(stderr, "%s: FAILED: checksum 0x%016" PRIx64 " is not the expected 0x%016"
                PRIx64 "\n", ex_prog, hash, o->expected);
        status = EX_FAILED;
    }
    return status;
}

/* -m LIST into t->picks; 0, or EX_USAGE after a message naming the mode. */
static inline int ex_parse_modes(const char *arg, struct ex_turns *t)
{
    const char *p = arg;

    t->npicks = 0;
    for (;;) {
        size_t len = strcspn(p, ","), base = len;
        int pmpi = 0, m;

        if (len > 5 && strncmp(p + len - 5, "@pmpi", 5) == 0) {
            base = len - 5;
            pmpi = 1;
        }
        for (m = 0; t->names[m] != NULL; m++)
            if (strlen(t->names[m]) == base && strncmp(t->names[m], p, base) == 0)
                break;
        if (t->names[m] == NULL) {
            ex_error("option -m: unknown mode '%.*s' (try -h)", (int) len, p);
            return EX_USAGE;
        }
        if (t->npicks == EX_MAX_MODES) {
            ex_error("option -m: more than %d modes in '%s'", EX_MAX_MODES, arg);
            return EX_USAGE;
        }
        t->picks[t->npicks++] = (struct ex_pick) { m, pmpi };
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

/* The usage lines of -m, -b and -W, after the example's own "-m MODE" line. */
static inline void ex_usage_modes(const char *const *names, const char *const *summaries)
{
    for (int m = 0; names[m] != NULL; m++)
        printf("              %-9s %s\n", names[m], summaries[m]);
    printf("            MODE@pmpi makes the same calls through PMPI_*, which tools that\n"
           "            intercept MPI_* (autoopt) do not see.  Several modes, comma-separated\n"
           "            (at most %d), take turns on the same data and get a time each\n"
           "  -b TURN   iterations per turn with several modes (default 50)\n"
           EX_USAGE_WARMUP, EX_MAX_MODES);
}

/* Iterations the computation makes in all: -i of every pick and the -W warm-up. */
static inline long long ex_turns_total(const struct ex_turns *t)
{
    return (long long) t->iters * t->npicks + t->warmup;
}

/* Checks -i against the number of picks; call after parsing. */
static inline int ex_turns_check(struct ex_turns *t)
{
    if (ex_turns_total(t) > INT_MAX) {
        ex_error("option -i: %d iterations of %d modes are too many", t->iters, t->npicks);
        return EX_USAGE;
    }
    if (t->npicks == 1)
        t->turn = t->iters;
    return EX_RUN;
}

/* "name" or "name@pmpi" of pick k. */
static inline void ex_print_pick(FILE *f, const struct ex_turns *t, int k)
{
    fprintf(f, "%s%s", t->names[t->picks[k].mode], t->picks[k].pmpi ? "@pmpi" : "");
}

/* Iterations in the turn that starts after @done iterations of each pick. */
static inline int ex_turn_iters(const struct ex_turns *t, int done)
{
    return t->iters - done < t->turn ? t->iters - done : t->turn;
}

/* One iteration of pick @pick (the caller's computation and exchange). */
typedef void (*ex_iter_fn)(void *ctx, const struct ex_pick *pick);

/*
 * Runs t->iters iterations of every pick, in turns of t->turn iterations, the picks of each
 * round in -m order and then reversed (ex_turn_mode).  With several picks every turn starts
 * after a PMPI_Barrier (invisible to a tool) and lasts until its slowest rank is done.  On
 * rank 0, spent[k] becomes the slowest rank's total time in pick k (seconds); with
 * @times_path, rank 0 writes every iteration's time (one pick, µs, one per line) or every
 * turn's "MODE US" in the order the turns ran (several).  Returns 0, or -1 when rank 0 could
 * not write the file (after a message).
 */
static inline int ex_run_turns(MPI_Comm comm, const struct ex_turns *t, ex_iter_fn fn,
                               void *ctx, const char *times_path, double *spent)
{
    int rank, nturns = (t->iters + t->turn - 1) / t->turn, ntimes = nturns * t->npicks, rc = 0;
    double *turns, *slowest = NULL, *stamps = NULL;

    MPI_Comm_rank(comm, &rank);
    turns = malloc((size_t) ntimes * sizeof *turns);
    if (rank == 0)
        slowest = malloc((size_t) ntimes * sizeof *slowest);
    if (rank == 0 && times_path != NULL && t->npicks == 1)
        stamps = malloc(((size_t) t->iters + 1) * sizeof *stamps);
    if (turns == NULL || (rank == 0 && (slowest == NULL ||
                                        (times_path != NULL && t->npicks == 1 && !stamps)))) {
        fprintf(stderr, "%s: rank %d: out of memory for the turn times\n", ex_prog, rank);
        MPI_Abort(comm, EX_FAILED);
    }
    MPI_Barrier(comm);
    /* -W: plain MPI warms the ranks up (a run's first iterations are its slowest, with or
     * without a tool) before any timed turn, so that none of the picks is charged for it. */
    if (t->warmup > 0) {
        struct ex_pick warm = { .mode = t->picks[0].mode, .pmpi = 1 };

        for (int it = 0; it < t->warmup; it++)
            fn(ctx, &warm);
        PMPI_Barrier(comm);
    }
    for (int done = 0, turn = 0; done < t->iters; done += t->turn, turn++) {
        int n_it = ex_turn_iters(t, done);

        for (int j = 0; j < t->npicks; j++) {
            int k = ex_turn_mode(turn, j, t->npicks);
            double t0;

            if (t->npicks > 1)
                PMPI_Barrier(comm);
            t0 = MPI_Wtime();
            for (int it = done; it < done + n_it; it++) {
                if (stamps != NULL)
                    stamps[it] = MPI_Wtime();
                fn(ctx, &t->picks[k]);
            }
            turns[turn * t->npicks + j] = MPI_Wtime() - t0;   /* in the order they ran */
        }
    }
    if (stamps != NULL)
        stamps[t->iters] = MPI_Wtime();
    MPI_Reduce(turns, slowest, ntimes, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0) {
        for (int k = 0; k < t->npicks; k++)
            spent[k] = 0.0;
        for (int i = 0; i < ntimes; i++)
            spent[ex_turn_mode(i / t->npicks, i % t->npicks, t->npicks)] += slowest[i];
    }
    if (rank == 0 && times_path != NULL) {
        FILE *f = fopen(times_path, "w");

        if (f == NULL) {
            fprintf(stderr, "%s: -t %s: %s\n", ex_prog, times_path, strerror(errno));
            rc = -1;
        } else {
            for (int it = 0; stamps != NULL && it < t->iters; it++)
                fprintf(f, "%.2f\n", (stamps[it + 1] - stamps[it]) * 1e6);
            for (int i = 0; t->npicks > 1 && i < ntimes; i++) {
                ex_print_pick(f, t, ex_turn_mode(i / t->npicks, i % t->npicks, t->npicks));
                fprintf(f, " %.2f\n", slowest[i] / ex_turn_iters(t, i / t->npicks * t->turn)
                        * 1e6);
            }
            if (ferror(f) | (fclose(f) != 0)) {
                fprintf(stderr, "%s: -t %s: write error\n", ex_prog, times_path);
                rc = -1;
            }
        }
    }
    free(turns);
    free(slowest);
    free(stamps);
    return rc;
}

/* The timing part of the result line: " mode=A,B iters=I avg_iter_us=U" (one pick) or
 * " mode=A,B turn=T iters=I" (several, whose times follow in ex_print_turn_lines). */
static inline void ex_print_timing(const struct ex_turns *t, const double *spent)
{
    printf(" mode=");
    for (int k = 0; k < t->npicks; k++) {
        if (k > 0)
            putchar(',');
        ex_print_pick(stdout, t, k);
    }
    if (t->npicks == 1)
        printf(" iters=%d avg_iter_us=%.1f", t->iters, spent[0] / t->iters * 1e6);
    else
        printf(" turn=%d iters=%d", t->turn, t->iters);
}

/* With several picks, after the result line: "PROG: turn mode=M iters=I avg_iter_us=U". */
static inline void ex_print_turn_lines(const struct ex_turns *t, const double *spent)
{
    for (int k = 0; t->npicks > 1 && k < t->npicks; k++) {
        printf("%s: turn mode=", ex_prog);
        ex_print_pick(stdout, t, k);
        printf(" iters=%d avg_iter_us=%.1f\n", t->iters, spent[k] / t->iters * 1e6);
    }
}

#endif /* EXAMPLES_TURNS_H */
