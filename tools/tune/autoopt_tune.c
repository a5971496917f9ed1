/*
 * autoopt-tune: measures every algorithm of autoopt's collective repository, MPI's own
 * included, on this machine, and writes the tuning file that autoopt then follows
 * (docs/tuning.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   mpiexec.mpich -n 8 autoopt-tune -o cluster.tune
 *   AUTOOPT_TUNING=cluster.tune LD_PRELOAD=libautoopt.so mpiexec.mpich -n 8 ./app
 *
 * One job measures everything: the algorithms are called directly (this program is linked
 * with the repository), natives through PMPI_<Collective>.  Every decision is taken from
 * times that all ranks share (each repetition's time is reduced over the ranks), so all
 * ranks walk the same search in the same order; rank 0 writes the files.
 *
 * The search, per collective and communicator size (the paper's steps 3 and 4, faster):
 *   1. grid points: the powers of two in --sizes, the even-numbered ones first;
 *   2. at each point, each algorithm with a parameter has its best value found by a
 *      golden-section search over the parameter's values on a log scale (aot_tune_gss);
 *   3. then every candidate that is not pruned (more than --prune times the best at both
 *      neighbouring even points; at an even point, at the two even points below it) is
 *      measured interleaved with the others, native included, each call followed by a
 *      barrier and k calls back to back, until every median's 95 % interval is within
 *      --tolerance or --max-reps is reached; from the third repetition on
 *      a candidate whose interval lies beyond --race times the leader's is dropped
 *      (aot_tune_race; native never is);
 *   4. a point's choice is an algorithm whose whole interval lies below native's both
 *      barrier-separated and back to back (aot_tune_choose), else native;
 *   5. where the choice changes between two grid points, a binary search on a log scale finds
 *      the crossover size to --resolution (aot_tune_bisect).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aot_config.h"
#include "aot_files.h"
#include "aot_tools.h"
#include "aot_tuner_core.h"
#include "aot_tuning_file.h"
#include "tune_export.h"

#define MAX_GRID 192
#define MAX_CANDS 48
#define MAX_COMMS 16
#define MAX_VALUES 64

/* ---------------------------------------------------------------- options */

struct opts {
    const char *out, *raw;
    const char *out_opt;    /* how the output was named: -o or --output */
    int colls[AOT_COLL_NKINDS], ncolls;
    uint64_t lo, hi;
    int comm_sizes[MAX_COMMS], ncomm;
    double budget, tolerance, prune, race, resolution, target_us;
    int min_reps, max_reps, resume, quiet, check_search;
    int host_shape;         /* --host-shape: qualify each block by the measured host shape */
    int map_steps;          /* --map: sizes per octave; 0 = the normal search */
    char cmdline[1024];
};

static struct opts o;
static int world_rank, world_size;
static double t_start;

static void usage(FILE *f)
{
    fprintf(f,
"NAME\n"
"    autoopt-tune - measure autoopt's collective algorithms on this machine and write a\n"
"    tuning file\n"
"\n"
"SYNOPSIS\n"
"    mpiexec.mpich -n N autoopt-tune [options] -o FILE\n"
"    autoopt-tune export [--mpich OUT.json] [--ompi OUT.conf] FILE\n"
"    autoopt-tune encode [--table] [-o OUT.tune --encoding NAME] RAW... (encode --help)\n"
"\n"
"DESCRIPTION\n"
"    Runs every algorithm of autoopt's repository and MPI's own collective at each message\n"
"    size, on the ranks it is started with, and writes a tuning file that names, for each\n"
"    collective, communicator size and message size, the fastest algorithm, or native where\n"
"    no algorithm is faster than MPI's own beyond the measuring error. Use the file with\n"
"    AUTOOPT_TUNING=FILE. The method is in docs/tuning.md. \"autoopt-tune export\" writes\n"
"    a file's rules in MPICH's and Open MPI's own formats, for programs that cannot\n"
"    preload autoopt (autoopt-tune export --help).\n"
"\n"
"OPTIONS\n"
"    -o, --output FILE    the tuning file to write (default autoopt.tune); written to a\n"
"                         temporary file and renamed into place when complete\n"
"    --coll LIST          collectives to tune, comma-separated (default: all eight:\n"
"                         allreduce,bcast,reduce,allgather,allgatherv,alltoall,alltoallv,\n"
"                         barrier)\n"
"    --sizes LO-HI        message sizes in bytes, K/M suffixes (default 1-1M); the grid is\n"
"                         the powers of two in the range, as autoopt-bench-coll counts\n"
"                         bytes (docs/tuning-format.md, \"What bytes means\")\n"
"    --comm-sizes LIST    communicator sizes, comma-separated (default: the job's size);\n"
"                         a smaller size is measured on the first ranks of the job\n"
"    --budget SECONDS     stop measuring after this long; the file covers what was\n"
"                         measured and the run says what it skipped (default: no limit)\n"
"    --raw FILE           append every measurement to FILE as it is taken\n"
"                         (docs/tuning.md, \"The raw file\")\n"
"    --resume             with --raw: take the measurements already in FILE instead of\n"
"                         measuring them again (after a run was stopped)\n"
"    --tolerance F        stop repeating when every median's 95 %% interval is within\n"
"                         +-F of it (default 0.03)\n"
"    --min-reps N         repetitions before the first check (default 7)\n"
"    --max-reps N         repetitions at most (default 31)\n"
"    --prune F            skip an algorithm at a point where it was more than F times\n"
"                         slower than the best at both neighbouring points, or at the\n"
"                         two grid points 4 and 16 times smaller (default 2)\n"
"    --race F             from the third repetition on, stop measuring a candidate at a\n"
"                         point once its whole interval lies above F times the interval\n"
"                         of the fastest so far (native is always measured to the end;\n"
"                         default 1.1; 1000 measures every candidate to the end)\n"
"    --resolution F       crossover search stops within a factor 1+F (default 0.1)\n"
"    --map STEPS          measure a decision map instead of searching (docs/tuning.md,\n"
"                         \"Decision maps\"): STEPS sizes per octave (1-16; 4 = quarter\n"
"                         octaves), every method at every size -- each algorithm, and\n"
"                         each of a fixed set of parameter values (segments of 1, 4, 16\n"
"                         and 64 KiB; every barrier count n and Imamura j) -- with no\n"
"                         pruning, no parameter search and no crossover search; the raw\n"
"                         file is the input of \"autoopt-tune encode\"; the tuning file\n"
"                         names each size's winner from that size to the next\n"
"    --host-shape         qualify every ranks block with the hosts and ranks per host of\n"
"                         the communicator it was measured on (\"ranks 4-7 hosts 2-2\n"
"                         ppn 2-2\", docs/tuning-format.md): the rules then apply only to\n"
"                         communicators laid out alike, and others run native\n"
"    --quiet              no progress output\n"
"    --check-search       also measure every parameter value and report how often the\n"
"                         golden-section search found the best of them (slower; for\n"
"                         checking the search, docs/tuning.md)\n"
"    -h, --help           this text\n"
"\n"
"OUTPUT\n"
"    Rank 0 shows progress on stderr (a bar with the collective, size and ETA on a\n"
"    terminal, one line per point otherwise). Exit status 0 on success, 1 on a failure\n"
"    (named on one line), 2 for a bad command line.\n"
"\n"
"EXAMPLE\n"
"    mpiexec.mpich -n 4 autoopt-tune --coll allreduce,bcast --budget 120 -o shm.tune\n"
"    AUTOOPT_TUNING=shm.tune LD_PRELOAD=libautoopt.so mpiexec.mpich -n 4 ./app\n");
}

/* One line on stderr from rank 0: "autoopt-tune: <message><tail>". */
static void say0(const char *tail, const char *fmt, va_list ap)
{
    if (world_rank != 0)
        return;
    fprintf(stderr, "autoopt-tune: ");
    vfprintf(stderr, fmt, ap);
    fputs(tail, stderr);
}

