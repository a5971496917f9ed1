/*
 * encode.c: "autoopt-tune encode": decision encodings of the measurements in raw files
 * (docs/tuning.md, "Decision encodings"): per collective the quadtree paper's Table 2 for
 * each encoding asked, the maps as CSV, and one encoding as a tuning file or as C.  The
 * encodings themselves are the pure core tools/lib/coll_encode.c (aot_encode.h); this file
 * reads files, names methods as the tuning file does (the registry), and writes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   autoopt-tune encode --table run.raw
 *   autoopt-tune encode -o run.tune --encoding penalty:depth=3 run.raw
 *
 * Two options for the tests (tests/mpi/tools/encode_test.sh), not in --help: --check reads
 * the file -o wrote back with autoopt's reader and compares its rule at every grid point and
 * between grid points with the encoding's own lookup; --check-points FILE writes those points
 * with the encoding's method ("coll ranks bytes method" lines) for a driver of the C.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aot_config.h"
#include "aot_encode.h"
#include "aot_files.h"
#include "aot_tuner_core.h"
#include "aot_tools.h"
#include "aot_tuning_file.h"
#include "tune_export.h"

#define MAX_SPECS 256
#define MAX_COLLS 64

/* ---------------------------------------------------------------- messages */

/* "autoopt-tune encode: <message><tail>" on stderr, then exit(status). */
__attribute__((noreturn))
static void quit(int status, const char *tail, const char *fmt, va_list ap)
{
    fputs("autoopt-tune encode: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(tail, stderr);
    exit(status);
}

/* Bad input: exit status 1. */
__attribute__((noreturn, format(printf, 1, 2)))
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    quit(1, "\n", fmt, ap);
}

/* A bad command line: exit status 2. */
__attribute__((noreturn, format(printf, 1, 2)))
static void bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    quit(2, " (see --help)\n", fmt, ap);
}

static void usage(FILE *f)
{
    fputs(
"NAME\n"
"    autoopt-tune encode - encode measured decision maps as quadtrees, penalty-aware\n"
"    trees or interval rules, compare them, and write one as a tuning file or as C\n"
"\n"
"SYNOPSIS\n"
"    autoopt-tune encode [--coll LIST] [--quadtree DEPTHS] [--threshold PCTS]\n"
"                        [--pad square|axis] [--penalty-tree DEPTHS] [--rules LIMITS]\n"
"                        [--table] [--dump-map DIR]\n"
"                        [-o OUT.tune] [--emit-c OUT.c] [--encoding NAME] RAW...\n"
"\n"
"DESCRIPTION\n"
"    Reads the raw files of autoopt-tune (--raw; docs/tuning.md, \"The raw file\") and\n"
"    builds, per collective, the decision map: a row per communicator size, a column per\n"
"    message size, at each point the time of every method (algorithm and parameter) and\n"
"    the fastest one. Then it encodes the map as the quadtree of Pjesivac-Grbovic et al.\n"
"    (2007), as a penalty-aware tree, or as interval rules (the tuning file's own form),\n"
"    and measures what each encoding costs: its depth, its leaves, the lines of its C\n"
"    function and its performance penalty against the exact map, 100 x (t(chosen) -\n"
"    t(best)) / t(best) at each measured point. A method not measured at a point is never\n"
"    its best; an encoding that chooses it there is charged the slowest time measured\n"
"    there. Later records of the same method and point replace earlier ones; several RAW\n"
"    files are read as one. Runs without mpiexec. The definitions are in docs/tuning.md,\n"
"    \"Decision encodings\".\n"
"\n"
"ENCODINGS\n"
"    exact                      the exact map (the quadtree without limits)\n"
"    quadtree:depth=D           the paper's quadtree of at most D levels\n"
"    quadtree:threshold=P       ... whose blocks stop at P % of one colour (also both,\n"
"                               e.g. quadtree:depth=4:threshold=80)\n"
"    quadtree:...:pad=axis      each axis padded to its own power of two (default\n"
"                               pad=square: one 2^k x 2^k grid, as in the paper)\n"
"    penalty:depth=D            the tree of at most D levels with the least total\n"
"                               penalty (exact dynamic programming; greedy beyond a size\n"
"                               limit, which the table says)\n"
"    rules                      runs of equal fastest method per communicator size\n"
"    rules:limit=N              at most N rules, least-penalty merges first\n"
"\n"
"OPTIONS\n"
"    --coll LIST          collectives to encode, comma-separated (default: every one in\n"
"                         the raw files)\n"
"    --quadtree DEPTHS    quadtrees of these maximum depths, e.g. 1-6 or 2,4\n"
"    --threshold PCTS     quadtrees with these accuracy thresholds in percent, no depth\n"
"                         limit, e.g. 45,60,90\n"
"    --pad square|axis    padding of those quadtrees (default square; square,axis: both)\n"
"    --penalty-tree DEPTHS  penalty-aware trees of these maximum depths (1-16)\n"
"    --rules LIMITS       interval rules with these limits; 'unlimited' for none,\n"
"                         e.g. unlimited,16,8\n"
"                         Without any of these four options: exact, quadtree depths 1-6,\n"
"                         penalty trees 1-4, rules unlimited and 16; with any, exact and\n"
"                         the encodings asked.\n"
"    --table              print per collective a markdown table of every encoding: tree\n"
"                         depth min/mean/max (tests passed to reach a decision, mean\n"
"                         over the measured points), penalty min/mean/median/max in\n"
"                         percent, leaves (rules), function size in lines of C, and how\n"
"                         many decisions fell on a method not measured there (the\n"
"                         default when no output is asked)\n"
"    --dump-map DIR       write DIR/<coll>.map.csv: '# autoopt-tune encode map <coll>',\n"
"                         then 'encoding,ranks,bytes,method,time_us,best_us,penalty_pct'\n"
"                         and a row per encoding and measured point (DIR is created)\n"
"    --encoding NAME      the encoding that -o and --emit-c write (see ENCODINGS)\n"
"    -o OUT.tune          write the encoding as a tuning file (AUTOOPT_TUNING=OUT.tune);\n"
"                         barrier gets one 'bytes 0-inf' rule per ranks\n"
"                         range, the method with the least summed penalty over it\n"
"    --emit-c OUT.c       write the encoding as C11: per collective\n"
"                         const char *aot_builtin_decide_<coll>(int comm_size,\n"
"                                                 unsigned long long bytes)\n"
"                         returning \"alg\" or \"alg:param=value\", and\n"
"                         const char *aot_builtin_decide(const char *coll, int comm_size,\n"
"                                                 unsigned long long bytes)\n"
"    --time-decisions     time one decision of the --encoding three ways, per collective:\n"
"                         the in-memory tree walk (aot_encode_lookup), the tuning file's\n"
"                         interval rules as the library looks them up (aot_tuning_lookup,\n"
"                         two binary searches) and the emitted C function, compiled with\n"
"                         $CC (default cc) -O2 and loaded; 2^20 decisions at points\n"
"                         drawn at random at and between the grid points, best of 5\n"
"                         rounds, in ns per decision (a markdown table)\n"
"    -h, --help           this text\n"
"\n"
"RANGES\n"
"    Column j of the map covers the message sizes from its size b_j to b_(j+1) - 1 (the\n"
"    first from 0, the last to infinity); row i the communicator sizes from r_i to\n"
"    r_(i+1) - 1 (the first from 1, the last to infinity). Every leaf or rule is a\n"
"    rectangle of cells and becomes a rule with these ranges.\n"
"\n"
"EXIT STATUS\n"
"    0 on success, 1 for bad input (named with its file and line: 'run.raw:12: ...'),\n"
"    2 for a bad command line.\n"
"\n"
"EXAMPLES\n"
"    autoopt-tune encode --table --quadtree 1-6 --pad square,axis run.raw\n"
"    autoopt-tune encode --dump-map maps/ --threshold 45,90 run.raw\n"
"    autoopt-tune encode -o run.tune --encoding penalty:depth=3 run.raw\n"
"    AUTOOPT_TUNING=run.tune LD_PRELOAD=libautoopt.so mpiexec.mpich -n 8 ./app\n"
"    autoopt-tune encode --emit-c decide.c --encoding rules:limit=16 run.raw\n",
          f);
}

