/*
 * autoopt-bench-coll: OSU-style latency of one collective, for MPI's own algorithm and for
 * every algorithm of autoopt's repository.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   autoopt-bench-coll [options] <collective>          driver: one mpiexec per algorithm
 *   mpiexec -n N autoopt-bench-coll --single [options] <collective>
 *                                                      one table for MPI_<Collective> as it is
 *
 * The driver runs `mpiexec -n N <itself> --single ...` once for native and once for every
 * algorithm registered in collectives/coll_algorithms.def (each tuner value of a parameter is
 * its own run), with libautoopt.so preloaded and AUTOOPT_<COLL>=<algorithm>, and prints each
 * table and then the best algorithm per size with its ratio to native.  --repeat R runs the
 * whole list R times, interleaved, and keeps for every algorithm and size the repetition with
 * the lowest average (a burst of foreign load then spoils one repetition, not the result).
 * Native runs through autoopt too (AUTOOPT_<COLL>=native), so every mode pays the same
 * interception cost.  --tuning FILE adds one more run, "tuned" (AUTOOPT_TUNING=FILE, nothing
 * forced), interleaved with the others, and a table of tuned / native and tuned / best: the
 * verification of a file autoopt-tune wrote (docs/tuning.md).  Launches of one mode differ by
 * more than the 3 % a rule may cost (ranks land on the cores differently), so the tuned run
 * also times PMPI_<Collective>, MPI's own, in turns with its calls (--same-launch: 10 turns of
 * each per size, the same number of calls in all), and the last table gives that ratio too:
 * each launch's median of the ratios of its neighbouring turns (a tuned turn over the PMPI turn
 * beside it: a burst of foreign load spoils one pair, not the launch's figure), the median
 * over repetitions.
 * Waiting policy: with more ranks than online CPUs every run (native included) also preloads
 * the yield-when-idle library (tools/yield); --no-yield or --yield force the choice.
 * Platform: shared memory by default; --netcluster PROG runs every job on the emulated
 * 100 Mbit/s cluster instead (`PROG run -n N --ppn P --yield on|off --preload LIB --env ... --`,
 * --ppn P ranks per emulated host, default 1, tools/netcluster), with the same waiting policy
 * in every run.
 *
 * Sizes are bytes per message as a tuning file's rules count them (aot_tools_call_bytes,
 * tools/lib/aot_tools.h: the vector for allreduce, reduce and bcast, one rank's block for
 * allgather(v) and alltoall), and the calls are the tuner's (aot_tools_call_count: MPI_FLOAT with
 * MPI_SUM for the reductions, so they start at 4 B, MPI_CHAR otherwise, equal counts for the
 * v-variants).  Alltoallv's size is its (equal) block, the mean block its rules are decided by;
 * barrier has one line.  Timing as in the OSU micro-benchmarks: each iteration times one call and
 * is followed by an untimed PMPI_Barrier, so that calls that do not synchronise (a broadcast's
 * root, a reduce's leaves) cannot overlap the next iteration; avg/min/max are over the ranks' mean
 * latencies.  Each size: a warm-up, then as many iterations as fit in --time-per-size seconds
 * (10 .. 10000, decided on rank 0 from the warm-up).  --back-to-back times the other way the tuner
 * does (docs/tuning.md): the iterations in 10 turns of at least 256 calls (aot_tools_b2b_calls:
 * fewer where they would last more than 10 ms), each turn's calls in a row after one untimed
 * barrier and timed together, as a program calls in a loop (a call may then overlap the next one,
 * and gain or lose by it); with --same-launch its turns and turns of PMPI_<Collective> go in ABBA
 * order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aot_config.h"
#include "aot_tools.h"
#include "aot_tuner_core.h"
#include "bench_coll_algs.h"   /* generated from the registry: AOT_BENCH_ALGS */

#define MAX_SIZES 32

struct opts {
    const char *coll;
    int single, np, yield, repeat;  /* yield: -1 automatic, 0 off, 1 on */
    long min_size, max_size;
    double time_per_size;
    const char *lib, *yield_lib, *mpiexec, *algs;
    const char *netcluster;         /* autoopt-netcluster: run on the emulated cluster */
    int ppn;                        /* ranks per emulated host (--ppn) */
    const char *tuning;             /* --tuning FILE: one more run, "tuned", with this file */
    int cyclic;                     /* --cyclic S: measure on world's ranks dealt over S blocks */
    int same_launch;                /* --same-launch (worker): MPI's own in turns beside it */
    int b2b;                        /* --back-to-back: calls in a row, as a program's loop */
};

#define MAX_REPEAT 64

struct table {
    int n;
    long size[MAX_SIZES];
    double avg[MAX_SIZES], min[MAX_SIZES], max[MAX_SIZES];
    int iters[MAX_SIZES];
    /* the tuned run only: MPI's own collective timed in the same launch (PMPI_*, turns
     * alternating with the tuned calls), and the ratio of each repetition */
    double same[MAX_SIZES];             /* < 0: not measured */
    int nratio[MAX_SIZES];
    double ratio[MAX_SIZES][MAX_REPEAT];
};

