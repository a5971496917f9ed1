/*
 * aot_tuner_core.h: the pure core of the empirical tuner (autoopt-tune, docs/tuning.md): statistics
 * of repeated timings, the parameter search, the crossover search, pruning, the raw measurement
 * file and the rules derived from a row of measurements.  No MPI calls and no global state, so
 * that every part is unit-tested on synthetic timing tables (tests/unit/test_tune.c).  Only the
 * offline tuner uses it: online tuning (aot_online.h) scores its candidates by its own rule.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every decision here is a function of its inputs alone.  The driver feeds it times that all
 * ranks agree on (the maximum over ranks of each repetition), so every rank takes the same
 * decisions in the same order without further communication.
 */
#ifndef AOT_TUNE_H_INCLUDED
#define AOT_TUNE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- estimates */

/* The median of n repetition times and its 95 % confidence interval, distribution-free: the
 * order statistics x(j) and x(k) around the median with j = floor(n/2 - 0.98 sqrt(n)) and
 * k = ceil(n/2 + 1 + 0.98 sqrt(n)) (1-based, the normal approximation of the binomial(n, 1/2)
 * quantiles), clamped to [1, n].  With fewer than 6 values the interval is [min, max]. */
struct aot_tune_est {
    double median, lo, hi;
    int n;
};

/* Sorts x[0..n) in place and fills e.  n >= 1. */
void aot_tune_estimate(double *x, int n, struct aot_tune_est *e);

/* 1 when the interval's half-width (hi - lo) / 2 is at most tol * median. */
int aot_tune_precise(const struct aot_tune_est *e, double tol);

/* 1 when a is faster than b beyond doubt: a's whole interval lies below b's. */
int aot_tune_surely_faster(const struct aot_tune_est *a, const struct aot_tune_est *b);

/* Measured advantage of a over b, in percent of b's median: 100 * (b - a) / b. */
double aot_tune_advantage(const struct aot_tune_est *a, const struct aot_tune_est *b);

/*
 * The ratio of two ways of making a call timed in turns in one launch (autoopt-bench-coll
 * --same-launch: the tuned call and MPI's own, ABBA): a[i] / b[i] for each pair of neighbouring
 * turns, their median and its interval (aot_tune_estimate) in e.  A burst of foreign load that
 * spoils one turn spoils one ratio; in the ratio of the sums that turn decides (docs/tuning.md,
 * "Checking a file").  Pairs with a time <= 0 (or not a number) are left out.  ratios: room for
 * n values, sorted on return.  Returns the number of pairs used; 0 leaves e->n at 0.
 */
int aot_tune_paired_ratio(const double *a, const double *b, int n, double *ratios,
                          struct aot_tune_est *e);

/* ---------------------------------------------------------------- the two timings */

/*
 * Every candidate is timed two ways (docs/tuning.md, "Timing"): each call followed by a barrier
 * (sep: a call cannot overlap the next one, as OSU and autoopt-bench-coll time it) and k calls
 * back to back after one barrier (b2b: as a program that calls in a loop; a call that does not
 * synchronise may overlap the next).  An algorithm replaces native only where it is surely
 * faster in both ways; an estimate with n == 0 was not measured and never wins.
 */
struct aot_tune_two {
    struct aot_tune_est sep, b2b;
};

/* 1 when a is surely faster than b (aot_tune_surely_faster) both barrier-separated and back
 * to back. */
int aot_tune_surely_faster_both(const struct aot_tune_two *a, const struct aot_tune_two *b);

/*
 * The choice at one point among c[0..n): native is MPI's own (every other is compared with
 * it), prev the previous point's choice (-1: none, or native).  A candidate qualifies when it
 * is surely faster than native both ways; among those the one whose slower way is the least
 * slow relative to native (the lowest max(sep / native's sep, b2b / native's b2b), by
 * median) is the best.  prev is kept while it qualifies and the best is not surely faster than
 * it both ways, so that algorithms equal within the error do not cut the sizes into many small
 * rules.  Returns the index chosen; native when none qualifies.
 */
int aot_tune_choose(const struct aot_tune_two *c, int n, int native, int prev);