/* ---------------------------------------------------------------- options */

struct opts {
    const char *colls, *dump, *out, *emit, *encoding, *check_points;
    int table, check, asked, time_decisions;
    struct aot_encode_spec specs[MAX_SPECS];
    int nspecs;
    const char **raw;
    int nraw;
};

static void add_spec(struct opts *o, const struct aot_encode_spec *s)
{
    if (o->nspecs == MAX_SPECS)
        bad_usage("more than %d encodings asked", MAX_SPECS);
    o->specs[o->nspecs++] = *s;
}

/* "1-6", "2,4", "1-3,6" within [lo, hi]. */
static int parse_ints(const char *opt, const char *arg, int lo, int hi, int *out, int max)
{
    int n = 0;
    const char *s = arg;
    for (;;) {
        char *end;
        long a, b;
        if (*s < '0' || *s > '9')
            goto bad;
        a = b = strtol(s, &end, 10);
        if (*end == '-') {
            s = end + 1;
            if (*s < '0' || *s > '9')
                goto bad;
            b = strtol(s, &end, 10);
        }
        if (a < lo || b > hi || a > b)
            goto bad;
        for (long v = a; v <= b; v++) {
            if (n == max)
                goto bad;
            out[n++] = (int) v;
        }
        if (*end == '\0')
            return n;
        if (*end != ',')
            goto bad;
        s = end + 1;
    }
bad:
    bad_usage("%s: '%s' is not a list of integers %d..%d (e.g. 1-6 or 1,3,5)", opt, arg, lo, hi);
}