/* A failure every rank reaches alike (a bad raw file, which every rank parses): rank 0 names
 * it, every rank finalizes and exits 1. */
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say0("\n", fmt, ap);
    va_end(ap);
    MPI_Finalize();
    exit(1);
}

/* A failure of one rank (a file rank 0 writes, a failed call): it names itself and ends the
 * job. */
static void die_one(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "autoopt-tune[%d]: ", world_rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* A bad command line (every rank parses the same one): exit status 2. */
static void bad_option(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say0(" (see --help)\n", fmt, ap);
    va_end(ap);
    MPI_Finalize();
    exit(2);
}

static double parse_double(const char *name, const char *s, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        bad_option("%s '%s': expected a number from %g to %g", name, s, lo, hi);
    return v;
}

/* The file name given to option a: a value that starts with '-' is the next option, not a
 * name (-o --quiet). */
static const char *file_value(const char *a, const char *v)
{
    char q[AOT_QUOTE_LEN];
    if (v[0] == '-')
        bad_option("%s '%s': expected a file name, not an option (name a file that starts "
                   "with '-' as ./%s)", a, aot_quote_str(v, q, sizeof(q)), q);
    if (!v[0])
        bad_option("%s '': expected a file name", a);
    return v;
}

/* --sizes LO-HI: each message says what is wrong with the value. */
static void parse_sizes(const char *v)
{
    char q[AOT_QUOTE_LEN];
    const char *dash = strchr(v, '-');

    aot_quote_str(v, q, sizeof(q));
    if (!dash || aot_parse_size(v, (size_t) (dash - v), &o.lo) != 0
        || aot_parse_size(dash + 1, strlen(dash + 1), &o.hi) != 0)
        bad_option("--sizes '%s': expected LO-HI, two byte counts with K/M/G suffixes, e.g. "
                   "1-1M", q);
    if (o.lo > o.hi)
        bad_option("--sizes '%s': expected LO-HI with LO <= HI: %llu is above %llu", q,
                   (unsigned long long) o.lo, (unsigned long long) o.hi);
    if (o.hi > (1ull << 40))
        bad_option("--sizes '%s': HI %llu is above 1024G, the largest size measured", q,
                   (unsigned long long) o.hi);
    if (o.hi == 0)
        bad_option("--sizes '%s': HI must be at least 1: the grid is the powers of two from "
                   "1 byte up to HI (one that starts at 8 bytes or less also covers calls of "
                   "0 bytes)", q);
}

static void parse_options(int argc, char **argv)
{
    size_t off = 0;
    o.out = "autoopt.tune";
    o.out_opt = "-o";
    o.lo = 1;
    o.hi = 1 << 20;
    o.tolerance = 0.03;
    o.prune = 2;
    o.race = 1.1;
    o.resolution = 0.1;
    o.min_reps = 7;
    o.max_reps = 31;
    o.target_us = 1000;
    for (int i = 0; i < argc && off < sizeof(o.cmdline); i++)
        off += (size_t) snprintf(o.cmdline + off, sizeof(o.cmdline) - off, "%s%s",
                                 i ? " " : "", argv[i]);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDS_VALUE() do { if (!v) bad_option("%s needs a value", a); i++; } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (world_rank == 0)
                usage(stdout);
            MPI_Finalize();
            exit(0);
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            NEEDS_VALUE();
            o.out = file_value(a, v);
            o.out_opt = a;
        } else if (!strcmp(a, "--raw")) {
            NEEDS_VALUE();
            o.raw = file_value(a, v);
        } else if (!strcmp(a, "--resume")) {
            o.resume = 1;
        } else if (!strcmp(a, "--check-search")) {
            o.check_search = 1;
        } else if (!strcmp(a, "--quiet")) {
            o.quiet = 1;
        } else if (!strcmp(a, "--host-shape")) {
            o.host_shape = 1;
        } else if (!strcmp(a, "--coll")) {
            NEEDS_VALUE();
            char buf[256], *save = NULL;
            snprintf(buf, sizeof(buf), "%s", v);
            o.ncolls = 0;
            for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int k = aot_tools_find_kind(t, strlen(t));
                if (k < 0)
                    bad_option("--coll: unknown collective '%s' (known: allreduce, bcast, "
                               "reduce, allgather, allgatherv, alltoall, alltoallv, barrier)", t);
                for (int j = 0; j < o.ncolls; j++)
                    if (o.colls[j] == k)
                        bad_option("--coll: '%s' given twice", t);
                o.colls[o.ncolls++] = k;
            }
            if (!o.ncolls)
                bad_option("--coll needs at least one collective");
        } else if (!strcmp(a, "--sizes")) {
            NEEDS_VALUE();
            parse_sizes(v);
        } else if (!strcmp(a, "--comm-sizes")) {
            NEEDS_VALUE();
            char buf[256], *save = NULL, *end;
            snprintf(buf, sizeof(buf), "%s", v);
            o.ncomm = 0;
            for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                long s = strtol(t, &end, 10);
                if (*end || end == t || s < 2 || s > world_size)
                    bad_option("--comm-sizes: '%s' is not a size from 2 to the job's %d ranks",
                               t, world_size);
                if (o.ncomm == MAX_COMMS)
                    bad_option("--comm-sizes: at most %d sizes", MAX_COMMS);
                for (int j = 0; j < o.ncomm; j++)
                    if (o.comm_sizes[j] == s)
                        bad_option("--comm-sizes: %ld given twice", s);
                o.comm_sizes[o.ncomm++] = (int) s;
            }
        } else if (!strcmp(a, "--budget")) {
            NEEDS_VALUE();
            o.budget = parse_double("--budget", v, 1, 1e7);
        } else if (!strcmp(a, "--tolerance")) {
            NEEDS_VALUE();
            o.tolerance = parse_double("--tolerance", v, 0.001, 1);
        } else if (!strcmp(a, "--map")) {
            NEEDS_VALUE();
            o.map_steps = (int) parse_double("--map", v, 1, 16);
        } else if (!strcmp(a, "--race")) {
            NEEDS_VALUE();
            o.race = parse_double("--race", v, 1, 1000);
        } else if (!strcmp(a, "--prune")) {
            NEEDS_VALUE();
            o.prune = parse_double("--prune", v, 1, 1000);
        } else if (!strcmp(a, "--resolution")) {
            NEEDS_VALUE();
            o.resolution = parse_double("--resolution", v, 0, 1);
        } else if (!strcmp(a, "--min-reps")) {
            NEEDS_VALUE();
            o.min_reps = (int) parse_double("--min-reps", v, 3, 1000);
        } else if (!strcmp(a, "--max-reps")) {
            NEEDS_VALUE();
            o.max_reps = (int) parse_double("--max-reps", v, 3, 1000);
        } else {
            bad_option("unknown option '%s'", a);
        }
#undef NEEDS_VALUE
    }
    if (o.max_reps < o.min_reps)
        bad_option("--max-reps %d is below --min-reps %d", o.max_reps, o.min_reps);
    if (o.resume && !o.raw)
        bad_option("--resume needs --raw FILE");
    if (!o.ncolls) {
        /* the building blocks first: the allreduce variations select an allgather/alltoall */
        static const int order[] = {AOT_COLL_BARRIER, AOT_COLL_ALLGATHER, AOT_COLL_ALLTOALL,
                                    AOT_COLL_ALLGATHERV, AOT_COLL_ALLTOALLV, AOT_COLL_BCAST,
                                    AOT_COLL_REDUCE, AOT_COLL_ALLREDUCE};
        for (size_t j = 0; j < sizeof(order) / sizeof(order[0]); j++)
            o.colls[o.ncolls++] = order[j];
    }
    if (!o.ncomm)
        o.comm_sizes[o.ncomm++] = world_size;
}

/* The files written (the tuning file, --raw) must be regular files or new names: a device,
 * FIFO, socket or directory is refused before any measurement (aot_file_check_writable, as
 * rank 0, which writes them, sees them; every rank stops alike). */