static const char *const colls[] = {"allreduce", "bcast", "reduce", "allgather", "allgatherv",
                                    "alltoall", "alltoallv", "barrier"};

static void usage(void)
{
    fprintf(stderr,
            "usage: autoopt-bench-coll [options] <collective>\n"
            "  collective: allreduce bcast reduce allgather allgatherv alltoall alltoallv barrier\n"
            "  --np N              ranks per run (driver; default 4)\n"
            "  --algs a,b,...      only these algorithms (default: native and all registered)\n"
            "  --min-size B        smallest message in bytes (default 1)\n"
            "  --max-size B        largest message in bytes (default 1048576)\n"
            "  --time-per-size S   seconds of timed iterations per size (default 0.2)\n"
            "  --repeat R          run the list R times, keep the best repetition (default 1)\n"
            "  --lib PATH          libautoopt.so to preload\n"
            "  --yield PATH        always preload this yield-when-idle library\n"
            "  --no-yield          never preload the yield-when-idle library\n"
            "  --mpiexec PATH      launcher (default " AOT_BENCH_MPIEXEC ")\n"
            "  --netcluster PROG   run on the emulated cluster: PROG is autoopt-netcluster\n"
            "                      (one rank per emulated host; needs root)\n"
            "  --ppn N             with --netcluster: N ranks per emulated host (default 1)\n"
            "  --tuning FILE       also run \"tuned\": autoopt with AUTOOPT_TUNING=FILE and no\n"
            "                      algorithm forced (a file autoopt-tune wrote), and compare it\n"
            "                      with native and the best algorithm at each size\n"
            "  --cyclic S          measure on a communicator that deals the world's ranks\n"
            "                      round-robin over S blocks of consecutive ranks (rank k is\n"
            "                      world rank (k mod S)*ceil(N/S) + k/S), as a cyclic placement\n"
            "                      over S switches numbers them (default: MPI_COMM_WORLD)\n"
            "  --single            measure MPI_<Collective> as it is (run under mpiexec)\n"
            "  --same-launch       with --single: time PMPI_<Collective> too, in turns with\n"
            "                      the calls as made (the tuned run's same-launch native)\n"
            "  --back-to-back      time 10 turns of at least 256 calls (or 10 ms) in a row,\n"
            "                      a barrier before each, as a program's loop calls (default:\n"
            "                      a barrier after each call, as OSU times); the tuner keeps a\n"
            "                      rule only if it wins both ways\n");
    exit(2);
}

/* ---------------------------------------------------------------- worker (--single) */

/* The collective named c (main checked the name). */
static enum aot_coll_kind kind_of(const char *c)
{
#define AOT_X(upper, lower) if (!strcmp(c, #lower)) return AOT_COLL_##upper;
    AOT_COLLECTIVES(AOT_X)
#undef AOT_X
    return AOT_COLL_BARRIER;
}

/* The communicator measured: MPI_COMM_WORLD, or with --cyclic S its ranks dealt round-robin
 * over S blocks of consecutive world ranks (rank k of it is world rank (k mod S)·⌈p/S⌉ + k/S),
 * the order a launcher's cyclic placement gives when the blocks are switches. */
static MPI_Comm bench_comm = MPI_COMM_WORLD;

/* One call of the collective: through MPI_* (autoopt, when preloaded), or with pmpi set
 * straight to MPI's own (PMPI_*). */
static void run_once(const char *c, void *sbuf, void *rbuf, int count, int p, int *counts,
                     int *displs, int pmpi)
{
    if (!strcmp(c, "allreduce"))
        (pmpi ? PMPI_Allreduce : MPI_Allreduce)(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM,
                                                bench_comm);
    else if (!strcmp(c, "reduce"))
        (pmpi ? PMPI_Reduce : MPI_Reduce)(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM, 0, bench_comm);
    else if (!strcmp(c, "bcast"))
        (pmpi ? PMPI_Bcast : MPI_Bcast)(sbuf, count, MPI_CHAR, 0, bench_comm);
    else if (!strcmp(c, "allgather"))
        (pmpi ? PMPI_Allgather : MPI_Allgather)(sbuf, count, MPI_CHAR, rbuf, count, MPI_CHAR,
                                                bench_comm);
    else if (!strcmp(c, "allgatherv"))
        (pmpi ? PMPI_Allgatherv : MPI_Allgatherv)(sbuf, count, MPI_CHAR, rbuf, counts, displs,
                                                  MPI_CHAR, bench_comm);
    else if (!strcmp(c, "alltoall"))
        (pmpi ? PMPI_Alltoall : MPI_Alltoall)(sbuf, count, MPI_CHAR, rbuf, count, MPI_CHAR,
                                              bench_comm);
    else if (!strcmp(c, "alltoallv"))
        (pmpi ? PMPI_Alltoallv : MPI_Alltoallv)(sbuf, counts, displs, MPI_CHAR, rbuf, counts,
                                                displs, MPI_CHAR, bench_comm);
    else
        (pmpi ? PMPI_Barrier : MPI_Barrier)(bench_comm);
    (void) p;
}