static void parse_options(int argc, char **argv, struct opts *o)
{
    int nq = 0, np = 0, pads[2] = {1, 0};
    double thr[64];
    int nthr = 0, limits[64], nlim = 0, have_pad = 0;
    int qdepth[64], pdepth[64];

    memset(o, 0, sizeof(*o));
    o->raw = calloc((size_t) argc, sizeof(*o->raw));
    if (!o->raw)
        fail("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **val = strcmp(a, "--coll") == 0           ? &o->colls
                           : strcmp(a, "--dump-map") == 0     ? &o->dump
                           : strcmp(a, "-o") == 0             ? &o->out
                           : strcmp(a, "--emit-c") == 0       ? &o->emit
                           : strcmp(a, "--encoding") == 0     ? &o->encoding
                           : strcmp(a, "--check-points") == 0 ? &o->check_points
                                                              : NULL;
        int takes = val || strcmp(a, "--quadtree") == 0 || strcmp(a, "--threshold") == 0
                    || strcmp(a, "--pad") == 0 || strcmp(a, "--penalty-tree") == 0
                    || strcmp(a, "--rules") == 0;
        const char *v;

        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(a, "--table") == 0) {
            o->table = 1;
            continue;
        }
        if (strcmp(a, "--time-decisions") == 0) {
            o->time_decisions = 1;
            continue;
        }
        if (strcmp(a, "--check") == 0) {
            o->check = 1;
            continue;
        }
        if (!takes) {
            if (a[0] == '-' && a[1] != '\0')
                bad_usage("unknown option '%s'", a);
            o->raw[o->nraw++] = a;
            continue;
        }
        if (i + 1 >= argc)
            bad_usage("%s needs a value", a);
        v = argv[++i];
        if (val) {
            *val = v;
        } else if (strcmp(a, "--quadtree") == 0) {
            nq = parse_ints(a, v, 1, 32, qdepth, 64);
            o->asked = 1;
        } else if (strcmp(a, "--penalty-tree") == 0) {
            np = parse_ints(a, v, 1, 16, pdepth, 64);
            o->asked = 1;
        } else if (strcmp(a, "--threshold") == 0) {
            char copy[512], *save = NULL;
            nthr = 0;
            snprintf(copy, sizeof(copy), "%s", v);
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                char *end;
                double d = strtod(t, &end);
                if (end == t || *end || !(d > 0 && d <= 100) || nthr == 64)
                    bad_usage("--threshold: '%s' is not a list of percentages above 0, at most "
                              "100 (e.g. 45,90)", v);
                thr[nthr++] = d;
            }
            if (nthr == 0)
                bad_usage("--threshold: '%s' is not a list of percentages", v);
            o->asked = 1;
        } else if (strcmp(a, "--pad") == 0) {
            if (strcmp(v, "square") == 0) {
                pads[0] = 1, pads[1] = 0;
            } else if (strcmp(v, "axis") == 0) {
                pads[0] = 0, pads[1] = 1;
            } else if (strcmp(v, "square,axis") == 0 || strcmp(v, "axis,square") == 0) {
                pads[0] = pads[1] = 1;
            } else {
                bad_usage("--pad: '%s': expected square, axis or square,axis", v);
            }
            have_pad = 1;
        } else {    /* --rules */
            char copy[512], *save = NULL;
            nlim = 0;
            snprintf(copy, sizeof(copy), "%s", v);
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                long x;
                char *end;
                if (strcmp(t, "unlimited") == 0 || strcmp(t, "inf") == 0) {
                    x = 0;
                } else {
                    x = strtol(t, &end, 10);
                    if (*t < '0' || *t > '9' || *end || x < 1 || x > INT_MAX)
                        bad_usage("--rules: '%s' is not a list of rule limits >= 1 or "
                                  "'unlimited' (e.g. unlimited,16)", v);
                }
                if (nlim == 64)
                    bad_usage("--rules: more than 64 limits");
                limits[nlim++] = (int) x;
            }
            if (nlim == 0)
                bad_usage("--rules: '%s' is not a list of rule limits", v);
            o->asked = 1;
        }
    }
    if (o->nraw == 0)
        bad_usage("give at least one raw file");
    if ((o->out || o->emit || o->check_points || o->time_decisions) && !o->encoding)
        bad_usage("-o, --emit-c and --time-decisions need --encoding NAME");
    if (o->encoding && !o->out && !o->emit && !o->check_points && !o->time_decisions)
        bad_usage("--encoding names what -o, --emit-c or --time-decisions uses: give one of "
                  "them");
    if (o->check && !o->out)
        bad_usage("--check checks the file -o writes");
    if (have_pad && !nq && !nthr && o->asked)
        bad_usage("--pad applies to --quadtree and --threshold: give one of them");
    if (!o->table && !o->dump && !o->out && !o->emit && !o->check_points && !o->time_decisions)
        o->table = 1;
    /* the files written, checked before any work (src/files.c): a device, FIFO, socket or
     * directory there is refused and left as it is; a symbolic link is followed */
    const char *outs[][2] = {{"-o", o->out}, {"--emit-c", o->emit},
                             {"--check-points", o->check_points}};
    for (size_t k = 0; k < sizeof(outs) / sizeof(outs[0]); k++) {
        char err[600];
        if (outs[k][1] && aot_file_check_writable(outs[k][1], err, sizeof(err)) != 0)
            fail("%s %s", outs[k][0], err);
    }

    /* the encodings of the table and the maps */
    struct aot_encode_spec s = {AOT_ENCODE_EXACT, 0, 100, AOT_ENCODE_PAD_SQUARE, 0};
    add_spec(o, &s);
    if (!o->asked) {
        nq = np = 0;
        for (int d = 1; d <= 6; d++)
            qdepth[nq++] = d;
        for (int d = 1; d <= 4; d++)
            pdepth[np++] = d;
        nlim = 2;
        limits[0] = 0;
        limits[1] = 16;
    }
    for (int p = 0; p < 2; p++) {
        if (!pads[p])
            continue;
        for (int k = 0; k < nq; k++) {
            s = (struct aot_encode_spec){AOT_ENCODE_QUADTREE, qdepth[k], 100,
                                         p ? AOT_ENCODE_PAD_AXIS : AOT_ENCODE_PAD_SQUARE, 0};
            add_spec(o, &s);
        }
        for (int k = 0; k < nthr; k++) {
            s = (struct aot_encode_spec){AOT_ENCODE_QUADTREE, 0, thr[k],
                                         p ? AOT_ENCODE_PAD_AXIS : AOT_ENCODE_PAD_SQUARE, 0};
            add_spec(o, &s);
        }
    }
    for (int k = 0; k < np; k++) {
        s = (struct aot_encode_spec){AOT_ENCODE_PENALTY, pdepth[k], 100, AOT_ENCODE_PAD_SQUARE, 0};
        add_spec(o, &s);
    }
    for (int k = 0; k < nlim; k++) {
        s = (struct aot_encode_spec){AOT_ENCODE_RULES, 0, 100, AOT_ENCODE_PAD_SQUARE, limits[k]};
        add_spec(o, &s);
    }
}