static void check_outputs(void)
{
    char err[4400] = "";
    int bad = 0;

    if (world_rank == 0) {
        char e[4200];
        if (aot_file_check_writable(o.out, e, sizeof(e)) != 0)
            bad = snprintf(err, sizeof(err), "%s: %s", o.out_opt, e) > 0;
        else if (o.raw && aot_file_check_writable(o.raw, e, sizeof(e)) != 0)
            bad = snprintf(err, sizeof(err), "--raw: %s", e) > 0;
    }
    PMPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad)
        die("%s", err);
}

/* ---------------------------------------------------------------- raw file */

struct rawset {
    struct aot_tune_raw *r;
    size_t n, cap;
};
static struct rawset known;      /* from --resume */
static long raw_complete = -1;   /* --resume: bytes up to the end of the last complete line,
                                  * when a cut-off line follows (raw_open removes it) */
static FILE *rawf;
static char setup_line[512];     /* "# setup ..." : what the measurements were taken on */

static const struct aot_tune_raw *raw_find(const char *coll, const char *alg, long param,
                                           int ranks, uint64_t bytes)
{
    for (size_t i = known.n; i-- > 0;) {
        const struct aot_tune_raw *r = &known.r[i];
        if (r->param == param && r->ranks == ranks && r->bytes == bytes
            && !strcmp(r->alg, alg) && !strcmp(r->coll, coll))
            return r;
    }
    return NULL;
}

static void raw_keep(const struct aot_tune_raw *r)
{
    if (known.n == known.cap) {
        known.cap = known.cap ? 2 * known.cap : 256;
        known.r = realloc(known.r, known.cap * sizeof(*known.r));
        if (!known.r)
            die("out of memory");
    }
    known.r[known.n++] = *r;
}

/* Rank 0 reads the raw file and broadcasts it; every rank parses the same text. */
static void raw_load(void)
{
    char *text = NULL, err[256] = "";
    long len = 0;

    if (world_rank == 0) {
        size_t n = 0;
        if (access(o.raw, F_OK) != 0 && errno == ENOENT) {
            len = 0;                       /* a new raw file */
        } else if (!o.resume) {
            snprintf(err, sizeof(err), "%s exists: give --resume to continue it, or name "
                     "another --raw file", o.raw);
            len = -1;
        } else if (aot_file_slurp(o.raw, "raw file", AOT_TUNE_RAW_MAX_BYTES, &text, &n, err,
                                  sizeof(err)) != 0) {
            len = -1;
        } else {
            len = (long) n;
        }
    }
    PMPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (len < 0) {
        PMPI_Bcast(err, sizeof(err), MPI_CHAR, 0, MPI_COMM_WORLD);
        die("%s", err);
    }
    if (world_rank != 0)
        text = malloc((size_t) len + 1);
    if (!text && len > 0)
        die("out of memory");
    if (len > 0)
        PMPI_Bcast(text, (int) len, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (len <= 0) {
        free(text);
        return;
    }
    text[len] = '\0';

    int lineno = 0, saw_setup = 0;
    char *end = text + len;
    for (char *line = text, *next; line < end; line = next) {
        char *nul;
        next = memchr(line, '\n', (size_t) (end - line));
        lineno++;
        if (!next) {
            /* the last line of a run that was stopped mid-write: removed, and measured again
             * (appended after it, it would run into the next line) */
            if (world_rank == 0 && !o.quiet)
                fprintf(stderr, "autoopt-tune: %s:%d: incomplete last line removed (it is "
                        "measured again)\n", o.raw, lineno);
            raw_complete = (long) (line - text);
            break;
        }
        /* A NUL byte on a complete line (a crash can leave a run of them) is damage in the
         * middle of the file, like any other malformed line: stop and name the line, rather
         * than take it for the end of the text and measure the later lines again. */
        nul = memchr(line, '\0', (size_t) (next - line));
        if (nul)
            die("%s:%d: a NUL byte at column %d: the line is damaged (repair or delete it, "
                "then --resume again)", o.raw, lineno, (int) (nul - line) + 1);
        *next++ = '\0';
        if (lineno == 1) {
            if (strcmp(line, "autoopt-tune-raw 1") == 0)
                die("%s:1: a raw file of version 1 (barrier-separated times only): this "
                    "autoopt-tune also times calls back to back; name another --raw file",
                    o.raw);
            char head[32];
            snprintf(head, sizeof(head), "autoopt-tune-raw %d", AOT_TUNE_RAW_VERSION);
            if (strcmp(line, head) != 0)
                die("%s:1: expected '%s': not a raw file of autoopt-tune", o.raw, head);
            continue;
        }
        if (!strncmp(line, "# setup ", 8)) {
            if (strcmp(line, setup_line) != 0)
                die("%s:%d: measured on another setup ('%s'; this job: '%s'): use another "
                    "--raw file", o.raw, lineno, line + 8, setup_line + 8);
            saw_setup = 1;
            continue;
        }
        if (line[0] == '#' || line[0] == '\0')
            continue;
        struct aot_tune_raw r;
        if (aot_tune_raw_parse(line, &r, err, sizeof(err)) != 0)
            die("%s:%d: %s", o.raw, lineno, err);
        if (r.b2b.n < 1)
            die("%s:%d: expected 14 fields: no back-to-back time", o.raw, lineno);
        int k = aot_tools_find_kind(r.coll, strlen(r.coll));
        if (k < 0 || aot_tools_find_alg(k, r.alg, strlen(r.alg)) < 0)
            die("%s:%d: unknown collective or algorithm '%s %s'", o.raw, lineno, r.coll, r.alg);
        raw_keep(&r);
    }
    if (!saw_setup && known.n)
        die("%s: no '# setup' line: not written by this autoopt-tune", o.raw);
    free(text);
}

static void raw_open(void)
{
    if (world_rank != 0 || !o.raw)
        return;
    rawf = fopen(o.raw, "a");
    if (!rawf)
        die_one("%s: %s", o.raw, strerror(errno));
    if (raw_complete >= 0 && ftruncate(fileno(rawf), (off_t) raw_complete) != 0)
        die_one("%s: cannot remove the incomplete last line: %s", o.raw, strerror(errno));
    {
        if (ftell(rawf) == 0) {
            time_t now = time(NULL);
            char date[64];
            strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %z", localtime(&now));
            fprintf(rawf, "autoopt-tune-raw %d\n%s\n# date %s\n# command %s\n"
                    "# m <collective> <algorithm> <param> <ranks> <bytes> <median_us> "
                    "<lo_us> <hi_us> <reps> <b2b_median_us> <b2b_lo_us> <b2b_hi_us> "
                    "<b2b_reps>\n# (barrier-separated, then back to back)\n",
                    AOT_TUNE_RAW_VERSION, setup_line, date, o.cmdline);
        }
    }
    fflush(rawf);
}

static void raw_append(const struct aot_tune_raw *r)
{
    char line[512];
    if (!rawf)
        return;
    if (aot_tune_raw_format(r, line, sizeof(line)) > 0) {
        fputs(line, rawf);
        fflush(rawf);
    }
}

/* ---------------------------------------------------------------- the setup */

static int nhosts, per_host;
static char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];