#define SAME_TURNS 10   /* --same-launch: turns of each kind per size */

static int worker(const struct opts *o)
{
    int p, rank;
    const enum aot_coll_kind kind = kind_of(o->coll);
    const int esize = aot_tools_call_type_size(kind);
    long maxb = o->max_size < esize ? esize : o->max_size;
    char *sbuf, *rbuf;
    int *counts, *displs;
    const char *alg = getenv("AOT_BENCH_LABEL");

    MPI_Init(NULL, NULL);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (o->cyclic > 1) {
        int blk = (p + o->cyclic - 1) / o->cyclic;
        MPI_Comm_split(MPI_COMM_WORLD, 0, (rank % blk) * o->cyclic + rank / blk, &bench_comm);
        MPI_Comm_rank(bench_comm, &rank);
    }
    sbuf = malloc((size_t) maxb * (size_t) p + 64);
    rbuf = malloc((size_t) maxb * (size_t) p + 64);
    counts = malloc((size_t) p * sizeof(int));
    displs = malloc((size_t) p * sizeof(int));
    if (!sbuf || !rbuf || !counts || !displs) {
        fprintf(stderr, "autoopt-bench-coll: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, 1, (size_t) maxb * (size_t) p + 64);
    memset(rbuf, 0, (size_t) maxb * (size_t) p + 64);
    if (rank == 0) {
        printf("# autoopt-bench-coll %s: %s, %d ranks", o->coll, alg ? alg : "as is", p);
        if (o->b2b)
            printf(", back to back");
        if (o->cyclic > 1)
            printf(", dealt round-robin over %d blocks (--cyclic)", o->cyclic);
        printf("\n");
        printf("# %-10s %16s %16s %16s %10s%s\n", "Size", "Avg Latency(us)", "Min Latency(us)",
               "Max Latency(us)", "Iterations",
               o->same_launch ? "   PMPI Avg(us)  Paired ratio" : "");
    }
    for (long bytes = o->min_size; bytes <= o->max_size; bytes = bytes ? bytes * 2 : 1) {
        long b = bytes;
        int count, iters = 10, run_min = 1;
        double t0, mine, avg, mn, mx, same_avg = 0, paired = 0;
        if (kind == AOT_COLL_BARRIER)
            b = 0;
        else if (b < esize)
            continue;
        count = aot_tools_call_count(kind, (uint64_t) b);
        for (int i = 0; i < p; i++) {
            counts[i] = count;
            displs[i] = i * count;
        }
        /* warm-up, and the number of iterations from its duration (barriers included) */
        PMPI_Barrier(bench_comm);
        t0 = MPI_Wtime();
        for (int i = 0; i < 5; i++) {
            run_once(o->coll, sbuf, rbuf, count, p, counts, displs, 0);
            PMPI_Barrier(bench_comm);
        }
        mine = (MPI_Wtime() - t0) / 5;
        if (rank == 0) {
            double n = mine > 0 ? o->time_per_size / mine : 10000;
            iters = n < 10 ? 10 : n > 10000 ? 10000 : (int) n;
            /* --back-to-back: as many calls in a row as the tuner's back-to-back way */
            run_min = aot_tools_b2b_calls(mine, 1);
        }
        {
            int both[2] = {iters, run_min};
            PMPI_Bcast(both, 2, MPI_INT, 0, bench_comm);
            iters = both[0];
            run_min = both[1];
        }
        PMPI_Barrier(bench_comm);
        mine = 0;
        if (!o->same_launch && !o->b2b) {
            for (int i = 0; i < iters; i++) {
                t0 = MPI_Wtime();
                run_once(o->coll, sbuf, rbuf, count, p, counts, displs, 0);
                mine += MPI_Wtime() - t0;
                PMPI_Barrier(bench_comm);
            }
            mine = mine * 1e6 / iters;
        } else {
            /* turns of per calls; with --same-launch, MPI's own collective (PMPI_*) and the
             * call as the program makes it take turns, iters calls of each in all, in the
             * order PMPI, call, call, PMPI (ABBA): a drift over the size's turns then weighs
             * on both alike, where strict alternation ran the call half a turn later.  Where
             * both are the same algorithm (a rule naming native) on the emulated cluster, the
             * call's median ratio was 1.0095 with alternation and 1.0070 with ABBA: order is
             * not all of that bias (docs/tuning.md, "Goal 4 on the emulated cluster"). */
            const int kinds = o->same_launch ? 2 : 1;
            int per = iters / SAME_TURNS > 0 ? iters / SAME_TURNS : 1;
            double nat = 0, nat_avg, turn_s[2 * SAME_TURNS], all_s[2 * SAME_TURNS];
            if (o->b2b && per < run_min)
                per = run_min;
            for (int turn = 0; turn < kinds * SAME_TURNS; turn++) {
                const int pmpi = o->same_launch && (turn % 4 == 0 || turn % 4 == 3);
                double spent = 0;
                if (o->b2b) {
                    PMPI_Barrier(bench_comm);
                    t0 = MPI_Wtime();
                    for (int i = 0; i < per; i++)
                        run_once(o->coll, sbuf, rbuf, count, p, counts, displs, pmpi);
                    spent = MPI_Wtime() - t0;
                } else {
                    for (int i = 0; i < per; i++) {
                        t0 = MPI_Wtime();
                        run_once(o->coll, sbuf, rbuf, count, p, counts, displs, pmpi);
                        spent += MPI_Wtime() - t0;
                        PMPI_Barrier(bench_comm);
                    }
                }
                if (pmpi)
                    nat += spent;
                else
                    mine += spent;
                turn_s[turn] = spent;
            }
            iters = per * SAME_TURNS;
            mine = mine * 1e6 / iters;
            nat = nat * 1e6 / iters;
            PMPI_Reduce(&nat, &nat_avg, 1, MPI_DOUBLE, MPI_SUM, 0, bench_comm);
            same_avg = nat_avg / p;
            if (o->same_launch) {
                /* each call turn over the PMPI turn next to it (ABBA: turns 4j and 4j+1,
                 * 4j+3 and 4j+2), the ranks' summed times; the median of the pairs' ratios:
                 * a burst of foreign load spoils one pair, where in the ratio of the sums
                 * the spoiled turn decides (aot_tune_paired_ratio) */
                double a[SAME_TURNS], bn[SAME_TURNS], r[SAME_TURNS];
                struct aot_tune_est e;
                int np = 0;
                PMPI_Reduce(turn_s, all_s, 2 * SAME_TURNS, MPI_DOUBLE, MPI_SUM, 0, bench_comm);
                for (int t = 0; t < 2 * SAME_TURNS && np < SAME_TURNS; t++)
                    if (t % 4 == 1 || t % 4 == 2) {
                        a[np] = all_s[t];
                        bn[np++] = all_s[t % 4 == 1 ? t - 1 : t + 1];
                    }
                if (rank == 0 && aot_tune_paired_ratio(a, bn, np, r, &e) > 0)
                    paired = e.median;
            }
        }
        PMPI_Reduce(&mine, &avg, 1, MPI_DOUBLE, MPI_SUM, 0, bench_comm);
        PMPI_Reduce(&mine, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, bench_comm);
        PMPI_Reduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, bench_comm);
        if (rank == 0) {
            printf("%-12ld %16.2f %16.2f %16.2f %10d", b, avg / p, mn, mx, iters);
            if (o->same_launch)
                printf(" %16.2f %13.4f", same_avg, paired);
            printf("\n");
            fflush(stdout);
        }
        if (b == 0)
            break;
    }
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
    if (bench_comm != MPI_COMM_WORLD)
        MPI_Comm_free(&bench_comm);
    MPI_Finalize();
    return 0;
}

/* ---------------------------------------------------------------- driver */

static int parse_table(const char *out, struct table *t)
{
    const char *line = out;
    t->n = 0;
    while (line && *line) {
        long size;
        double a, mn, mx;
        int it;
        double same, paired = 0;
        int got = *line == '#' ? 0
                  : sscanf(line, "%ld %lf %lf %lf %d %lf %lf", &size, &a, &mn, &mx, &it, &same,
                           &paired);
        if (got >= 5 && t->n < MAX_SIZES) {
            t->size[t->n] = size;
            t->avg[t->n] = a;
            t->min[t->n] = mn;
            t->max[t->n] = mx;
            t->iters[t->n] = it;
            t->same[t->n] = got >= 6 ? same : -1;
            /* the launch's ratio: the median of its paired turns (a worker before them: the
             * ratio of the sums) */
            t->nratio[t->n] = got >= 6 && same > 0;
            t->ratio[t->n][0] = got == 7 && paired > 0 ? paired
                                : got >= 6 && same > 0 ? a / same : 0;
            t->n++;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return t->n;
}

/* Runs one algorithm; returns its output (malloc'ed) or NULL. */
static char *run_alg(const struct opts *o, const char *spec, int use_yield)
{
    char self[PATH_MAX], np[16], minb[32], maxb[32], tps[32], preload[2 * PATH_MAX + 2];
    char var[64], *out = NULL;
    size_t len = 0, cap = 0;
    int fds[2], status;
    ssize_t n;
    pid_t pid;

    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n < 0)
        return NULL;
    self[n] = '\0';
    snprintf(np, sizeof(np), "%d", o->np);
    snprintf(minb, sizeof(minb), "%ld", o->min_size);
    snprintf(maxb, sizeof(maxb), "%ld", o->max_size);
    snprintf(tps, sizeof(tps), "%g", o->time_per_size);
    snprintf(preload, sizeof(preload), "%s%s%s", o->lib, use_yield ? ":" : "",
             use_yield ? o->yield_lib : "");
    snprintf(var, sizeof(var), "AUTOOPT_%s", o->coll);
    for (char *c = var; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char) (*c - 'a' + 'A');
    if (pipe(fds) != 0)
        return NULL;
    pid = fork();
    if (pid < 0)
        return NULL;
    if (pid == 0) {
        char cyc[16];
        const int tuned = !strcmp(spec, "tuned");
        char *argv[20] = {(char *) o->mpiexec, "-n", np, self, "--single", "--min-size", minb,
                          "--max-size", maxb, "--time-per-size", tps, "--cyclic", cyc};
        int na = 13;
        if (tuned)
            argv[na++] = "--same-launch";
        if (o->b2b)
            argv[na++] = "--back-to-back";
        argv[na++] = (char *) o->coll;
        argv[na] = NULL;
        snprintf(cyc, sizeof(cyc), "%d", o->cyclic > 1 ? o->cyclic : 1);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (o->netcluster) {
            /* the emulated cluster: its own launcher, the same libraries passed explicitly
             * (--yield-lib only with --yield on: netcluster requires the file to exist) */
            char setvar[PATH_MAX + 32], setlabel[128], ppn[16];
            char *ncargv[40];
            int k = 0;
            if (!strcmp(spec, "tuned"))
                snprintf(setvar, sizeof(setvar), "AUTOOPT_TUNING=%s", o->tuning);
            else
                snprintf(setvar, sizeof(setvar), "%s=%s", var, spec);
            snprintf(setlabel, sizeof(setlabel), "AOT_BENCH_LABEL=%s", spec);
            ncargv[k++] = (char *) o->netcluster;
            ncargv[k++] = "run";
            ncargv[k++] = "-n";
            ncargv[k++] = np;
            ncargv[k++] = "-q";
            snprintf(ppn, sizeof(ppn), "%d", o->ppn);
            ncargv[k++] = "--ppn";
            ncargv[k++] = ppn;
            ncargv[k++] = "--yield";
            ncargv[k++] = use_yield ? "on" : "off";
            if (use_yield) {
                ncargv[k++] = "--yield-lib";
                ncargv[k++] = (char *) o->yield_lib;
            }
            ncargv[k++] = "--preload";
            ncargv[k++] = (char *) o->lib;
            ncargv[k++] = "--env";
            ncargv[k++] = setvar;
            ncargv[k++] = "--env";
            ncargv[k++] = setlabel;
            ncargv[k++] = "--";
            for (int a = 0; argv[a]; a++)
                if (a >= 3)           /* the worker's command line after "mpiexec -n N" */
                    ncargv[k++] = argv[a];
            ncargv[k] = NULL;
            execvp(o->netcluster, ncargv);
            perror(o->netcluster);
            _exit(127);
        }
        setenv("LD_PRELOAD", preload, 1);
        setenv("AUTOOPT_TUNE", "off", 1);   /* each spec alone, no online tuning beside it */
        if (!strcmp(spec, "tuned"))
            setenv("AUTOOPT_TUNING", o->tuning, 1);
        else
            setenv(var, spec, 1);
        setenv("AOT_BENCH_LABEL", spec, 1);
        execvp(o->mpiexec, argv);
        perror(o->mpiexec);
        _exit(127);
    }
    close(fds[1]);
    for (;;) {
        if (len + 4096 > cap) {
            char *nb = realloc(out, cap = cap ? 2 * cap : 65536);
            if (!nb)
                break;
            out = nb;
        }
        n = read(fds[0], out + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t) n;
    }
    close(fds[0]);
    waitpid(pid, &status, 0);
    if (out)
        out[len] = '\0';
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "autoopt-bench-coll: %s=%s: the run failed\n", var, spec);
        free(out);
        return NULL;
    }
    return out;
}