/* ---------------------------------------------------------------- collectives */

struct coll {
    struct aot_encode_map map;
    int kind;                   /* enum aot_coll_kind, -1 for a name autoopt does not know */
    char **labels;              /* [nmethods]: as the tuning file writes the method */
    const char **clabels;       /* the same, const */
    struct aot_encoding enc;    /* the --encoding one */
};

/* "alg" or "alg:param=value" as the tuning file writes it: an algorithm with a parameter
 * always names it (imamura_hybrid1:j=0 is not its default j=1); one the registry does not
 * know is "alg" or "alg:param=value". */
static char *method_label(int kind, const struct aot_encode_method *mt)
{
    char buf[160];
    int alg = kind >= 0 ? aot_tools_find_alg(kind, mt->alg, strlen(mt->alg)) : -1;
    int known = alg >= 0 && (aot_tools_alg_param(alg, NULL) || mt->param == 0)
                && aot_tools_format_choice(alg, mt->param, buf, sizeof(buf)) == 0;
    char *l;

    if (!known && mt->param)
        snprintf(buf, sizeof(buf), "%s:param=%ld", mt->alg, mt->param);
    else if (!known)
        snprintf(buf, sizeof(buf), "%s", mt->alg);
    l = strdup(buf);
    if (!l)
        fail("out of memory");
    return l;
}

static int sizeless(int kind)
{
    return kind == AOT_COLL_BARRIER;
}

/* The collectives to encode: --coll, else every one of the records (autoopt's order first,
 * then others in the order they appear). */
static int pick_colls(const struct opts *o, const struct aot_encode_raw *raw,
                      char names[][AOT_TUNE_NAME_MAX])
{
    int n = 0;
    if (o->colls) {
        char copy[1024], *save = NULL;
        snprintf(copy, sizeof(copy), "%s", o->colls);
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            int found = 0;
            if (n == MAX_COLLS)
                bad_usage("--coll: more than %d collectives", MAX_COLLS);
            for (size_t i = 0; i < raw->n && !found; i++)
                found = strcmp(raw->rec[i].coll, t) == 0;
            if (!found)
                fail("--coll: no measurements of '%s' in the raw files", t);
            snprintf(names[n++], AOT_TUNE_NAME_MAX, "%s", t);
        }
        if (n == 0)
            bad_usage("--coll: '%s' names no collective", o->colls);
        return n;
    }
    for (int kind = 0; kind <= AOT_COLL_NKINDS; kind++)
        for (size_t i = 0; i < raw->n; i++) {
            const char *c = raw->rec[i].coll;
            int k = aot_tools_find_kind(c, strlen(c)), dup = 0;
            if ((kind < AOT_COLL_NKINDS && k != kind) || (kind == AOT_COLL_NKINDS && k >= 0))
                continue;
            for (int j = 0; j < n && !dup; j++)
                dup = strcmp(names[j], c) == 0;
            if (dup)
                continue;
            if (n == MAX_COLLS)
                fail("more than %d collectives in the raw files", MAX_COLLS);
            snprintf(names[n++], AOT_TUNE_NAME_MAX, "%s", c);
        }
    return n;
}

/* ---------------------------------------------------------------- the table */

static const char *built(const struct aot_encoding *e, char *buf, size_t len)
{
    switch (e->spec.kind) {
    case AOT_ENCODE_EXACT:
    case AOT_ENCODE_QUADTREE:
        snprintf(buf, len, "%dx%d grid", e->pad_rows, e->pad_cols);
        break;
    case AOT_ENCODE_PENALTY:
        snprintf(buf, len, "%s", e->greedy ? "greedy (beyond the DP limit)" : "exact DP");
        break;
    case AOT_ENCODE_RULES:
        snprintf(buf, len, "%s", e->spec.limit ? "least-penalty merges" : "-");
        break;
    }
    return buf;
}

static void print_header(const struct coll *c)
{
    const struct aot_encode_map *m = &c->map;
    long pairs = (long) m->points * m->nmethods;

    printf("## %s\n\n", m->coll);
    if (m->nrows <= 10) {
        printf("Communicator sizes: ");
        for (int i = 0; i < m->nrows; i++)
            printf("%s%d", i ? ", " : "", m->ranks[i]);
    } else {
        printf("Communicator sizes: %d from %d to %d", m->nrows, m->ranks[0],
               m->ranks[m->nrows - 1]);
    }
    printf("; message sizes: %d from %llu to %llu B; methods: %d. Points measured: %d; dropped "
           "(no measurement): %d; (point, method) pairs not measured: %ld of %ld; records "
           "replaced by a later one: %ld.\n\n", m->ncols, (unsigned long long) m->bytes[0],
           (unsigned long long) m->bytes[m->ncols - 1], m->nmethods, m->points, m->dropped,
           m->missing, pairs, m->replaced);
    printf("| encoding | depth min | depth mean | depth max | penalty min %% | penalty mean %% "
           "| penalty median %% | penalty max %% | leaves (rules) | function lines | on "
           "missing | built |\n");
    printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
}

static void print_row(const struct aot_encoding *e, const struct aot_encode_stats *st)
{
    char name[96], how[64];
    if (aot_encode_spec_format(&e->spec, name, sizeof(name)) != 0)
        snprintf(name, sizeof(name), "?");
    printf("| %s | %d | %.4f | %d | %.2f | %.2f | %.2f | %.2f | %d | %d | %d | %s |\n", name,
           st->depth_min, st->depth_mean, st->depth_max, st->pen_min, st->pen_mean,
           st->pen_median, st->pen_max, st->leaves, st->lines, st->on_missing,
           built(e, how, sizeof(how)));
}