static void describe_setup(void)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "", *all;
    int len;
    PMPI_Get_processor_name(name, &len);
    all = calloc((size_t) world_size, MPI_MAX_PROCESSOR_NAME);
    if (!all)
        die("out of memory");
    PMPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                   MPI_COMM_WORLD);
    nhosts = 0;
    for (int i = 0; i < world_size; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(all + (size_t) i * MPI_MAX_PROCESSOR_NAME,
                           all + (size_t) j * MPI_MAX_PROCESSOR_NAME);
        nhosts += !seen;
    }
    free(all);
    per_host = (world_size + nhosts - 1) / nhosts;
    aot_tools_mpi_version(mpi_version, (int) sizeof(mpi_version));
    /* MPICH waits by spinning: with more ranks than cores the timings become the scheduler's
     * unless the job runs under the yield-when-idle policy, as the program should */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const char *pre = getenv("LD_PRELOAD");
    if (world_rank == 0 && ncpu > 0 && per_host > ncpu && !(pre && strstr(pre, "yield")))
        fprintf(stderr, "autoopt-tune: warning: %d ranks on %ld cores without the "
                "yield-when-idle library: MPICH's spinning waits will make the timings the "
                "scheduler's; run under the policy the program will use, e.g. -genv LD_PRELOAD "
                "libautoopt-yield.so (docs/tuning.md)\n", per_host, ncpu);
    const char *tls = getenv("UCX_TLS");
    snprintf(setup_line, sizeof(setup_line),
             "# setup ranks=%d hosts=%d ranks-per-host=%d mpi=\"%.200s\" UCX_TLS=%.100s", world_size,
             nhosts, per_host, mpi_version, tls ? tls : "(unset)");
}

/* ---------------------------------------------------------------- running one call */

/* The buffers of the timed calls (aot_tools_run). */
static struct aot_tools_bufs B;

/* ---------------------------------------------------------------- measuring */

struct cand {
    int alg;
    long param;
    struct aot_tune_est est;    /* each call followed by a barrier */
    struct aot_tune_est b2b;    /* k calls back to back after one barrier */
    int have;
};

struct ctx {
    int kind, p;
    MPI_Comm comm;
    struct aot_tools_comm *tc;  /* comm prepared for the algorithms (aot_tools_run) */
};

static double measured_seconds;  /* time spent in timed repetitions (same on every rank) */
static int points_done, points_total;

static void raw_record(const struct ctx *c, const struct cand *x, uint64_t bytes)
{
    struct aot_tune_raw r;
    memset(&r, 0, sizeof(r));
    snprintf(r.coll, sizeof(r.coll), "%s", aot_tools_kind_name(c->kind));
    snprintf(r.alg, sizeof(r.alg), "%s", aot_tools_alg_name(x->alg));
    r.param = x->param;
    r.ranks = c->p;
    r.bytes = bytes;
    r.est = x->est;
    r.b2b = x->b2b;
    raw_keep(&r);
    if (world_rank == 0)
        raw_append(&r);
}

/*
 * Measures the candidates interleaved at one size (A B C A B C ...), each two ways per
 * repetition (k chosen once so that k calls last about 1 ms): barrier-separated, k calls each
 * timed on its own and followed by an untimed barrier, so that a call that does not
 * synchronise (a broadcast's root, a reduction's leaves, a pipeline) cannot overlap the next
 * one, as OSU and autoopt-bench-coll time it; and back to back, aot_tools_b2b_calls(tmax, k)
 * calls in a row after one barrier, timed together, as a program calls in a loop (there such
 * a call may overlap the next, and may gain or lose by it).  Each way's time is the mean over
 * the ranks of each rank's mean call time (the slowest rank's time adds the skew with which
 * oversubscribed ranks leave the barrier: docs/tuning.md).  Every rank holds the same sums, so
 * every rank decides alike.  After --min-reps repetitions, and after each further one, it
 * stops when both medians' 95 % intervals of every candidate are within --tolerance, or at
 * --max-reps.  Candidates already measured (this run, or the raw file) are not measured again.
 * reps_cap: a smaller cap for the parameter probes.
 */
/* Whether the --budget has time left, as rank 0 sees it (every rank gets its answer).  Once
 * it has run out in the middle of a point, out_of_time stays set: every later measurement
 * returns at once, and the point being measured is left out, not decided on part of its
 * repetitions. */
static int out_of_time;
static long raced;              /* candidates the race dropped before their point ended */
/* What the budget's message estimates from (rank 0's clock): when the point being measured
 * began (0: no point is), the seconds the decided points took, and the point the budget cut
 * off: the seconds it had taken and what share of its repetitions were done (0: not known). */
static double point_t0, done_seconds, cut_spent;
static double cut_share = -1;

/* The race (aot_tune_race) starts after this many repetitions: the least for which [min, max]
 * of each candidate's times is an interval worth comparing. */
#define RACE_FROM 3

static int budget_left(MPI_Comm comm)
{
    int go = 1;
    if (o.budget <= 0)
        return 1;
    if (out_of_time)
        return 0;
    if (world_rank == 0 && PMPI_Wtime() - t_start > o.budget)
        go = 0;
    PMPI_Bcast(&go, 1, MPI_INT, 0, comm);
    out_of_time = !go;
    return go;
}

static void measure(const struct ctx *c, struct cand *x, int n, uint64_t bytes, int reps_cap)
{
    const char *cname = aot_tools_kind_name(c->kind);
    int todo[MAX_CANDS], nt = 0, k = 1;
    static double samples[MAX_CANDS][1000], samples_b2b[MAX_CANDS][1000];

    for (int i = 0; i < n; i++) {
        const struct aot_tune_raw *r =
            raw_find(cname, aot_tools_alg_name(x[i].alg), x[i].param, c->p, bytes);
        if (r) {
            x[i].est = r->est;
            x[i].b2b = r->b2b;
            x[i].have = 1;
        } else {
            x[i].have = 0;
            todo[nt++] = i;
        }
    }
    if (!nt)
        return;
    if (!budget_left(c->comm)) {
        if (cut_share < 0 && point_t0 > 0) {
            cut_spent = PMPI_Wtime() - point_t0;
            cut_share = 0;
        }
        return;
    }

    /* warm-up: two calls each, and the longest single call decides k */
    double tmax = 0;
    for (int j = 0; j < nt; j++) {
        struct cand *y = &x[todo[j]];
        for (int w = 0; w < 2; w++) {
            PMPI_Barrier(c->comm);
            double t0 = PMPI_Wtime();
            if (aot_tools_run(c->tc, y->alg, y->param, bytes, &B) != MPI_SUCCESS)
                die_one("%s %s failed at %llu bytes on %d ranks", cname, aot_tools_alg_name(y->alg),
                    (unsigned long long) bytes, c->p);
            double t = PMPI_Wtime() - t0;
            if (w == 1 && t > tmax)
                tmax = t;
        }
    }
    PMPI_Allreduce(MPI_IN_PLACE, &tmax, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    if (tmax > 0)
        k = (int) ceil(o.target_us * 1e-6 / tmax);
    if (k < 1)
        k = 1;
    if (k > 1000)
        k = 1000;

    /* Back to back, the time of an algorithm whose calls do not synchronise depends on how many
     * calls run in a row, because its senders run ahead: on 4 ranks sharing 2 cores, a 128 KiB
     * chain:segment=8192 broadcast took 0.54 x native's time per call in runs of 4 calls and
     * 1.28 x in runs of 256, and a 256 B linear reduce 0.8-0.99 x in runs of 64 and 1.2-1.7 x in
     * runs of 256 (docs/tuning.md, "Back to back, in long runs").  A program's loop runs long, so
     * the back-to-back way runs as many calls in a row as autoopt-bench-coll --back-to-back
     * (aot_tools_b2b_calls: at least AOT_TOOLS_B2B_CALLS, whatever k the 1 ms repetition gives,
     * unless the slowest candidate's calls would last more than AOT_TOOLS_B2B_MAX_S): senders run
     * ahead with eager messages, which are small and fast, and the cap keeps large sizes (and the
     * emulated cluster's calls of tens of milliseconds) from multiplying the tuning time. */
    int kb = aot_tools_b2b_calls(tmax, k);
    int reps = 0, cap = reps_cap < o.max_reps ? reps_cap : o.max_reps;
    unsigned char alive[MAX_CANDS], keep[MAX_CANDS];
    struct aot_tune_est est[MAX_CANDS], est_b2b[MAX_CANDS];
    for (int j = 0; j < nt; j++) {
        alive[j] = 1;
        keep[j] = x[todo[j]].alg == c->kind;    /* native: every rule is compared with it */
    }
    for (;;) {
        for (int j = 0; j < nt; j++) {
            if (!alive[j])
                continue;
            struct cand *y = &x[todo[j]];
            double t[2] = {0, 0};   /* barrier-separated, back to back */
            PMPI_Barrier(c->comm);
            for (int i = 0; i < k; i++) {
                double t0 = PMPI_Wtime();
                aot_tools_run(c->tc, y->alg, y->param, bytes, &B);
                t[0] += PMPI_Wtime() - t0;
                PMPI_Barrier(c->comm);
            }
            double t0 = PMPI_Wtime();
            for (int i = 0; i < kb; i++)
                aot_tools_run(c->tc, y->alg, y->param, bytes, &B);
            t[1] = PMPI_Wtime() - t0;
            PMPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_SUM, c->comm);
            samples[j][reps] = t[0] / k / c->p * 1e6;
            samples_b2b[j][reps] = t[1] / kb / c->p * 1e6;
            measured_seconds += (t[0] + t[1]) / c->p;
        }
        reps++;
        if (!budget_left(c->comm)) {
            /* nothing recorded: the point is left out; what share of it was done, for the
             * estimate of the budget it needed (the repetitions of this measurement are
             * taken for the share of the whole point's) */
            int need = cap < o.min_reps ? cap : o.min_reps;
            if (cut_share < 0 && point_t0 > 0) {
                cut_spent = PMPI_Wtime() - point_t0;
                cut_share = (double) reps / (need > reps ? need : reps + 1);
            }
            return;
        }
        if (reps < RACE_FROM || (reps < o.min_reps && reps < cap && nt == 1))
            continue;
        /* every rank holds the same samples, so every rank drops the same candidates */
        for (int j = 0; j < nt; j++) {
            if (!alive[j])
                continue;
            double tmp[1000];
            memcpy(tmp, samples[j], (size_t) reps * sizeof(double));
            aot_tune_estimate(tmp, reps, &est[j]);
            memcpy(tmp, samples_b2b[j], (size_t) reps * sizeof(double));
            aot_tune_estimate(tmp, reps, &est_b2b[j]);
        }
        if (nt > 1) {
            /* a candidate stays while either way's race keeps it: it may win only the other */
            unsigned char alive_b2b[MAX_CANDS];
            int before = 0, left = 0;
            for (int j = 0; j < nt; j++)
                before += alive[j];
            memcpy(alive_b2b, alive, sizeof(alive_b2b));
            aot_tune_race(est, nt, keep, alive, o.race);
            aot_tune_race(est_b2b, nt, keep, alive_b2b, o.race);
            for (int j = 0; j < nt; j++) {
                alive[j] |= alive_b2b[j];
                left += alive[j];
            }
            raced += before - left;
        }
        if (reps < o.min_reps && reps < cap)
            continue;
        int precise = 1;
        for (int j = 0; j < nt; j++)
            if (alive[j])
                precise &= aot_tune_precise(&est[j], o.tolerance)
                           && aot_tune_precise(&est_b2b[j], o.tolerance);
        if (precise || reps >= cap)
            break;
    }
    for (int j = 0; j < nt; j++) {
        x[todo[j]].est = est[j];
        x[todo[j]].b2b = est_b2b[j];
        x[todo[j]].have = 1;
        raw_record(c, &x[todo[j]], bytes);
    }
}