static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t) (end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* Keeps, size by size, the repetition with the lowest average. */
static void merge_table(struct table *best, const struct table *t)
{
    if (best->n == 0) {
        *best = *t;
        return;
    }
    for (int s = 0; s < best->n && s < t->n; s++) {
        if (t->avg[s] < best->avg[s]) {
            best->avg[s] = t->avg[s];
            best->min[s] = t->min[s];
            best->max[s] = t->max[s];
            best->iters[s] = t->iters[s];
            best->same[s] = t->same[s];
        }
        /* the same-launch ratios of every repetition (their median is reported) */
        if (t->nratio[s] && best->nratio[s] < MAX_REPEAT)
            best->ratio[s][best->nratio[s]++] = t->ratio[s][0];
    }
}

/* The median of the same-launch ratios of size s (aot_tune_estimate sorts them); 0 when there
 * is none. */
static double same_ratio(struct table *t, int s)
{
    struct aot_tune_est e;

    if (t->nratio[s] == 0)
        return 0;
    aot_tune_estimate(t->ratio[s], t->nratio[s], &e);
    return e.median;
}

static int driver(const struct opts *o)
{
    static const struct { const char *coll, *spec; } algs[] = {AOT_BENCH_ALGS};
    const size_t nalgs = sizeof(algs) / sizeof(algs[0]);
    struct table *tables = calloc(nalgs + 1, sizeof(*tables));
    const char **names = calloc(nalgs + 1, sizeof(*names));
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int use_yield = o->yield >= 0 ? o->yield : o->np > ncpu;
    int nt = 0, native = -1, tuned = -1, tables_ok = 1;
    char platform[128], timing[96];

    if (!tables || !names)
        return 1;
    if (o->netcluster)
        snprintf(platform, sizeof(platform), "emulated 100 Mbit/s cluster, %d rank%s per host "
                 "(autoopt-netcluster)", o->ppn, o->ppn == 1 ? "" : "s");
    else
        snprintf(platform, sizeof(platform), "one node, shared memory");
    snprintf(timing, sizeof(timing), "back to back (10 turns of >= %d calls in a row, or %g ms, "
             "a barrier between turns)", AOT_TOOLS_B2B_CALLS, AOT_TOOLS_B2B_MAX_S * 1e3);
    printf("# autoopt-bench-coll %s on %d ranks; platform: %s; waiting policy: %s; "
           "libautoopt: %s; best of %d repetition(s); timing: %s\n", o->coll, o->np, platform,
           use_yield ? "yield-when-idle (tools/yield) in every run" :
           "MPICH's default busy polling in every run", o->lib, o->repeat,
           o->b2b ? timing : "barrier-separated (OSU)");
    for (size_t i = 0; i < nalgs; i++)
        if (!strcmp(algs[i].coll, o->coll) && (!o->algs || listed(o->algs, algs[i].spec))) {
            if (!strcmp(algs[i].spec, "native"))
                native = nt;
            names[nt++] = algs[i].spec;
        }
    if (o->tuning) {
        tuned = nt;
        names[nt++] = "tuned";
    }
    for (int r = 0; r < o->repeat; r++)
        for (int a = 0; a < nt; a++) {
            struct table t;
            char *out = run_alg(o, names[a], use_yield);
            if (out && parse_table(out, &t) > 0)
                merge_table(&tables[a], &t);
            free(out);
        }
    for (int a = 0; a < nt; a++) {
        printf("\n# autoopt-bench-coll %s: %s, %d ranks\n", o->coll, names[a], o->np);
        printf("# %-10s %16s %16s %16s %10s%s\n", "Size", "Avg Latency(us)", "Min Latency(us)",
               "Max Latency(us)", "Iterations", a == tuned ? "   PMPI Avg(us)" : "");
        for (int s = 0; s < tables[a].n; s++) {
            printf("%-12ld %16.2f %16.2f %16.2f %10d", tables[a].size[s], tables[a].avg[s],
                   tables[a].min[s], tables[a].max[s], tables[a].iters[s]);
            if (a == tuned && tables[a].same[s] >= 0)
                printf(" %16.2f", tables[a].same[s]);
            printf("\n");
        }
    }
    fflush(stdout);
    for (int a = 0; a < nt; a++)
        tables_ok &= tables[a].n > 0;
    if (nt > 0 && tables[0].n > 0) {
        printf("\n# %s on %d ranks: best algorithm per size (ratio = native avg / best avg)\n",
               o->coll, o->np);
        printf("# %-10s %12s  %-28s %12s %8s\n", "Size", "native(us)", "best", "best(us)",
               "ratio");
        for (int s = 0; s < tables[0].n; s++) {
            int best = -1;
            for (int a = 0; a < nt; a++)
                if (a != tuned && s < tables[a].n
                    && (best < 0 || tables[a].avg[s] < tables[best].avg[s]))
                    best = a;
            if (best < 0)
                continue;
            if (native >= 0 && s < tables[native].n)
                printf("%-12ld %12.2f  %-28s %12.2f %8.2f\n", tables[best].size[s],
                       tables[native].avg[s], names[best], tables[best].avg[s],
                       tables[native].avg[s] / tables[best].avg[s]);
            else
                printf("%-12ld %12s  %-28s %12.2f %8s\n", tables[best].size[s], "-", names[best],
                       tables[best].avg[s], "-");
        }
    }
    if (tuned >= 0 && native >= 0 && tables[tuned].n > 0) {
        /* the tuned run against native and against the best single algorithm (the oracle) */
        int n = 0, within = 0, nsame = 0, within_same = 0;
        double pen = 0;
        printf("\n# %s on %d ranks, tuned with %s: tuned/native and tuned/best (the fastest "
               "algorithm of this run at that size)\n", o->coll, o->np, o->tuning);
        printf("# %-10s %12s %12s %12s %14s %12s %12s\n", "Size", "tuned(us)", "native(us)",
               "best(us)", "tuned/native", "tuned/best", "same launch");
        for (int s = 0; s < tables[tuned].n && s < tables[native].n; s++) {
            double b = tables[native].avg[s];
            for (int a = 0; a < nt; a++)
                if (a != tuned && s < tables[a].n && tables[a].avg[s] < b)
                    b = tables[a].avg[s];
            double t = tables[tuned].avg[s];
            double sr = same_ratio(&tables[tuned], s);
            printf("%-12ld %12.2f %12.2f %12.2f %14.3f %12.3f", tables[tuned].size[s], t,
                   tables[native].avg[s], b, t / tables[native].avg[s], t / b);
            if (sr > 0)
                printf(" %12.3f", sr);
            printf("\n");
            n++;
            nsame += sr > 0;
            within_same += sr > 0 && sr <= 1.03;
            within += t <= 1.10 * b;
            pen += t / b - 1;
        }
        if (n)
            printf("# tuned within 10 %% of the best at %d of %d sizes; mean penalty against "
                   "the best: %.1f %%\n", within, n, 100 * pen / n);
        if (nsame)
            printf("# same launch (tuned calls and PMPI_%s in turns, median over repetitions): "
                   "tuned <= 1.03 x native at %d of %d sizes (a launch's ratio: the median of "
                   "its paired turns'; tuned/native divides separate launches, which on a "
                   "shared machine differ by more than any rule: docs/tuning.md, \"Checking a "
                   "file\")\n", o->coll, within_same, nsame);
    }
    free(tables);
    free(names);
    return nt > 0 && tables_ok ? 0 : 1;
}

/* ---------------------------------------------------------------- options */

static int exists(const char *path) { return path && access(path, R_OK) == 0; }

/* A bad option value: one line that says what is wrong with it, exit status 2. */
__attribute__((noreturn, format(printf, 3, 4)))
static void bad_value(const char *opt, const char *v, const char *fmt, ...)
{
    char q[AOT_QUOTE_LEN], why[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    fprintf(stderr, "autoopt-bench-coll: %s %s: %s\n", opt, aot_quote_str(v, q, sizeof(q)), why);
    exit(2);
}

/* A whole number lo..hi, or bad_value. */
static long opt_long(const char *opt, const char *v, long lo, long hi)
{
    char *end;
    long x;

    errno = 0;
    x = strtol(v, &end, 10);
    if (end == v || *end || errno || v[0] == ' ' || x < lo || x > hi)
        bad_value(opt, v, "expected a whole number %ld..%ld", lo, hi);
    return x;
}

/* --algs: every name one of the collective's algorithms (as the registry spells them). */
static void check_algs(const char *coll, const char *list)
{
    static const struct { const char *coll, *spec; } algs[] = {AOT_BENCH_ALGS};
    char known[4096] = "";
    size_t k = 0;

    for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
        if (!strcmp(algs[i].coll, coll))
            k += (size_t) snprintf(known + k, k < sizeof(known) ? sizeof(known) - k : 0, "%s%s",
                                   k ? ", " : "", algs[i].spec);
    for (const char *p = list; p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t) (end - p) : strlen(p);
        int found = 0;
        for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]) && !found; i++)
            found = !strcmp(algs[i].coll, coll) && strlen(algs[i].spec) == len &&
                    !strncmp(algs[i].spec, p, len);
        if (!found) {
            char q[AOT_QUOTE_LEN];
            bad_value("--algs", list, "unknown algorithm '%s' for %s (known: %s)",
                      aot_quote(p, len, q, sizeof(q)), coll, known);
        }
        p = end ? end + 1 : NULL;
    }
}