/* ---------------------------------------------------------------- the CSV maps */

struct csv_job {
    const struct coll *c;
    const struct aot_encoding *encs;
    int n;
};

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void emit_csv(FILE *f, void *arg)
{
    const struct csv_job *job = arg;
    const struct aot_encode_map *m = &job->c->map;
    char name[96];

    fprintf(f, "# autoopt-tune encode map %s\n", m->coll);
    fputs("encoding,ranks,bytes,method,time_us,best_us,penalty_pct\n", f);
    for (int k = 0; k < job->n; k++) {
        if (aot_encode_spec_format(&job->encs[k].spec, name, sizeof(name)) != 0)
            continue;
        for (int i = 0; i < m->nrows; i++)
            for (int j = 0; j < m->ncols; j++) {
                int meth, p = i * m->ncols + j;
                if (!aot_encode_real(m, i, j))
                    continue;
                meth = aot_encode_lookup(m, &job->encs[k], m->ranks[i], m->bytes[j], NULL);
                fprintf(f, "%s,%d,%llu,", name, m->ranks[i], (unsigned long long) m->bytes[j]);
                csv_field(f, job->c->labels[meth]);
                fprintf(f, ",%.9g,%.9g,%.6g\n", aot_encode_time(m, i, j, meth),
                        m->time[(size_t) p * m->nmethods + m->best[p]],
                        aot_encode_penalty(m, i, j, meth));
            }
    }
}

/* DIR/COLL.map.csv, the file --dump-map writes for a collective. */
static void csv_path(const char *dir, const char *coll, char *path, size_t len)
{
    char file[AOT_TUNE_NAME_MAX];

    /* a collective's name as a file name: no directory separators */
    snprintf(file, sizeof(file), "%s", coll);
    for (char *s = file; *s; s++)
        if (*s == '/')
            *s = '_';
    if (snprintf(path, len, "%s/%s.map.csv", dir, file) >= (int) len)
        fail("--dump-map: %s: name too long", dir);
}

static void write_csv(const char *dir, const struct coll *c, const struct aot_encoding *encs,
                      int n)
{
    char path[4096], err[600];
    struct csv_job job = {c, encs, n};

    csv_path(dir, c->map.coll, path, sizeof(path));
    if (aot_file_replace(path, emit_csv, &job, err, sizeof(err)) != 0)
        fail("--dump-map %s", err);
}

/* ---------------------------------------------------------------- tuning file and checks */

/* What the tuning file's rule must be at a point: the encoding's lookup, or for a collective
 * that takes 'bytes 0-inf' only, the rules it was collapsed to. */
struct expect {
    const struct coll *c;
    struct aot_encode_rule *flat;
    int nflat, sizeless;
};

static int expected(const struct expect *x, int comm_size, uint64_t bytes)
{
    if (x->sizeless)
        return aot_encode_rules_lookup(&x->c->map, x->flat, x->nflat, comm_size, bytes, NULL);
    return aot_encode_lookup(&x->c->map, &x->c->enc, comm_size, bytes, NULL);
}

static void write_tuning(const char *path, struct coll *cs, int n, struct expect *ex)
{
    struct aot_tuning t;
    char err[512];

    aot_tuning_init(&t);
    for (int k = 0; k < n; k++) {
        struct coll *c = &cs[k];
        const struct aot_encode_map *m = &c->map;
        if (c->kind < 0)
            fail("-o: '%s' is not a collective autoopt knows (leave it out with --coll)",
                 m->coll);
        ex[k].c = c;
        ex[k].sizeless = sizeless(c->kind);
        if (aot_encode_flatten(m, &c->enc, ex[k].sizeless, &ex[k].flat, &ex[k].nflat) != 0)
            fail("out of memory");
        for (int i = 0; i < ex[k].nflat; i++) {
            const struct aot_encode_rule *r = &ex[k].flat[i];
            const struct aot_encode_method *mt = &m->methods[r->method];
            struct aot_tuning_rule tr = {.kind = c->kind, .line = 0, .note = NULL};
            tr.alg = aot_tools_find_alg(c->kind, mt->alg, strlen(mt->alg));
            if (tr.alg < 0)
                fail("-o: %s %s is not an algorithm of this autoopt (docs/collectives.md)",
                     m->coll, mt->alg);
            tr.param = mt->param;
            aot_encode_ranges(m, r, &tr.ranks_lo, &tr.ranks_hi, &tr.bytes_lo, &tr.bytes_hi);
            if (aot_tuning_add(&t, &tr, err, sizeof(err)) != 0)
                fail("-o: %s %s: %s", m->coll, c->labels[r->method], err);
        }
    }
    if (aot_tuning_save(&t, path, err, sizeof(err)) != 0)
        fail("%s", err);
    aot_tuning_free(&t);
}

/* Points to check: every grid point, its neighbours and the midpoints between grid points,
 * below the first and far beyond the last; every communicator size with every message size. */
struct points {
    int *ranks, nranks;
    uint64_t *bytes;
    int nbytes;
};