/* ---------------------------------------------------------------- parameters */

/* The values of alg's parameter worth trying for a call of `bytes` on p ranks, increasing:
 * segment sizes as powers of two up to the message, a barrier count n up to p - 2 (the paper's
 * range), Imamura's j up to lg p; others: the registry's tuner values. */
static int param_values(int alg, uint64_t bytes, int p, long *v)
{
    struct aot_tools_param par, *pa = &par;
    int n = 0;

    aot_tools_alg_param(alg, pa);
    if (!strcmp(pa->name, "segment")) {
        for (long s = pa->min; s <= pa->max && n < MAX_VALUES; s *= 2) {
            v[n++] = s;
            if ((uint64_t) s >= bytes)
                break;
        }
    } else if (!strcmp(pa->name, "n")) {
        long top = p - 2 > pa->min ? p - 2 : pa->min;
        for (long s = pa->min; s <= top && s <= pa->max && n < MAX_VALUES; s++)
            v[n++] = s;
    } else if (!strcmp(pa->name, "j")) {
        long top = 0;
        while ((1L << top) < p)
            top++;
        for (long s = pa->min; s <= top && s <= pa->max && n < MAX_VALUES; s++)
            v[n++] = s;
    } else {
        for (int i = 0; i < pa->ntune; i++)
            v[n++] = pa->tune[i];
    }
    if (!n)
        v[n++] = pa->dflt;
    return n;
}

static long gss_evaluations, gss_values;
/* --check-search: points checked, where the search found the exhaustive best, its penalty */
static long check_points, check_hits;
static double check_pen_sum, check_pen_max;

/* The best value of alg's parameter at `bytes`: a golden-section search over the values, on
 * the sum of the barrier-separated and the back-to-back medians. */
static long best_param(const struct ctx *c, int alg, uint64_t bytes)
{
    long v[MAX_VALUES];
    int nv = param_values(alg, bytes, c->p, v), i;
    struct aot_tune_gss g;

    if (nv == 1)
        return v[0];
    aot_tune_gss_init(&g, 0, nv - 1);
    while ((i = aot_tune_gss_next(&g)) >= 0) {
        struct cand x = {.alg = alg, .param = v[i]};
        measure(c, &x, 1, bytes, o.min_reps);
        aot_tune_gss_report(&g, i, x.est.median + x.b2b.median);   /* both ways */
        gss_evaluations++;
    }
    gss_values += nv;
    int best = aot_tune_gss_best(&g);
    if (o.check_search) {
        /* every value, the search's own measurements reused (the same key) */
        double t[MAX_VALUES];
        int exh = 0;
        for (i = 0; i < nv; i++) {
            struct cand x = {.alg = alg, .param = v[i]};
            measure(c, &x, 1, bytes, o.min_reps);
            t[i] = x.est.median + x.b2b.median;
            if (t[i] < t[exh])
                exh = i;
        }
        check_points++;
        check_hits += best == exh;
        double pen = t[best] / t[exh] - 1;
        check_pen_sum += pen;
        if (pen > check_pen_max)
            check_pen_max = pen;
    }
    return v[best];
}

/* ---------------------------------------------------------------- progress */

static int on_tty;

static void progress(const char *coll, int p, uint64_t bytes, const char *what)
{
    if (world_rank != 0 || o.quiet)
        return;
    double el = PMPI_Wtime() - t_start;
    double eta = points_done ? el / points_done * (points_total - points_done) : 0;
    if (on_tty) {
        int width = 30, fill = points_total ? width * points_done / points_total : 0;
        fprintf(stderr, "\r[%.*s%*s] %3d%% %-10s %3d ranks %8llu B  %s  ETA %4.0f s\033[K",
                fill, "##############################", width - fill, "",
                points_total ? 100 * points_done / points_total : 0, coll, p,
                (unsigned long long) bytes, what, eta);
    } else {
        fprintf(stderr, "autoopt-tune: %s %d ranks %llu B: %s [%d/%d points, %.0f s, ETA %.0f s]\n",
                coll, p, (unsigned long long) bytes, what, points_done, points_total, el, eta);
    }
}

/* ---------------------------------------------------------------- one collective */

struct point {
    uint64_t bytes;
    int measured;
    int ncand;
    struct cand cand[MAX_CANDS];
    int best;       /* index into cand of the fastest non-native, -1 if none */
    int choice;     /* index into cand of the rule's choice (native: its index) */
    int native;     /* index of native in cand */
};

struct range {      /* a rule before merging: [lo, hi] bytes -> cand */
    uint64_t lo, hi;
    int alg;
    long param;
    double adv_min, adv_max;  /* measured advantage over native, percent */
    int npoints;
};

static struct aot_tuning rules;   /* everything decided so far (also steers nested calls) */
static int skipped_points;        /* grid points the budget left out, and their names */
static char skipped[2048];