/*
 * The crossover search's question (aot_tune_bisect) at one size: does R, the choice on the
 * right, win over L?  Against native (l_native or r_native) the algorithm wins only where it
 * is surely faster both ways; between two algorithms the lower sum of the two medians wins
 * (ties go right).
 */
int aot_tune_right_wins(const struct aot_tune_two *l, int l_native, const struct aot_tune_two *r,
                        int r_native);

/* ---------------------------------------------------------------- parameter search */

/*
 * Golden-section search for the minimum of a function of an integer index i in [lo, hi] (the
 * driver maps i to a parameter value on a log scale, e.g. 2^i bytes).  It assumes the times
 * are unimodal in i; each step measures one new index and discards the part of the range that
 * cannot hold the minimum; when the range holds at most 3 indices every one of them not yet
 * measured is measured, and the best measured index is the answer.  It needs about
 * 1.44 log2(hi - lo + 1) + 3 measurements instead of hi - lo + 1.
 *
 *   aot_tune_gss_init(&g, lo, hi);
 *   while ((i = aot_tune_gss_next(&g)) >= lo)          (lo - 1: done)
 *       aot_tune_gss_report(&g, i, time_of(i));
 *   best = aot_tune_gss_best(&g);
 *
 * Indices may be reported out of the order asked (a cached measurement); reporting an index
 * twice keeps the later time.
 */
#define AOT_TUNE_GSS_MAX 64        /* the largest range: hi - lo + 1 */
struct aot_tune_gss {
    int lo, hi;                    /* the whole range */
    int a, b;                      /* the bracket still searched, inclusive */
    double t[AOT_TUNE_GSS_MAX];    /* time of lo + k, valid where have[k] */
    unsigned char have[AOT_TUNE_GSS_MAX];
    int nmeasured;
};
/* 0, or -1 when the range is empty or wider than AOT_TUNE_GSS_MAX. */
int aot_tune_gss_init(struct aot_tune_gss *g, int lo, int hi);
/* The next index to measure, or lo - 1 when the search is over. */
int aot_tune_gss_next(struct aot_tune_gss *g);
void aot_tune_gss_report(struct aot_tune_gss *g, int i, double t);
/* The measured index with the lowest time (the lowest index among equals); lo - 1 if none. */
int aot_tune_gss_best(const struct aot_tune_gss *g);

/* ---------------------------------------------------------------- crossover search */

/*
 * Binary search for the message size where the winner changes (the paper's step 4.2): the
 * algorithm L wins at lo bytes, R at hi bytes.  Each step asks for one size between, on a log
 * scale (the geometric mean, rounded to a whole byte), and is told which of the two won there.
 * It stops when hi <= lo * (1 + resolution) or hi - lo <= 1.  The answer is the first size
 * that goes to R: L keeps [.., cross - 1].
 */
struct aot_tune_bisect {
    uint64_t lo, hi;               /* L won at lo, R at hi */
    double resolution;
};
void aot_tune_bisect_init(struct aot_tune_bisect *b, uint64_t lo, uint64_t hi,
                          double resolution);
/* The next size to measure, or 0 when the search is over. */
uint64_t aot_tune_bisect_next(const struct aot_tune_bisect *b);
/* right_won: 1 when R was at least as fast as L at `bytes`. */
void aot_tune_bisect_report(struct aot_tune_bisect *b, uint64_t bytes, int right_won);
/* The first size given to R. */
uint64_t aot_tune_bisect_cross(const struct aot_tune_bisect *b);

/* ---------------------------------------------------------------- rules from a row */

/*
 * The byte ranges of one collective's rules, from its grid: the powers of two of --sizes (as
 * autoopt-bench-coll counts them; the sizes where MPI's own choice of algorithm may change),
 * increasing.  g[i].measured: the point was decided (the budget may leave points out);
 * g[i].choice: an id of its choice (equal ids: the same algorithm and parameter); g[i].cross,
 * for a measured point right after a measured one with another choice: the first size the
 * crossover search gave to this point's choice (0: none searched, the point itself).
 *
 * A range only spans sizes between two measured grid points with no grid point between
 * them, so no rule reaches over a size it was not measured at: a point's choice extends
 * down to the crossover from its measured left neighbour (or down to it, with the same
 * choice); a point whose left neighbour was not measured starts its range at itself, and the
 * sizes between run native (no rule).  The first grid point, when measured and at most
 * 8 bytes, starts at 0.  out[k] = {lo, hi, first, last}: the measured points first..last
 * (indices into g) chose what out[k] runs.  Returns the number of ranges (at most n).
 */