static void points_make(const struct aot_encode_map *m, struct points *p)
{
    p->ranks = malloc((size_t) (5 * m->nrows + 2) * sizeof(*p->ranks));
    p->bytes = malloc((size_t) (5 * m->ncols + 3) * sizeof(*p->bytes));
    if (!p->ranks || !p->bytes)
        fail("out of memory");
    p->nranks = p->nbytes = 0;
    p->ranks[p->nranks++] = 1;
    for (int i = 0; i < m->nrows; i++) {
        long r = m->ranks[i];
        long next = i + 1 < m->nrows ? m->ranks[i + 1] : r + 1000;
        long cand[] = {r - 1, r, r + 1, (r + next) / 2, next - 1};
        for (size_t k = 0; k < sizeof(cand) / sizeof(cand[0]); k++)
            if (cand[k] >= 1 && cand[k] <= INT_MAX)
                p->ranks[p->nranks++] = (int) cand[k];
    }
    p->ranks[p->nranks++] = INT_MAX;
    p->bytes[p->nbytes++] = 0;
    for (int j = 0; j < m->ncols; j++) {
        uint64_t b = m->bytes[j];
        uint64_t next = j + 1 < m->ncols ? m->bytes[j + 1] : (b < UINT64_MAX / 4 ? 2 * b + 7 : b);
        p->bytes[p->nbytes++] = b;
        if (b > 0)
            p->bytes[p->nbytes++] = b - 1;
        if (b < UINT64_MAX)
            p->bytes[p->nbytes++] = b + 1;
        p->bytes[p->nbytes++] = b + (next - b) / 2;
        if (next > 0)
            p->bytes[p->nbytes++] = next - 1;
    }
    p->bytes[p->nbytes++] = (uint64_t) 1 << 62;
    p->bytes[p->nbytes++] = UINT64_MAX;
}

static void points_free(struct points *p)
{
    free(p->ranks);
    free(p->bytes);
}

static void check_tuning(const char *path, struct expect *ex, int n)
{
    struct aot_tuning t;
    char err[512], got[256];
    long points = 0, bad = 0;

    aot_tuning_init(&t);
    if (aot_tuning_read(&t, path, err, sizeof(err)) != 0)
        fail("--check: the file written does not load: %s", err);
    for (int k = 0; k < n; k++) {
        const struct aot_encode_map *m = &ex[k].c->map;
        struct points pt;
        points_make(m, &pt);
        for (int i = 0; i < pt.nranks; i++)
            for (int j = 0; j < pt.nbytes; j++) {
                int p = pt.ranks[i];
                uint64_t b = pt.bytes[j];
                int want = expected(&ex[k], p, b);
                const struct aot_tuning_rule *r = aot_tuning_lookup(&t, ex[k].c->kind, p, b);
                const char *wl = ex[k].c->labels[want];
                points++;
                if (r) {
                    if (aot_tools_format_choice(r->alg, r->param, got, sizeof(got)) != 0)
                        snprintf(got, sizeof(got), "?");
                } else {
                    snprintf(got, sizeof(got), "(no rule)");
                }
                if (strcmp(got, wl) != 0 && ++bad <= 5)
                    fprintf(stderr, "autoopt-tune encode: --check: %s ranks %d bytes %llu: the "
                            "file runs %s, the encoding %s\n", m->coll, p,
                            (unsigned long long) b, got, wl);
            }
        points_free(&pt);
    }
    aot_tuning_free(&t);
    printf("encode check: %s: %ld points of %d collectives, %ld mismatches\n", path, points, n,
           bad);
    if (bad)
        exit(1);
}

struct points_job {
    const struct coll *cs;
    int n;
};

static void emit_points(FILE *f, void *arg)
{
    const struct points_job *job = arg;
    for (int k = 0; k < job->n; k++) {
        const struct coll *c = &job->cs[k];
        const struct aot_encode_map *m = &c->map;
        struct points pt;
        points_make(m, &pt);
        for (int i = 0; i < pt.nranks; i++)
            for (int j = 0; j < pt.nbytes; j++)
                fprintf(f, "%s %d %llu %s\n", m->coll, pt.ranks[i],
                        (unsigned long long) pt.bytes[j],
                        c->labels[aot_encode_lookup(m, &c->enc, pt.ranks[i], pt.bytes[j], NULL)]);
        points_free(&pt);
    }
}

/* ---------------------------------------------------------------- C */

struct c_job {
    const struct coll *cs;
    int n;
    const char *comment;
};

static void emit_c(FILE *f, void *arg)
{
    const struct c_job *job = arg;
    const struct aot_encode_map **maps = calloc((size_t) job->n + 1, sizeof(*maps));
    const struct aot_encoding **encs = calloc((size_t) job->n + 1, sizeof(*encs));
    const char *const **labels = calloc((size_t) job->n + 1, sizeof(*labels));

    if (!maps || !encs || !labels)
        fail("out of memory");
    for (int k = 0; k < job->n; k++) {
        maps[k] = &job->cs[k].map;
        encs[k] = &job->cs[k].enc;
        labels[k] = job->cs[k].clabels;
    }
    if (aot_encode_emit_c_file(f, job->n, maps, encs, labels, job->comment) != 0)
        fprintf(f, "\n#error \"autoopt-tune encode: the output failed\"\n");
    free(maps);
    free(encs);
    free(labels);
}

/* ---------------------------------------------------------------- --time-decisions */

#define TIME_QUERIES (1 << 20)
#define TIME_ROUNDS 5

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

typedef const char *decide_fn(int comm_size, unsigned long long bytes);

/* The emitted C of every collective, compiled into a shared object in a temporary directory
 * and loaded; its handle (the directory is removed at once). */