/* The parameter values of a decision map (--map): the same at every size of a map, so that
 * every column has the same methods (the paper measured four fixed segment sizes): segments
 * of 1, 4, 16 and 64 KiB (a segment at least the message sends it whole), every barrier
 * count n from the registry's minimum to p - 2, every Imamura j up to lg p; the registry's
 * tuner values for any other parameter. */
static int map_values(int alg, int p, long *v)
{
    struct aot_tools_param par, *pa = &par;
    int n = 0;

    aot_tools_alg_param(alg, pa);
    if (!strcmp(pa->name, "segment")) {
        for (long s = 1024; s <= 65536 && n < MAX_VALUES; s *= 4)
            if (s >= pa->min && s <= pa->max)
                v[n++] = s;
        if (!n)
            v[n++] = pa->dflt;
        return n;
    }
    /* n and j do not depend on the message size */
    return param_values(alg, UINT64_MAX, p, v);
}

/* Every method at a point of a decision map: native, then each algorithm the call may run
 * with each of its map_values. */
static void map_candidates(const struct ctx *c, struct point *pt)
{
    long v[MAX_VALUES];

    for (int a = 0; a < aot_tools_nalgs(); a++) {
        if (aot_tools_alg_kind(a) != c->kind || !aot_tools_alg_applies(a, c->p, 1))
            continue;
        int nv = aot_tools_alg_param(a, NULL) ? map_values(a, c->p, v) : 1;
        if (!aot_tools_alg_param(a, NULL))
            v[0] = 0;
        for (int i = 0; i < nv; i++) {
            if (pt->ncand == MAX_CANDS)
                die_one("%s on %d ranks has more than %d methods for --map",
                        aot_tools_kind_name(c->kind), c->p, MAX_CANDS);
            struct cand *x = &pt->cand[pt->ncand++];
            memset(x, 0, sizeof(*x));
            x->alg = a;
            x->param = v[i];
        }
    }
}

/* The candidates at a point: native, every algorithm the call may run (restrictions checked
 * for a commutative operation), each with a parameter at its best value. */
static void candidates(const struct ctx *c, struct point *pt, const struct point *left,
                       const struct point *right)
{
    pt->ncand = 0;
    pt->native = 0;
    if (o.map_steps) {
        map_candidates(c, pt);
        return;
    }
    for (int a = 0; a < aot_tools_nalgs() && pt->ncand < MAX_CANDS; a++) {
        if (aot_tools_alg_kind(a) != c->kind || !aot_tools_alg_applies(a, c->p, 1))
            continue;
        if (a != c->kind && left && right && left->measured && right->measured) {
            double tl = -1, tr = -1;
            for (int i = 0; i < left->ncand; i++)
                if (left->cand[i].alg == a)
                    tl = left->cand[i].est.median;
            for (int i = 0; i < right->ncand; i++)
                if (right->cand[i].alg == a)
                    tr = right->cand[i].est.median;
            double bl = left->cand[left->best >= 0 ? left->best : left->native].est.median;
            double br = right->cand[right->best >= 0 ? right->best : right->native].est.median;
            if (left->cand[left->native].est.median < bl)
                bl = left->cand[left->native].est.median;
            if (right->cand[right->native].est.median < br)
                br = right->cand[right->native].est.median;
            if (aot_tune_pruned(tl, bl, tr, br, o.prune))
                continue;
        }
        struct cand *x = &pt->cand[pt->ncand++];
        memset(x, 0, sizeof(*x));
        x->alg = a;
        x->param = aot_tools_alg_param(a, NULL) ? best_param(c, a, pt->bytes) : 0;
    }
}

/* Both timings of a candidate, as the pure decisions take them. */
static struct aot_tune_two two_of(const struct cand *x)
{
    return (struct aot_tune_two){x->est, x->b2b};
}

/* A point's choice (aot_tune_choose): an algorithm surely faster than native both
 * barrier-separated and back to back, else native.  prev (may be NULL): the choice at the
 * point before, kept while it still qualifies and the best is not surely faster than it.
 * pt->best: the fastest algorithm barrier-separated, for the progress line and the pruning. */
static void decide(struct point *pt, const struct cand *prev)
{
    struct aot_tune_two tw[MAX_CANDS];
    int iprev = -1;
    pt->best = -1;
    for (int i = 0; i < pt->ncand; i++) {
        tw[i] = two_of(&pt->cand[i]);
        if (i == pt->native)
            continue;
        if (pt->best < 0 || pt->cand[i].est.median < pt->cand[pt->best].est.median)
            pt->best = i;
        if (prev && pt->cand[i].alg == prev->alg && pt->cand[i].param == prev->param)
            iprev = i;
    }
    pt->choice = aot_tune_choose(tw, pt->ncand, pt->native, iprev);
}

static void measure_point(const struct ctx *c, struct point *pt, const struct point *left,
                          const struct point *right)
{
    const char *cname = aot_tools_kind_name(c->kind);
    if (on_tty)
        progress(cname, c->p, pt->bytes, "measuring");
    point_t0 = PMPI_Wtime();
    candidates(c, pt, left, right);
    measure(c, pt->cand, pt->ncand, pt->bytes, o.max_reps);
    double took = PMPI_Wtime() - point_t0;
    point_t0 = 0;               /* the crossover searches' measurements are no point's */
    for (int i = 0; i < pt->ncand; i++)
        if (!pt->cand[i].have)
            return;             /* left out (the budget): tune_one lists it as skipped */
    decide(pt, NULL);
    pt->measured = 1;
    points_done++;
    done_seconds += took;
    char what[128];
    const struct cand *ch = &pt->cand[pt->choice];
    if (pt->choice == pt->native)
        snprintf(what, sizeof(what), "native (best: %s)",
                 pt->best >= 0 ? aot_tools_alg_name(pt->cand[pt->best].alg) : "none");
    else
        snprintf(what, sizeof(what), "%s, %.2fx native", aot_tools_alg_name(ch->alg),
                 pt->cand[pt->native].est.median / ch->est.median);
    progress(cname, c->p, pt->bytes, what);
}

/* The crossover search's question at `bytes`: does R win over L (aot_tune_right_wins: against
 * native an algorithm wins only where it is surely faster both ways, as at the grid points)? */
static int right_wins(const struct ctx *c, const struct cand *L, const struct cand *R,
                      uint64_t bytes)
{
    struct cand x[2] = {*L, *R};
    measure(c, x, 2, bytes, o.max_reps);
    struct aot_tune_two l = two_of(&x[0]), r = two_of(&x[1]);
    return aot_tune_right_wins(&l, L->alg == c->kind, &r, R->alg == c->kind);
}

/* A point's measured advantage over native, percent: the smaller of the two ways' (0 where
 * native is the choice). */
static double point_advantage(const struct point *pt)
{
    const struct cand *ch = &pt->cand[pt->choice], *nat = &pt->cand[pt->native];
    if (pt->choice == pt->native)
        return 0;
    double adv = aot_tune_advantage(&ch->est, &nat->est);
    if (aot_tune_advantage(&ch->b2b, &nat->b2b) < adv)
        adv = aot_tune_advantage(&ch->b2b, &nat->b2b);
    return adv;
}

/* The grid points of kind, increasing; their number. */
static int make_grid(int kind, struct point *grid)
{
    int ng = 0;
    if (kind == AOT_COLL_BARRIER) {
        /* one decision for every size: barrier has none (alltoallv is measured with equal
         * blocks, its bytes the agreed mean block: docs/tuning-format.md) */
        grid[ng++] = (struct point){.bytes = 0};
        return ng;
    }
    if (o.map_steps) {
        /* 2^(k / steps), rounded, from lo to hi: the map's columns */
        for (int k = 0; ng < MAX_GRID; k++) {
            uint64_t b = (uint64_t) llround(pow(2.0, (double) k / o.map_steps));
            if (b > o.hi)
                break;
            if (b < o.lo)
                continue;
            uint64_t mb = aot_tools_call_bytes(kind, b);
            if (ng && grid[ng - 1].bytes >= mb)
                continue;
            grid[ng++] = (struct point){.bytes = mb};
        }
        return ng;
    }
    for (uint64_t b = 1; b <= o.hi && ng < MAX_GRID; b *= 2) {
        if (b < o.lo && b * 2 <= o.lo)
            continue;
        uint64_t mb = aot_tools_call_bytes(kind, b < o.lo ? o.lo : b);
        if (ng && grid[ng - 1].bytes == mb)
            continue;
        grid[ng++] = (struct point){.bytes = mb};
    }
    return ng;
}