struct aot_tune_gridpt {
    uint64_t bytes;
    int measured;
    int choice;
    uint64_t cross;
};
struct aot_tune_span {
    uint64_t lo, hi;
    int first, last;
};
int aot_tune_spans(const struct aot_tune_gridpt *g, int n, struct aot_tune_span *out);

/* ---------------------------------------------------------------- pruning */

/* Whether a candidate may be skipped at a grid point between two measured neighbours: its
 * time is more than `factor` times the best time at both of them.  A neighbour where the
 * candidate was not measured (time <= 0) keeps it. */
int aot_tune_pruned(double t_left, double best_left, double t_right, double best_right,
                    double factor);

/* ---------------------------------------------------------------- racing */

/*
 * Racing the candidates of one point (after F-Race: drop a contender as soon as the data say
 * it cannot win): e[0..n) are the estimates after the same number of repetitions; alive[i] is
 * 1 for a candidate still being measured.  The leader is the live candidate with the lowest
 * median; every other live candidate whose interval's low end lies above `factor` times the
 * leader's high end is dropped (alive[i] = 0), except where keep[i] is set (native, which every
 * rule is compared with).  Returns the number still alive.  With factor >= 1 a candidate is
 * dropped only when all of its interval lies beyond the leader's whole interval.
 */
int aot_tune_race(const struct aot_tune_est *e, int n, const unsigned char *keep,
                  unsigned char *alive, double factor);

/* ---------------------------------------------------------------- raw measurements */

/*
 * One line per measurement point of one candidate (docs/tuning.md, "The raw file"):
 *
 *   m <collective> <algorithm> <param> <ranks> <bytes> <median_us> <lo_us> <hi_us> <reps>
 *     <b2b_median_us> <b2b_lo_us> <b2b_hi_us> <b2b_reps>
 *
 * e.g. "m bcast chain 16384 4 65536 41.2 40.8 41.9 12 38.5 38.1 39.7 12"; param is 0 for an
 * algorithm without one; the first estimate is barrier-separated, the second back to back.
 * The reader takes param 0..2^40, ranks 1..2^30, bytes 0..2^62, times >= 0 with
 * lo <= median <= hi and a median above 0, reps 1..2^30.  A line of version 1 (the first 10
 * fields only, barrier-separated) also parses, with b2b.n = 0; the writer writes one for an
 * estimate with b2b.n = 0.  The file starts with "autoopt-tune-raw 2" (version 1:
 * "autoopt-tune-raw 1") and '#' lines of context.
 */
#define AOT_TUNE_RAW_VERSION 2
/* The largest raw file read (autoopt-tune --resume, autoopt-tune encode): about a million
 * measurements. */
#define AOT_TUNE_RAW_MAX_BYTES ((size_t) 64 << 20)
#define AOT_TUNE_NAME_MAX 48
struct aot_tune_raw {
    char coll[AOT_TUNE_NAME_MAX], alg[AOT_TUNE_NAME_MAX];
    long param;
    int ranks;
    uint64_t bytes;
    struct aot_tune_est est;    /* barrier-separated */
    struct aot_tune_est b2b;    /* back to back; n == 0: not in the line (version 1) */
};
/* Writes the line (with its newline) into buf; the length, or -1 when it does not fit. */
int aot_tune_raw_format(const struct aot_tune_raw *r, char *buf, size_t len);
/* Parses one line without its newline.  0, or -1 with the reason in err
 * ("expected 10 or 14 fields, found 7", "median_us: not a positive number"). */
int aot_tune_raw_parse(const char *line, struct aot_tune_raw *r, char *err, size_t errlen);

#endif /* AOT_TUNE_H_INCLUDED */