static void *compile_c(const struct coll *cs, int n, const char *encoding)
{
    char dir[] = "/tmp/autoopt-encode-XXXXXX", src[64], so[64], err[512];
    const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
    struct c_job job = {cs, n, encoding};
    pid_t pid;
    int status;
    void *h;

    if (!mkdtemp(dir))
        fail("--time-decisions: mkdtemp: %s", strerror(errno));
    snprintf(src, sizeof(src), "%s/decide.c", dir);
    snprintf(so, sizeof(so), "%s/decide.so", dir);
    if (aot_file_replace(src, emit_c, &job, err, sizeof(err)) != 0)
        fail("%s", err);
    pid = fork();
    if (pid == 0) {
        execlp(cc, cc, "-std=c11", "-O2", "-shared", "-fPIC", "-o", so, src, (char *) NULL);
        fprintf(stderr, "autoopt-tune encode: --time-decisions: cannot run %s: %s\n", cc,
                strerror(errno));
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)
        || WEXITSTATUS(status) != 0)
        fail("--time-decisions: compiling the emitted C with %s failed (set CC)", cc);
    h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        fail("--time-decisions: %s", dlerror());
    unlink(src);
    unlink(so);
    rmdir(dir);
    return h;
}

/* ns per decision, best of TIME_ROUNDS rounds over the queries; way 0: the tree walk, 1: the
 * library's interval lookup, 2: the compiled function.  *sink keeps the results alive. */
static double time_way(int way, const struct coll *c, const struct aot_tuning *t, decide_fn *fn,
                       const int *qr, const uint64_t *qb, unsigned long *sink)
{
    double best = 0;
    for (int round = 0; round < TIME_ROUNDS; round++) {
        unsigned long acc = 0;
        double t0 = now_ns();
        switch (way) {
        case 0:
            for (int i = 0; i < TIME_QUERIES; i++)
                acc += (unsigned long) aot_encode_lookup(&c->map, &c->enc, qr[i], qb[i], NULL);
            break;
        case 1:
            for (int i = 0; i < TIME_QUERIES; i++)
                acc += (unsigned long) (uintptr_t) aot_tuning_lookup(t, c->kind, qr[i], qb[i]);
            break;
        default:
            for (int i = 0; i < TIME_QUERIES; i++)
                acc += (unsigned long) (uintptr_t) fn(qr[i], qb[i]);
            break;
        }
        double ns = (now_ns() - t0) / TIME_QUERIES;
        *sink += acc;
        if (round == 0 || ns < best)
            best = ns;
    }
    return best;
}

static void time_decisions(struct coll *cs, int n, const char *encoding)
{
    struct expect *ex = calloc((size_t) n, sizeof(*ex));
    int *qr = malloc(TIME_QUERIES * sizeof(*qr));
    uint64_t *qb = malloc(TIME_QUERIES * sizeof(*qb));
    unsigned long sink = 0, seed = 88172645463325252UL;
    char tmp[] = "/tmp/autoopt-encode-tune-XXXXXX", err[512];
    void *h;

    if (!ex || !qr || !qb)
        fail("out of memory");
    /* the interval rules the library would load: written and read back as a file */
    int fd = mkstemp(tmp);
    if (fd < 0)
        fail("--time-decisions: mkstemp: %s", strerror(errno));
    close(fd);
    write_tuning(tmp, cs, n, ex);
    struct aot_tuning t;
    aot_tuning_init(&t);
    if (aot_tuning_read(&t, tmp, err, sizeof(err)) != 0)
        fail("--time-decisions: %s", err);
    unlink(tmp);
    h = compile_c(cs, n, encoding);

    printf("| collective | encoding | leaves | tuning-file rules | in-memory tree, ns | "
           "interval rules (library), ns | compiled C, ns |\n|---|---|--:|--:|--:|--:|--:|\n");
    for (int k = 0; k < n; k++) {
        const struct coll *c = &cs[k];
        char name[128];
        struct points pt;
        struct aot_encode_stats st;
        snprintf(name, sizeof(name), "aot_builtin_decide_%s", c->map.coll);
        for (char *q = name; *q; q++)
            if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')
                  || (*q >= '0' && *q <= '9') || *q == '_'))
                *q = '_';
        decide_fn *fn = (decide_fn *) dlsym(h, name);
        if (!fn)
            fail("--time-decisions: %s not in the compiled C", name);
        if (c->kind < 0)
            continue;
        /* queries: random (ranks, bytes) pairs of the check points (at, beside and between
         * the grid points), the same for every way */
        points_make(&c->map, &pt);
        for (int i = 0; i < TIME_QUERIES; i++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            qr[i] = pt.ranks[seed % (unsigned long) pt.nranks];
            qb[i] = pt.bytes[(seed >> 20) % (unsigned long) pt.nbytes];
        }
        points_free(&pt);
        /* the three ways must agree before they are timed */
        for (int i = 0; i < 4096; i++) {
            const char *want = c->labels[aot_encode_lookup(&c->map, &c->enc, qr[i], qb[i],
                                                           NULL)];
            const char *got = fn(qr[i], qb[i]);
            if (!got || strcmp(got, want) != 0)
                fail("--time-decisions: %s ranks %d bytes %llu: the C says %s, the tree %s",
                     c->map.coll, qr[i], (unsigned long long) qb[i], got ? got : "NULL", want);
        }
        if (aot_encode_stats(&c->map, &c->enc, &st) != 0)
            fail("out of memory");
        double w0 = time_way(0, c, &t, fn, qr, qb, &sink);
        double w1 = time_way(1, c, &t, fn, qr, qb, &sink);
        double w2 = time_way(2, c, &t, fn, qr, qb, &sink);
        printf("| %s | %s | %d | %d | %.1f | %.1f | %.1f |\n", c->map.coll, encoding, st.leaves,
               ex[k].nflat, w0, w1, w2);
    }
    fprintf(stderr, "autoopt-tune encode: %d queries x %d rounds per way (checksum %lu)\n",
            TIME_QUERIES, TIME_ROUNDS, sink & 0xffff);
    dlclose(h);
    aot_tuning_free(&t);
    for (int k = 0; k < n; k++)
        free(ex[k].flat);
    free(ex);
    free(qr);
    free(qb);
}