/* Tunes one collective on one communicator size and appends its rules. */
static void tune_one(int kind, int p, int ranks_lo, int ranks_hi, MPI_Comm comm)
{
    static struct point grid[MAX_GRID];
    struct ctx c = {.kind = kind, .p = p, .comm = comm};
    const char *cname = aot_tools_kind_name(kind);
    int ng = 0;
    char err[256];

    if (aot_tools_comm_open(comm, &c.tc) != MPI_SUCCESS)
        die_one("out of memory");
    struct aot_tools_shape shape = {p, 0, 0};
    if (o.host_shape && aot_tools_comm_shape(c.tc, &shape) != MPI_SUCCESS)
        die_one("--host-shape: cannot group the ranks by host");
    ng = make_grid(kind, grid);
    /* even points first (all candidates), then the odd ones between them (pruned) */
    for (int pass = 0; pass < 2; pass++)
        for (int i = pass; i < ng; i += 2) {
            /* once the budget is out, a point is still decided when every measurement it
             * needs is in the raw file (--resume); measure_point leaves out the others */
            budget_left(comm);
            /* an odd point prunes on its two even neighbours; an even point from the third
             * on, on the two even points below it (docs/tuning.md, "Search") */
            const struct point *l = pass ? (i > 0 ? &grid[i - 1] : NULL)
                                         : (i >= 4 ? &grid[i - 4] : NULL);
            const struct point *r = pass ? (i + 1 < ng ? &grid[i + 1] : NULL)
                                         : (i >= 4 ? &grid[i - 2] : NULL);
            if (o.map_steps)
                l = r = NULL;           /* a map measures every method everywhere */
            measure_point(&c, &grid[i], l, r);
        }
    for (int i = 0; i < ng; i++)
        if (!grid[i].measured) {
            skipped_points++;
            if (strlen(skipped) < sizeof(skipped) - 64)
                snprintf(skipped + strlen(skipped), sizeof(skipped) - strlen(skipped),
                         "%s%s@%d:%llu", skipped[0] ? " " : "", cname, p,
                         (unsigned long long) grid[i].bytes);
        }

    /* each measured point's choice (the previous point's kept while it still qualifies), and
     * where the choice changes between two neighbouring grid points, the crossover between */
    static struct aot_tune_gridpt gp[MAX_GRID];
    int prev = -1;
    for (int i = 0; i < ng; i++) {
        gp[i] = (struct aot_tune_gridpt){.bytes = grid[i].bytes, .measured = grid[i].measured,
                                         .choice = i};
        if (!grid[i].measured)
            continue;
        decide(&grid[i], prev >= 0 ? &grid[prev].cand[grid[prev].choice] : NULL);
        const struct cand *cr = &grid[i].cand[grid[i].choice];
        for (int j = 0; j < i; j++) {
            const struct cand *cj = &grid[j].cand[grid[j].choice];
            if (grid[j].measured && cj->alg == cr->alg && cj->param == cr->param) {
                gp[i].choice = gp[j].choice;
                break;
            }
        }
        /* no search across a grid point left out: the sizes around it run native
         * (aot_tune_spans) */
        if (prev == i - 1 && gp[prev].choice != gp[i].choice && !o.map_steps
            && budget_left(comm)) {
            const struct point *L = &grid[prev], *R = &grid[i];
            const struct cand *cl = &L->cand[L->choice];
            struct aot_tune_bisect bs;
            uint64_t m;
            aot_tune_bisect_init(&bs, L->bytes, R->bytes, o.resolution);
            while ((m = aot_tune_bisect_next(&bs)) != 0) {
                uint64_t mb = aot_tools_call_bytes(kind, m);
                if (mb <= bs.lo || mb >= bs.hi)
                    break;
                if (on_tty)
                    progress(cname, p, mb, "crossover");
                int rw = right_wins(&c, cl, cr, mb);
                if (out_of_time)
                    break;  /* the bracket so far decides */
                aot_tune_bisect_report(&bs, mb, rw);
            }
            gp[i].cross = aot_tune_bisect_cross(&bs);
        }
        prev = i;
    }

    /* ranges: each between measured points only (aot_tune_spans) */
    static struct aot_tune_span sp[MAX_GRID];
    struct range rg[MAX_GRID];
    int nr = aot_tune_spans(gp, ng, sp);
    for (int i = 0; i < nr; i++) {
        const struct cand *ch = &grid[sp[i].first].cand[grid[sp[i].first].choice];
        rg[i] = (struct range){sp[i].lo, sp[i].hi, ch->alg, ch->param, 0, 0,
                               sp[i].last - sp[i].first + 1};
        for (int j = sp[i].first; j <= sp[i].last; j++) {
            double adv = point_advantage(&grid[j]);
            if (j == sp[i].first || adv < rg[i].adv_min)
                rg[i].adv_min = adv;
            if (j == sp[i].first || adv > rg[i].adv_max)
                rg[i].adv_max = adv;
        }
        if (kind == AOT_COLL_BARRIER)
            rg[i].lo = 0, rg[i].hi = UINT64_MAX;
    }

    /* rules: into the table (checked, and used by the nested selection from now on), each
     * with its measured advantage over native as the note the file shows */
    for (int i = 0; i < nr; i++) {
        /* the advantage as native's time / the algorithm's */
        double rmin = 100 / (100 - rg[i].adv_min), rmax = 100 / (100 - rg[i].adv_max);
        char note[96];
        if (rg[i].alg == kind)
            snprintf(note, sizeof(note), "no algorithm surely faster (%d point%s)",
                     rg[i].npoints, rg[i].npoints > 1 ? "s" : "");
        else if (rg[i].npoints == 1 || lround(100 * rmin) == lround(100 * rmax))
            snprintf(note, sizeof(note), "%.2fx faster than native", rmax);
        else
            snprintf(note, sizeof(note), "%.2f-%.2fx faster than native (%d points)", rmin,
                     rmax, rg[i].npoints);
        struct aot_tuning_rule rule = {.kind = kind, .ranks_lo = ranks_lo, .ranks_hi = ranks_hi,
                                       .bytes_lo = rg[i].lo, .bytes_hi = rg[i].hi,
                                       .alg = rg[i].alg, .param = rg[i].param,
                                       .note = strdup(note), .hosts_lo = shape.nhosts,
                                       .hosts_hi = shape.nhosts, .ppn_lo = shape.ppn,
                                       .ppn_hi = shape.ppn};
        if (!rule.note)
            die_one("out of memory");
        if (aot_tuning_add(&rules, &rule, err, sizeof(err)) != 0)
            die_one("internal error: rule %s %d-%d %llu-%llu: %s", cname, ranks_lo, ranks_hi,
                (unsigned long long) rg[i].lo, (unsigned long long) rg[i].hi, err);
    }
    aot_tools_set_tuning(&rules);
    aot_tools_comm_close(c.tc);
}

/* ---------------------------------------------------------------- main */

/* The points the budget left undecided, and about how much more budget would decide them: one
 * line on stderr, --quiet or not (a file without their rules must not come silently).  A
 * point takes about as long as the decided ones did on average; with none decided, as long as
 * the point that was cut off would have by the share of its repetitions done (at least what it
 * took so far). */