/* --tuning FILE is read by the library as MPI_Init reads it (one rank, nothing measured,
 * --init-only) before any run: a bad file stops the benchmark with the library's one line. */
static void check_tuning(const struct opts *o)
{
    char self[PATH_MAX], out[4096], *line;
    int fds[2], status = 0;
    size_t len = 0;
    ssize_t n;
    pid_t pid;

    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    if (n <= 0 || pipe(fds) != 0 || (pid = fork()) < 0) {
        fprintf(stderr, "autoopt-bench-coll: --tuning: cannot start the check run\n");
        exit(1);
    }
    if (pid == 0) {
        char *argv[] = {(char *) o->mpiexec, "-n", "1", self, "--single", "--init-only",
                        (char *) o->coll, NULL};
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        close(fds[1]);
        setenv("LD_PRELOAD", o->lib, 1);
        setenv("AUTOOPT_TUNING", o->tuning, 1);
        execvp(o->mpiexec, argv);
        _exit(127);
    }
    close(fds[1]);
    while ((n = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0 || (n < 0 && errno == EINTR))
        len += n > 0 ? (size_t) n : 0;
    close(fds[0]);
    out[len] = '\0';
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return;
    line = strstr(out, "autoopt: ");
    if (line) {
        line[strcspn(line, "\n")] = '\0';
        fprintf(stderr, "autoopt-bench-coll: --tuning: %s\n", line + strlen("autoopt: "));
    } else {
        char q[AOT_QUOTE_LEN];
        fprintf(stderr, "autoopt-bench-coll: --tuning %s: the check run failed (%s -n 1)\n",
                aot_quote_str(o->tuning, q, sizeof(q)), o->mpiexec);
    }
    exit(1);
}

int main(int argc, char **argv)
{
    struct opts o = {NULL, 0, 4, -1, 1, 1, 1 << 20, 0.2, NULL, NULL, AOT_BENCH_MPIEXEC, NULL, NULL,
                     1, NULL, 0, 0, 0};
    char self[PATH_MAX];
    ssize_t n;
    int init_only = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = !strcmp(a, "--np") || !strcmp(a, "--algs") || !strcmp(a, "--min-size") ||
                    !strcmp(a, "--max-size") || !strcmp(a, "--repeat") ||
                    !strcmp(a, "--time-per-size") || !strcmp(a, "--lib") ||
                    !strcmp(a, "--yield") || !strcmp(a, "--mpiexec") ||
                    !strcmp(a, "--netcluster") || !strcmp(a, "--ppn") ||
                    !strcmp(a, "--tuning") || !strcmp(a, "--cyclic");
        if (takes && !v) {
            fprintf(stderr, "autoopt-bench-coll: %s needs a value\n", a);
            return 2;
        }
        if (takes)
            i++;
        if (!strcmp(a, "--single"))
            o.single = 1;
        else if (!strcmp(a, "--init-only"))
            init_only = 1;
        else if (!strcmp(a, "--no-yield"))
            o.yield = 0;
        else if (!strcmp(a, "--same-launch"))
            o.same_launch = 1;
        else if (!strcmp(a, "--back-to-back"))
            o.b2b = 1;
        else if (!strcmp(a, "--np"))
            o.np = (int) opt_long(a, v, 1, 1 << 20);
        else if (!strcmp(a, "--algs"))
            o.algs = v;
        else if (!strcmp(a, "--min-size"))
            o.min_size = opt_long(a, v, 0, 1L << 26);
        else if (!strcmp(a, "--max-size"))
            o.max_size = opt_long(a, v, 0, 1L << 26);
        else if (!strcmp(a, "--repeat"))
            o.repeat = (int) opt_long(a, v, 1, MAX_REPEAT);
        else if (!strcmp(a, "--time-per-size")) {
            char *end;
            o.time_per_size = strtod(v, &end);
            if (end == v || *end || !isfinite(o.time_per_size) || !(o.time_per_size > 0) ||
                o.time_per_size > 3600)
                bad_value(a, v, "expected a number of seconds above 0, at most 3600");
        } else if (!strcmp(a, "--lib"))
            o.lib = v;
        else if (!strcmp(a, "--yield")) {
            o.yield_lib = v;
            o.yield = 1;
        } else if (!strcmp(a, "--mpiexec"))
            o.mpiexec = v;
        else if (!strcmp(a, "--netcluster"))
            o.netcluster = v;
        else if (!strcmp(a, "--ppn"))
            o.ppn = (int) opt_long(a, v, 1, 1024);
        else if (!strcmp(a, "--tuning"))
            o.tuning = v;
        else if (!strcmp(a, "--cyclic"))
            o.cyclic = (int) opt_long(a, v, 0, 1 << 20);
        else if (a[0] != '-' && !o.coll)
            o.coll = a;
        else
            usage();
    }
    if (!o.coll)
        usage();
    if (o.max_size < o.min_size) {
        fprintf(stderr, "autoopt-bench-coll: --max-size %ld is below --min-size %ld\n",
                o.max_size, o.min_size);
        return 2;
    }
    {
        int known = 0;
        for (size_t i = 0; i < sizeof(colls) / sizeof(colls[0]); i++)
            known |= !strcmp(colls[i], o.coll);
        if (!known)
            bad_value("collective", o.coll, "expected one of allreduce, bcast, reduce, "
                      "allgather, allgatherv, alltoall, alltoallv, barrier");
    }
    if (o.algs)
        check_algs(o.coll, o.algs);
    if (init_only) {
        MPI_Init(NULL, NULL);
        MPI_Finalize();
        return 0;
    }
    if (o.single)
        return worker(&o);

    /* The libraries of this build tree when the program runs from it, else the installed ones. */
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    int in_build = !strncmp(self, AOT_BENCH_BUILD_DIR "/", strlen(AOT_BENCH_BUILD_DIR) + 1);
    if (!o.lib)
        o.lib = in_build ? AOT_BENCH_BUILD_LIB : AOT_BENCH_INSTALLED_LIB;
    if (!o.yield_lib)
        o.yield_lib = in_build ? AOT_BENCH_BUILD_YIELD : AOT_BENCH_INSTALLED_YIELD;
    if (!exists(o.lib)) {
        fprintf(stderr, "autoopt-bench-coll: %s: not found (use --lib)\n", o.lib);
        return 1;
    }
    if (o.yield != 0 && !exists(o.yield_lib)) {
        fprintf(stderr, "autoopt-bench-coll: %s: not found (use --yield or --no-yield)\n",
                o.yield_lib);
        return 1;
    }
    if (o.tuning)
        check_tuning(&o);
    return driver(&o);
}