/* ---------------------------------------------------------------- the command */

int aot_tune_encode(int argc, char **argv)
{
    static char names[MAX_COLLS][AOT_TUNE_NAME_MAX];
    struct opts o;
    struct aot_encode_raw raw;
    struct aot_encode_spec chosen;
    struct coll *cs;
    char err[512];
    int ncoll;

    memset(&chosen, 0, sizeof(chosen));
    parse_options(argc, argv, &o);
    if (o.encoding && aot_encode_spec_parse(o.encoding, &chosen, err, sizeof(err)) != 0)
        bad_usage("--encoding %s", err);

    aot_encode_raw_init(&raw);
    for (int i = 0; i < o.nraw; i++) {
        char *text;
        size_t len;
        if (aot_file_slurp(o.raw[i], "raw file", AOT_TUNE_RAW_MAX_BYTES, &text, &len, err,
                           sizeof(err)) != 0)
            fail("%s", err);
        if (aot_encode_raw_parse(&raw, text, len, o.raw[i], err, sizeof(err)) != 0)
            fail("%s", err);
        if (raw.incomplete_line)
            fprintf(stderr, "autoopt-tune encode: %s:%d: incomplete last line ignored\n",
                    o.raw[i], raw.incomplete_line);
        free(text);
    }
    if (raw.n == 0)
        fail("%s: no measurements", o.raw[0]);
    if (o.dump && mkdir(o.dump, 0777) != 0 && errno != EEXIST)
        fail("--dump-map: %s: %s", o.dump, strerror(errno));

    ncoll = pick_colls(&o, &raw, names);
    for (int k = 0; o.dump && k < ncoll; k++) {     /* before any work, as the other outputs */
        char path[4096];
        csv_path(o.dump, names[k], path, sizeof(path));
        if (aot_file_check_writable(path, err, sizeof(err)) != 0)
            fail("--dump-map %s", err);
    }
    cs = calloc((size_t) ncoll, sizeof(*cs));
    if (!cs)
        fail("out of memory");
    for (int k = 0; k < ncoll; k++) {
        struct coll *c = &cs[k];
        struct aot_encoding *encs = NULL;

        if (aot_encode_map_build(&c->map, names[k], raw.rec, raw.n, err, sizeof(err)) != 0)
            fail("%s", err);
        c->kind = aot_tools_find_kind(names[k], strlen(names[k]));
        c->labels = calloc((size_t) c->map.nmethods, sizeof(*c->labels));
        c->clabels = calloc((size_t) c->map.nmethods, sizeof(*c->clabels));
        if (!c->labels || !c->clabels)
            fail("out of memory");
        for (int j = 0; j < c->map.nmethods; j++)
            c->clabels[j] = c->labels[j] = method_label(c->kind, &c->map.methods[j]);

        if (o.table || o.dump) {
            encs = calloc((size_t) o.nspecs, sizeof(*encs));
            if (!encs)
                fail("out of memory");
            if (o.table)
                print_header(c);
            for (int s = 0; s < o.nspecs; s++) {
                struct aot_encode_stats st;
                if (aot_encode_build(&c->map, &o.specs[s], &encs[s], err, sizeof(err)) != 0)
                    fail("%s", err);
                if (o.table) {
                    if (aot_encode_stats(&c->map, &encs[s], &st) != 0)
                        fail("out of memory");
                    print_row(&encs[s], &st);
                }
            }
            if (o.table)
                printf("\n");
            if (o.dump)
                write_csv(o.dump, c, encs, o.nspecs);
            for (int s = 0; s < o.nspecs; s++)
                aot_encoding_free(&encs[s]);
            free(encs);
        }
        if (o.encoding && aot_encode_build(&c->map, &chosen, &c->enc, err, sizeof(err)) != 0)
            fail("%s", err);
    }
    fflush(stdout);

    if (o.out) {
        struct expect *ex = calloc((size_t) ncoll, sizeof(*ex));
        if (!ex)
            fail("out of memory");
        write_tuning(o.out, cs, ncoll, ex);
        if (o.check)
            check_tuning(o.out, ex, ncoll);
        for (int k = 0; k < ncoll; k++)
            free(ex[k].flat);
        free(ex);
    }
    if (o.emit) {
        char comment[1024];
        struct c_job job = {cs, ncoll, comment};
        snprintf(comment, sizeof(comment), "Encoding %s of %s%s.", o.encoding, o.raw[0],
                 o.nraw > 1 ? " and more raw files" : "");
        if (aot_file_replace(o.emit, emit_c, &job, err, sizeof(err)) != 0)
            fail("%s", err);
    }
    if (o.time_decisions)
        time_decisions(cs, ncoll, o.encoding);
    if (o.check_points) {
        struct points_job job = {cs, ncoll};
        if (aot_file_replace(o.check_points, emit_points, &job, err, sizeof(err)) != 0)
            fail("%s", err);
    }

    for (int k = 0; k < ncoll; k++) {
        for (int j = 0; j < cs[k].map.nmethods; j++)
            free(cs[k].labels[j]);
        free(cs[k].labels);
        free(cs[k].clabels);
        aot_encoding_free(&cs[k].enc);
        aot_encode_map_free(&cs[k].map);
    }
    free(cs);
    free(o.raw);
    aot_encode_raw_free(&raw);
    return 0;
}