static void say_budget(void)
{
    double per_point = points_done ? done_seconds / points_done : 0, more;
    const char *about = "about";

    if (!points_done) {
        if (cut_share > 0) {
            per_point = cut_spent / cut_share;
        } else {
            per_point = cut_spent > 0 ? cut_spent : o.budget;
            about = "more than";
        }
    }
    more = per_point * skipped_points - (points_done ? 0 : cut_spent);
    if (more < per_point)
        more = per_point;
    int many = skipped_points > 1;
    fprintf(stderr, "autoopt-tune: --budget %g s ran out before %d grid point%s %s decided "
            "(no rule: %s native): %s; %s %.0f s more would measure %s (e.g. --budget %.0f)\n",
            o.budget, skipped_points, many ? "s" : "", many ? "were" : "was",
            many ? "they run" : "it runs", skipped, about, ceil(more), many ? "them" : "it",
            ceil(o.budget + more));
}

/* Rank 0 writes the tuning file: composed in memory, checked to load exactly as autoopt will
 * load it, then put in place whole (aot_file_replace: a temporary file renamed over it). */
static void write_output(double seconds)
{
    char *text = NULL;
    size_t len = 0;
    struct aot_tuning check;
    char err[512], date[64];
    time_t now = time(NULL);
    FILE *f;

    if (world_rank != 0)
        return;
    strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %z", localtime(&now));
    f = open_memstream(&text, &len);
    if (!f)
        die_one("out of memory");
    fprintf(f, "# written by autoopt-tune (docs/tuning.md)\n%s\n", setup_line);
    fprintf(f, "# date %s, %.0f s of tuning\n# command %s\n", date, seconds, o.cmdline);
    if (skipped_points)
        fprintf(f, "# budget: %d grid points not measured (they run native): %s\n",
                skipped_points, skipped);
    fprintf(f, "# measured barrier-separated and back-to-back: a rule names an algorithm only\n"
               "# where its measured 95 %% interval lies below native's both ways (the note: the\n"
               "# smaller of the two speed-ups); sizes no rule covers run native\n");
    int werr = aot_tuning_write(&rules, f) != 0;
    if (fclose(f) != 0 || werr)
        die_one("out of memory");
    aot_tuning_init(&check);
    if (aot_tuning_parse(&check, text, len, o.out, err, sizeof(err)) != 0)
        die_one("internal error: the tuning file does not load: %s", err);
    aot_tuning_free(&check);
    if (aot_file_replace_text(o.out, text, len, err, sizeof(err)) != 0)
        die_one("%s", err);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "export") == 0)
        return aot_tune_export(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "encode") == 0)
        return aot_tune_encode(argc - 1, argv + 1);
    /* This program measures the repository's algorithms itself: autoopt's own handling of
     * its calls (conversion, chains, collectives routing) must stay out of the way. */
    setenv("AUTOOPT_DISABLE", "0", 1);
    setenv("AUTOOPT_CONVERT", "0", 1);
    setenv("AUTOOPT_CHAINS", "0", 1);
    setenv("AUTOOPT_COLLECTIVES", "1", 1);
    setenv("AUTOOPT_TUNE", "off", 1);   /* native must be MPI's own, not tuned online */
    unsetenv("AUTOOPT_TUNING");
    unsetenv("AUTOOPT_TRACE");
    unsetenv("AUTOOPT_STATS");
    unsetenv("AUTOOPT_REPRODUCIBLE");
#define AOT_X(upper, lower) unsetenv("AUTOOPT_" #upper);
    AOT_COLLECTIVES(AOT_X)
#undef AOT_X

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    parse_options(argc, argv);
    check_outputs();
    on_tty = isatty(2);
    describe_setup();
    /* the topology algorithms see the switches as they do in the library, which reads
     * AUTOOPT_TOPOLOGY at MPI_Init; every rank gets rank 0's message and stops alike */
    char terr[512];
    if (aot_tools_setup(getenv("AUTOOPT_TOPOLOGY"), terr, sizeof(terr)) != 0)
        die("%s", terr);
    aot_tuning_init(&rules);
    if (o.raw)
        raw_load();
    raw_open();

    /* buffers for the largest call: p blocks of the largest size */
    uint64_t maxb = o.hi < 1024 ? 1024 : o.hi;
    B.bytes = (size_t) maxb * (size_t) world_size;
    B.s = malloc(B.bytes);
    B.r = malloc(B.bytes);
    B.counts = malloc((size_t) world_size * sizeof(int));
    B.displs = malloc((size_t) world_size * sizeof(int));
    if (!B.s || !B.r || !B.counts || !B.displs)
        die("out of memory for buffers of %zu bytes", B.bytes);
    for (size_t i = 0; i < B.bytes / sizeof(float); i++)
        ((float *) B.s)[i] = ((float *) B.r)[i] = 1.0f;

    /* sizes in increasing order; each gets the ranks from itself to the next size - 1 */
    for (int i = 0; i < o.ncomm; i++)
        for (int j = i + 1; j < o.ncomm; j++)
            if (o.comm_sizes[j] < o.comm_sizes[i]) {
                int t = o.comm_sizes[i];
                o.comm_sizes[i] = o.comm_sizes[j];
                o.comm_sizes[j] = t;
            }
    for (int ci = 0; ci < o.ncolls; ci++) {
        static struct point g[MAX_GRID];
        points_total += o.ncomm * make_grid(o.colls[ci], g);
    }

    t_start = PMPI_Wtime();
    if (world_rank == 0 && !o.quiet)
        fprintf(stderr, "autoopt-tune: %d collective%s, %d communicator size%s, %llu-%llu B, "
                "tolerance %.0f %%%s\n", o.ncolls, o.ncolls > 1 ? "s" : "", o.ncomm,
                o.ncomm > 1 ? "s" : "", (unsigned long long) o.lo, (unsigned long long) o.hi,
                100 * o.tolerance, o.budget > 0 ? ", with a budget" : "");
    for (int si = 0; si < o.ncomm; si++) {
        int p = o.comm_sizes[si];
        int ranks_hi = si + 1 < o.ncomm ? o.comm_sizes[si + 1] - 1 : p;
        MPI_Comm sub;
        PMPI_Comm_split(MPI_COMM_WORLD, world_rank < p ? 0 : MPI_UNDEFINED, world_rank, &sub);
        if (sub != MPI_COMM_NULL) {
            for (int ci = 0; ci < o.ncolls; ci++)
                tune_one(o.colls[ci], p, p, ranks_hi, sub);
            PMPI_Comm_free(&sub);
        }
        /* the ranks outside this size's communicator learn whether the budget ran out, so
         * that every rank of the next, larger communicator asks budget_left alike */
        PMPI_Allreduce(MPI_IN_PLACE, &out_of_time, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    double seconds = PMPI_Wtime() - t_start;
    if (world_rank == 0 && !o.quiet) {
        if (on_tty)
            fputc('\n', stderr);
        fprintf(stderr, "autoopt-tune: %.0f s (%.0f s in timed calls); parameter search: %ld "
                "measurements for %ld values; the race dropped %ld candidates early\n", seconds,
                measured_seconds, gss_evaluations, gss_values, raced);
        if (check_points)
            fprintf(stderr, "autoopt-tune: check of the parameter search: the exhaustive best "
                    "found at %ld of %ld points; time of the value found over the best: mean "
                    "+%.1f %%, worst +%.1f %%\n", check_hits, check_points,
                    100 * check_pen_sum / check_points, 100 * check_pen_max);
    }
    if (world_rank == 0 && skipped_points)
        say_budget();
    write_output(seconds);
    if (world_rank == 0 && !o.quiet)
        fprintf(stderr, "autoopt-tune: wrote %s\n", o.out);
    if (rawf)
        fclose(rawf);
    /* the rules must not outlive the table autoopt reads them from */
    aot_tools_set_tuning(NULL);
    for (size_t i = 0; i < rules.n; i++)
        free((char *) rules.rules[i].note);
    aot_tuning_free(&rules);
    MPI_Finalize();
    return 0;
}
