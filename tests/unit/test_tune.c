/*
 * test_tune.c: the pure core of the empirical tuner (tools/lib/aot_tuner_core.h): estimates of
 * repeated timings, the golden-section parameter search, the crossover bisection, pruning and
 * the raw measurement line.  Black-box tests on synthetic timing tables; every expected answer
 * is computed by hand or by a small reference here.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_tuner_core.h"

/* ---------------------------------------------------------------- helpers */

/* ck_assert_msg for the hot loops: a passing ck_assert marks its place through a pipe to the
 * forked runner (a system call); this one costs nothing until it fails. */
#define expect(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond))                                                                           \
            ck_abort_msg(__VA_ARGS__);                                                         \
    } while (0)

/* xorshift64: deterministic, so every run sees the same tables. */
struct rng {
    uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
    uint64_t x = r->s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return r->s = x;
}

/* Uniform in [0, 1). */
static double rng_unit(struct rng *r)
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform in [lo, hi]. */
static int rng_int(struct rng *r, int lo, int hi)
{
    return lo + (int)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

static void shuffle(double *x, int n, struct rng *r)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rng_int(r, 0, i);
        double t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

static int close_rel(double a, double b, double rel)
{
    if (b == 0.0)
        return a == 0.0;
    return fabs(a - b) <= rel * fabs(b);
}

static struct aot_tune_est est(double median, double lo, double hi)
{
    struct aot_tune_est e = {.median = median, .lo = lo, .hi = hi, .n = 10};
    return e;
}

/* The header's order statistics: j = floor(n/2 - 0.98 sqrt(n)), k = ceil(n/2 + 1 + 0.98 sqrt(n)),
 * 1-based, clamped to [1, n].  n/2 is the real quotient (the formula is written with floor and
 * ceil, as in the normal approximation of the binomial(n, 1/2) quantiles); for even n the
 * reading does not matter. */
static void ref_jk(int n, int *j, int *k)
{
    double h = 0.98 * sqrt((double)n);
    *j = (int)floor(n / 2.0 - h);
    *k = (int)ceil(n / 2.0 + 1.0 + h);
    if (*j < 1)
        *j = 1;
    if (*k > n)
        *k = n;
}

/* ---------------------------------------------------------------- estimates */

START_TEST(test_estimate_small)
{
    struct aot_tune_est e;
    double one[1] = {5.0};
    double odd[5] = {9.0, 1.0, 7.0, 3.0, 5.0};
    double even[4] = {4.0, 1.0, 3.0, 2.0};
    double two[2] = {3.0, 1.0};

    aot_tune_estimate(one, 1, &e);
    ck_assert_int_eq(e.n, 1);
    ck_assert(e.median == 5.0 && e.lo == 5.0 && e.hi == 5.0);

    /* odd n: the middle value; n < 6: the interval is [min, max] */
    aot_tune_estimate(odd, 5, &e);
    ck_assert_int_eq(e.n, 5);
    ck_assert(e.median == 5.0);
    ck_assert(e.lo == 1.0 && e.hi == 9.0);
    for (int i = 0; i < 5; i++)
        ck_assert(odd[i] == 1.0 + 2.0 * i);            /* sorted in place */

    /* even n: "median" read as the conventional mean of the two middle values */
    aot_tune_estimate(even, 4, &e);
    ck_assert_int_eq(e.n, 4);
    ck_assert_msg(e.median == 2.5, "median of {1,2,3,4} = %g, expected 2.5", e.median);
    ck_assert(e.lo == 1.0 && e.hi == 4.0);
    for (int i = 0; i < 4; i++)
        ck_assert(even[i] == 1.0 + i);

    aot_tune_estimate(two, 2, &e);
    ck_assert_msg(e.median == 2.0, "median of {1,3} = %g, expected 2", e.median);
    ck_assert(e.lo == 1.0 && e.hi == 3.0);
    ck_assert(two[0] == 1.0 && two[1] == 3.0);
}
END_TEST

START_TEST(test_estimate_n20)
{
    /* j = floor(10 - 4.38) = 5, k = ceil(11 + 4.38) = 16 */
    double x[20];
    struct aot_tune_est e;
    struct rng r = {0x9e3779b97f4a7c15ULL};
    int j, k;

    for (int i = 0; i < 20; i++)
        x[i] = 100.0 + i;                              /* sorted: x(m) = 99 + m */
    shuffle(x, 20, &r);
    ref_jk(20, &j, &k);
    ck_assert_int_eq(j, 5);
    ck_assert_int_eq(k, 16);
    aot_tune_estimate(x, 20, &e);
    ck_assert_int_eq(e.n, 20);
    ck_assert_msg(e.median == 109.5, "median %g, expected 109.5", e.median);
    ck_assert_msg(e.lo == 99.0 + j, "lo %g, expected x(%d) = %g", e.lo, j, 99.0 + j);
    ck_assert_msg(e.hi == 99.0 + k, "hi %g, expected x(%d) = %g", e.hi, k, 99.0 + k);
    for (int i = 0; i < 20; i++)
        ck_assert(x[i] == 100.0 + i);
}
END_TEST

/* Every n from 1 to 201 against the reference: the median is the middle value (odd n) or the
 * mean of the two middle ones (even n), the interval's ranks come from the header's formula
 * with n/2 read as the real quotient, and the input ends sorted in place. */
START_TEST(test_estimate_every_n)
{
    double x[201];
    struct aot_tune_est e;
    struct rng r = {12345};

    for (int n = 1; n <= 201; n++) {
        int j, k;
        for (int i = 0; i < n; i++)
            x[i] = 1.0 + i;
        shuffle(x, n, &r);
        aot_tune_estimate(x, n, &e);
        if (n < 6) {
            j = 1;
            k = n;
        } else {
            ref_jk(n, &j, &k);
        }
        ck_assert_int_eq(e.n, n);
        ck_assert_msg(e.median == (n + 1) / 2.0, "n %d: median %g", n, e.median);
        ck_assert_msg(e.lo == j && e.hi == k, "n %d: [%g, %g], expected [x(%d), x(%d)]",
                      n, e.lo, e.hi, j, k);
        for (int i = 0; i < n; i++)
            ck_assert(x[i] == 1.0 + i);
    }
}
END_TEST

/* Duplicates and arbitrary values: sorted in place, lo <= median <= hi. */
START_TEST(test_estimate_sorts)
{
    double x[64];
    struct aot_tune_est e;
    struct rng r = {42};

    for (int trial = 0; trial < 200; trial++) {
        int n = rng_int(&r, 1, 64);
        for (int i = 0; i < n; i++)
            x[i] = (double)rng_int(&r, 1, 10) * 0.5;
        aot_tune_estimate(x, n, &e);
        for (int i = 1; i < n; i++)
            ck_assert_msg(x[i - 1] <= x[i], "n %d: not sorted at %d", n, i);
        ck_assert(e.lo <= e.median && e.median <= e.hi);
        ck_assert(e.lo >= x[0] && e.hi <= x[n - 1]);
    }
}
END_TEST

START_TEST(test_precise)
{
    struct aot_tune_est e = est(100.0, 95.0, 105.0);  /* half-width 5 = 5 % */

    ck_assert_int_eq(aot_tune_precise(&e, 0.06), 1);
    ck_assert_int_eq(aot_tune_precise(&e, 0.04), 0);
    e = est(64.0, 60.0, 68.0);                         /* half-width 4 = exactly 1/16 */
    ck_assert_int_eq(aot_tune_precise(&e, 0.0625), 1); /* "at most" */
    ck_assert_int_eq(aot_tune_precise(&e, 0.0624), 0);
    e = est(10.0, 10.0, 10.0);
    ck_assert_int_eq(aot_tune_precise(&e, 0.0), 1);
    /* an asymmetric interval: half-width (hi - lo) / 2 = 3, not max distance 5 */
    e = est(100.0, 99.0, 105.0);
    ck_assert_int_eq(aot_tune_precise(&e, 0.035), 1);
    ck_assert_int_eq(aot_tune_precise(&e, 0.025), 0);
}
END_TEST

START_TEST(test_surely_faster)
{
    struct aot_tune_est a = est(10.0, 9.0, 11.0), b = est(20.0, 19.0, 21.0);

    ck_assert_int_eq(aot_tune_surely_faster(&a, &b), 1);
    ck_assert_int_eq(aot_tune_surely_faster(&b, &a), 0);
    b = est(20.0, 11.0, 21.0);                         /* touching: a.hi == b.lo */
    ck_assert_int_eq(aot_tune_surely_faster(&a, &b), 0);
    b = est(20.0, 11.5, 21.0);
    ck_assert_int_eq(aot_tune_surely_faster(&a, &b), 1);
    b = est(10.5, 10.0, 21.0);                         /* overlapping */
    ck_assert_int_eq(aot_tune_surely_faster(&a, &b), 0);
    ck_assert_int_eq(aot_tune_surely_faster(&a, &a), 0);
}
END_TEST

START_TEST(test_advantage)
{
    struct aot_tune_est a = est(90.0, 89.0, 91.0), b = est(100.0, 99.0, 101.0);

    ck_assert(close_rel(aot_tune_advantage(&a, &b), 10.0, 1e-12));
    ck_assert(close_rel(aot_tune_advantage(&b, &a), -100.0 / 9.0, 1e-12));
    ck_assert(aot_tune_advantage(&a, &a) == 0.0);
    a = est(25.0, 25.0, 25.0);
    ck_assert(close_rel(aot_tune_advantage(&a, &b), 75.0, 1e-12));
}
END_TEST

/* ---------------------------------------------------------------- golden-section search */

struct gss_result {
    int best;
    int nmeasured;                 /* distinct indices asked */
};

/*
 * Runs the header's loop on the table t (t[i - lo]) and checks every step: an index asked is in
 * [lo, hi] and not known yet (asked or reported as `extra`), the end is lo - 1 and stays so, and
 * best() is the lowest-time, lowest-index measured point.  `extra`, when >= lo, is reported
 * (a cached measurement) right after step `extra_at` (-1: before the first next()).
 */
static struct gss_result gss_run(int lo, int hi, const double *t, int extra, int extra_at)
{
    struct aot_tune_gss g;
    unsigned char known[AOT_TUNE_GSS_MAX] = {0};
    struct gss_result res = {lo - 1, 0};
    int w = hi - lo + 1, i, step = 0, ref;

    expect(aot_tune_gss_init(&g, lo, hi) == 0, "[%d, %d]: init failed", lo, hi);
    if (extra >= lo && extra_at < 0) {
        aot_tune_gss_report(&g, extra, t[extra - lo]);
        known[extra - lo] = 1;
    }
    while ((i = aot_tune_gss_next(&g)) >= lo) {
        expect(i <= hi, "[%d, %d]: asked %d", lo, hi, i);
        expect(!known[i - lo], "[%d, %d]: asked %d, already measured", lo, hi, i);
        expect(step < w, "[%d, %d]: more steps than indices", lo, hi);
        known[i - lo] = 1;
        res.nmeasured++;
        aot_tune_gss_report(&g, i, t[i - lo]);
        if (extra >= lo && step == extra_at && !known[extra - lo]) {
            aot_tune_gss_report(&g, extra, t[extra - lo]);
            known[extra - lo] = 1;
        }
        step++;
    }
    expect(i == lo - 1, "[%d, %d]: done must be lo - 1 = %d, got %d", lo, hi, lo - 1, i);
    expect(aot_tune_gss_next(&g) == lo - 1, "[%d, %d]: next() after the end", lo, hi);
    res.best = aot_tune_gss_best(&g);
    expect(res.best >= lo && res.best <= hi, "[%d, %d]: best() %d", lo, hi, res.best);

    ref = lo - 1;
    for (int k = 0; k < w; k++)
        if (known[k] && (ref < lo || t[k] < t[ref - lo]))
            ref = lo + k;
    expect(res.best == ref, "[%d, %d]: best() %d, best measured %d", lo, hi, res.best,
                  ref);
    return res;
}

enum shape { V_SYM, V_STEEP_LEFT, PARABOLA, SKEWED, NSHAPES };

/* A strictly unimodal table over [0, w) with its minimum at p. */
static void table(double *t, int w, int p, enum shape s)
{
    for (int i = 0; i < w; i++) {
        double d = i - p;
        switch (s) {
        case V_SYM:
            t[i] = 10.0 + fabs(d);
            break;
        case V_STEEP_LEFT:
            t[i] = 10.0 + (d < 0 ? -5.0 * d : 0.5 * d);
            break;
        case PARABOLA:
            t[i] = 3.0 + 0.25 * d * d;
            break;
        default:                                       /* flat left, steep right */
            t[i] = 1.0 + (d < 0 ? -0.01 * d : d * d);
            break;
        }
    }
}

/* Up to this many measurements for a width: the header's "about 1.44 log2(w) + 3", plus 3 of
 * rounding slack on integer indices (19 -> 12, 40 -> 13, 64 -> 14). */
static int gss_budget(int w)
{
    return (int)(1.44 * log2((double)w) + 3.0) + 3;
}

/* (a) the true minimum on every width 1..64, every position, four shapes, two offsets of lo;
 * (b) fewer measurements than indices from width 8 on, and within the budget. */
START_TEST(test_gss_unimodal)
{
    static const int los[] = {0, 7};
    double t[AOT_TUNE_GSS_MAX];
    int worst[AOT_TUNE_GSS_MAX + 1] = {0};

    for (int w = 1; w <= AOT_TUNE_GSS_MAX; w++) {
        for (int p = 0; p < w; p++) {
            for (int s = 0; s < NSHAPES; s++) {
                table(t, w, p, (enum shape)s);
                for (size_t l = 0; l < sizeof(los) / sizeof(los[0]); l++) {
                    int lo = los[l];
                    struct gss_result r = gss_run(lo, lo + w - 1, t, -1, 0);
                    expect(r.best == lo + p, "w %d shape %d lo %d: best %d, expected %d",
                                  w, s, lo, r.best, lo + p);
                    if (w <= 3)
                        expect(r.nmeasured == w, "w %d: %d measured, all expected", w,
                                      r.nmeasured);
                    if (w >= 8) {
                        expect(r.nmeasured < w, "w %d p %d shape %d: %d measurements",
                                      w, p, s, r.nmeasured);
                        expect(r.nmeasured <= gss_budget(w),
                                      "w %d p %d shape %d: %d measurements, budget %d", w, p, s,
                                      r.nmeasured, gss_budget(w));
                    }
                    if (r.nmeasured > worst[w])
                        worst[w] = r.nmeasured;
                }
            }
        }
    }
    printf("gss measurements, worst case: w 5 -> %d, w 8 -> %d, w 19 -> %d, w 40 -> %d, "
           "w 64 -> %d\n", worst[5], worst[8], worst[19], worst[40], worst[64]);
    fflush(stdout);
}
END_TEST

/* The widths the brief names, explicitly, with the minimum at the left end, middle, right end. */
START_TEST(test_gss_named_widths)
{
    static const int widths[] = {1, 2, 3, 5, 19, 40};
    double t[AOT_TUNE_GSS_MAX];

    for (size_t n = 0; n < sizeof(widths) / sizeof(widths[0]); n++) {
        int w = widths[n];
        int ps[3] = {0, w / 2, w - 1};
        for (int q = 0; q < 3; q++) {
            table(t, w, ps[q], PARABOLA);
            struct gss_result r = gss_run(3, 3 + w - 1, t, -1, 0);
            ck_assert_int_eq(r.best, 3 + ps[q]);
            table(t, w, ps[q], V_SYM);
            r = gss_run(3, 3 + w - 1, t, -1, 0);
            ck_assert_int_eq(r.best, 3 + ps[q]);
            if (w == 19)
                ck_assert_int_le(r.nmeasured, 12);
        }
    }
}
END_TEST

/* (c) multiplicative noise of +-3 % on a parabola; one measurement per index, as a cache would
 * keep it, so an exhaustive search sees the same noisy table. */
START_TEST(test_gss_noisy)
{
    enum { TABLES = 1000 };
    struct rng r = {0x2545f4914f6cdd1dULL};
    double clean[AOT_TUNE_GSS_MAX], noisy[AOT_TUNE_GSS_MAX];
    int hit_exhaustive = 0, hit_true = 0;
    long measured = 0, widths = 0;
    double worst = 1.0;

    for (int n = 0; n < TABLES; n++) {
        int w = rng_int(&r, 8, AOT_TUNE_GSS_MAX);
        int p = rng_int(&r, 0, w - 1);
        int lo = rng_int(&r, 0, 20);
        /* pronounced: the neighbours of the minimum are 3 % to 8 % slower, comparable to the
         * noise, two steps away 12 % to 32 % */
        double c = 0.03 + 0.05 * rng_unit(&r);
        int ex = 0;
        struct gss_result g;
        double ratio;

        for (int i = 0; i < w; i++) {
            double d = i - p;
            clean[i] = 50.0 * (1.0 + c * d * d);
            noisy[i] = clean[i] * (1.0 + 0.03 * (2.0 * rng_unit(&r) - 1.0));
            if (noisy[i] < noisy[ex])
                ex = i;
        }
        g = gss_run(lo, lo + w - 1, noisy, -1, 0);
        hit_exhaustive += g.best == lo + ex;
        hit_true += g.best == lo + p;
        measured += g.nmeasured;
        widths += w;
        ratio = clean[g.best - lo] / clean[p];
        if (ratio > worst)
            worst = ratio;
        ck_assert_msg(ratio <= 1.10, "table %d (w %d, p %d, c %.3f): found %d, %.1f %% slower",
                      n, w, p, c, g.best - lo, 100.0 * (ratio - 1.0));
    }
    printf("gss with 3 %% noise, %d tables: exhaustive optimum %d (%.1f %%), true optimum %d "
           "(%.1f %%), worst found %.1f %% above the true minimum, %.1f measurements per table "
           "for %.1f indices\n", TABLES, hit_exhaustive, 100.0 * hit_exhaustive / TABLES,
           hit_true, 100.0 * hit_true / TABLES, 100.0 * (worst - 1.0),
           (double)measured / TABLES, (double)widths / TABLES);
    fflush(stdout);
    ck_assert_msg(hit_exhaustive * 10 >= TABLES * 9, "exhaustive optimum in %d of %d tables",
                  hit_exhaustive, TABLES);
}
END_TEST

/* (d) */
START_TEST(test_gss_init)
{
    struct aot_tune_gss g;

    ck_assert_int_eq(aot_tune_gss_init(&g, 5, 4), -1);
    ck_assert_int_eq(aot_tune_gss_init(&g, 0, -10), -1);
    ck_assert_int_eq(aot_tune_gss_init(&g, 0, AOT_TUNE_GSS_MAX), -1);
    ck_assert_int_eq(aot_tune_gss_init(&g, 10, 10 + AOT_TUNE_GSS_MAX), -1);
    ck_assert_int_eq(aot_tune_gss_init(&g, 0, AOT_TUNE_GSS_MAX - 1), 0);
    ck_assert_int_eq(aot_tune_gss_init(&g, 10, 10 + AOT_TUNE_GSS_MAX - 1), 0);
    ck_assert_int_eq(aot_tune_gss_init(&g, 4, 4), 0);
    /* nothing measured yet */
    ck_assert_int_eq(aot_tune_gss_best(&g), 3);
}
END_TEST

/* (e) a cached index reported unasked, at several moments and places, does not lead it astray
 * and is not asked for again. */
START_TEST(test_gss_cached)
{
    static const int widths[] = {4, 5, 8, 19, 40, 64};
    double t[AOT_TUNE_GSS_MAX];

    for (size_t n = 0; n < sizeof(widths) / sizeof(widths[0]); n++) {
        int w = widths[n];
        int ps[3] = {0, w / 3, w - 1};
        for (int q = 0; q < 3; q++) {
            for (int s = 0; s < NSHAPES; s++) {
                table(t, w, ps[q], (enum shape)s);
                for (int extra = 0; extra < w; extra++) {
                    for (int at = -1; at < 3; at++) {
                        struct gss_result r = gss_run(2, 2 + w - 1, t, 2 + extra, at);
                        expect(r.best == 2 + ps[q],
                                      "w %d p %d shape %d, %d cached after step %d: best %d",
                                      w, ps[q], s, extra, at, r.best - 2);
                    }
                }
            }
        }
    }
}
END_TEST

/* A cached index reported before the asked one (out of the order asked). */
START_TEST(test_gss_out_of_order)
{
    double t[19];
    struct aot_tune_gss g;
    int i, first = 1, steps = 0;

    table(t, 19, 11, PARABOLA);
    ck_assert_int_eq(aot_tune_gss_init(&g, 0, 18), 0);
    while ((i = aot_tune_gss_next(&g)) >= 0) {
        ck_assert_int_lt(++steps, 19);
        if (first && i != 11) {
            aot_tune_gss_report(&g, 11, t[11]);         /* then the one asked */
            first = 0;
        }
        aot_tune_gss_report(&g, i, t[i]);
    }
    ck_assert_int_eq(i, -1);
    ck_assert_int_eq(aot_tune_gss_best(&g), 11);
}
END_TEST

/* (f) done is lo - 1, and stays so; best() prefers the lowest index among equal times; a
 * second report of an index keeps the later time. */
START_TEST(test_gss_done_and_best)
{
    struct aot_tune_gss g;
    double flat[3] = {2.0, 2.0, 2.0};
    struct gss_result r;

    ck_assert_int_eq(aot_tune_gss_init(&g, 5, 5), 0);
    ck_assert_int_eq(aot_tune_gss_next(&g), 5);
    aot_tune_gss_report(&g, 5, 1.0);
    ck_assert_int_eq(aot_tune_gss_next(&g), 4);
    ck_assert_int_eq(aot_tune_gss_next(&g), 4);
    ck_assert_int_eq(aot_tune_gss_best(&g), 5);

    /* a flat range of 3: all measured, the lowest wins */
    r = gss_run(9, 11, flat, -1, 0);
    ck_assert_int_eq(r.nmeasured, 3);
    ck_assert_int_eq(r.best, 9);

    ck_assert_int_eq(aot_tune_gss_init(&g, 10, 29), 0);
    aot_tune_gss_report(&g, 25, 3.0);
    aot_tune_gss_report(&g, 17, 3.0);
    aot_tune_gss_report(&g, 21, 3.0);
    aot_tune_gss_report(&g, 12, 4.0);
    ck_assert_int_eq(aot_tune_gss_best(&g), 17);
    aot_tune_gss_report(&g, 17, 5.0);                   /* the later time counts */
    ck_assert_int_eq(aot_tune_gss_best(&g), 21);
    aot_tune_gss_report(&g, 29, 1.0);
    ck_assert_int_eq(aot_tune_gss_best(&g), 29);
    aot_tune_gss_report(&g, 10, 1.0);
    ck_assert_int_eq(aot_tune_gss_best(&g), 10);
}
END_TEST

/* ---------------------------------------------------------------- crossover search */

/*
 * Runs the bisection against a crossover at x (R wins from x bytes on) and checks every step:
 * the size asked is strictly inside the bracket and near its geometric mean, the search goes on
 * exactly while the header's stop rule is false, done is 0 and stays so, and the answer is the
 * first size R was given.
 */
static uint64_t bisect_run(uint64_t lo, uint64_t hi, double resolution, uint64_t x)
{
    struct aot_tune_bisect b;
    uint64_t cur_lo = lo, cur_hi = hi, s;
    int steps = 0;

    aot_tune_bisect_init(&b, lo, hi, resolution);
    for (;;) {
        double lim = (double)cur_lo * (1.0 + resolution);
        int must_stop = cur_hi - cur_lo <= 1 || (double)cur_hi <= lim * (1.0 - 1e-12);
        int may_stop = cur_hi - cur_lo <= 1 || (double)cur_hi <= lim * (1.0 + 1e-12);
        double gm = sqrt((double)cur_lo * (double)cur_hi);

        s = aot_tune_bisect_next(&b);
        if (s == 0) {
            expect(may_stop, "x %llu: stopped at [%llu, %llu]", (unsigned long long)x,
                          (unsigned long long)cur_lo, (unsigned long long)cur_hi);
            break;
        }
        expect(!must_stop, "x %llu: goes on at [%llu, %llu]", (unsigned long long)x,
                      (unsigned long long)cur_lo, (unsigned long long)cur_hi);
        expect(s > cur_lo && s < cur_hi, "x %llu: asked %llu outside (%llu, %llu)",
                      (unsigned long long)x, (unsigned long long)s,
                      (unsigned long long)cur_lo, (unsigned long long)cur_hi);
        expect(fabs((double)s - gm) <= 1.0, "asked %llu in (%llu, %llu), mean %.2f",
                      (unsigned long long)s, (unsigned long long)cur_lo,
                      (unsigned long long)cur_hi, gm);
        expect(++steps < 200, "x %llu: no end", (unsigned long long)x);
        aot_tune_bisect_report(&b, s, s >= x);
        if (s >= x)
            cur_hi = s;
        else
            cur_lo = s;
    }
    expect(aot_tune_bisect_next(&b) == 0, "x %llu: next() after the end", (unsigned long long)x);
    expect(aot_tune_bisect_cross(&b) == cur_hi, "x %llu: cross %llu, R first at %llu",
                  (unsigned long long)x, (unsigned long long)aot_tune_bisect_cross(&b),
                  (unsigned long long)cur_hi);
    return cur_hi;
}

START_TEST(test_bisect_first_step)
{
    struct aot_tune_bisect b;

    aot_tune_bisect_init(&b, 1024, 65536, 0.05);
    ck_assert(aot_tune_bisect_next(&b) == 8192);       /* sqrt(2^10 * 2^16) */
    ck_assert(aot_tune_bisect_next(&b) == 8192);       /* asking does not move it */
    aot_tune_bisect_report(&b, 8192, 1);
    ck_assert(aot_tune_bisect_next(&b) == 2896);       /* sqrt(2^23) = 2896.3 */
}
END_TEST

START_TEST(test_bisect_resolution)
{
    static const uint64_t xs[] = {1025, 1030, 1100, 2048, 3000, 8191, 8192, 8193, 20000,
                                  40000, 62000, 65000, 65535, 65536};

    for (size_t n = 0; n < sizeof(xs) / sizeof(xs[0]); n++) {
        uint64_t x = xs[n];
        uint64_t c = bisect_run(1024, 65536, 0.05, x);
        expect(c >= x && (double)c <= 1.05 * (double)x, "x %llu: cross %llu",
                      (unsigned long long)x, (unsigned long long)c);
        expect(c > 1024 && c <= 65536, "x %llu: cross %llu", (unsigned long long)x,
               (unsigned long long)c);
    }
    /* every crossover in the range */
    for (uint64_t x = 1025; x <= 65536; x++) {
        uint64_t c = bisect_run(1024, 65536, 0.05, x);
        expect(c >= x && (double)c <= 1.05 * (double)x, "x %llu: cross %llu",
                      (unsigned long long)x, (unsigned long long)c);
    }
}
END_TEST

START_TEST(test_bisect_exact)
{
    static const uint64_t xs[] = {2, 3, 1000, 65536, 123456789, 1099511627775ULL,
                                  1099511627776ULL};

    for (uint64_t x = 1025; x <= 65536; x += 7)
        expect(bisect_run(1024, 65536, 0.0, x) == x, "x %llu", (unsigned long long)x);
    ck_assert(bisect_run(1024, 65536, 0.0, 65536) == 65536);
    for (size_t n = 0; n < sizeof(xs) / sizeof(xs[0]); n++)
        ck_assert_msg(bisect_run(1, 1099511627776ULL, 0.0, xs[n]) == xs[n], "x %llu",
                      (unsigned long long)xs[n]);
}
END_TEST

START_TEST(test_bisect_nothing_to_do)
{
    struct aot_tune_bisect b;

    aot_tune_bisect_init(&b, 1000, 1001, 0.0);         /* hi - lo <= 1 */
    ck_assert(aot_tune_bisect_next(&b) == 0);
    ck_assert(aot_tune_bisect_cross(&b) == 1001);
    aot_tune_bisect_init(&b, 1000, 1040, 0.05);        /* within the resolution */
    ck_assert(aot_tune_bisect_next(&b) == 0);
    ck_assert(aot_tune_bisect_cross(&b) == 1040);
    aot_tune_bisect_init(&b, 1000, 1002, 0.0);
    ck_assert(aot_tune_bisect_next(&b) == 1001);
}
END_TEST

/* ---------------------------------------------------------------- pruning */

START_TEST(test_pruned)
{
    /* both neighbours more than twice the best */
    ck_assert_int_eq(aot_tune_pruned(10.0, 4.0, 30.0, 5.0, 2.0), 1);
    /* one neighbour close */
    ck_assert_int_eq(aot_tune_pruned(10.0, 4.0, 7.0, 5.0, 2.0), 0);
    ck_assert_int_eq(aot_tune_pruned(6.0, 4.0, 30.0, 5.0, 2.0), 0);
    /* unmeasured on one side */
    ck_assert_int_eq(aot_tune_pruned(0.0, 4.0, 30.0, 5.0, 2.0), 0);
    ck_assert_int_eq(aot_tune_pruned(10.0, 4.0, -1.0, 5.0, 2.0), 0);
    ck_assert_int_eq(aot_tune_pruned(0.0, 4.0, 0.0, 5.0, 2.0), 0);
    /* the rule is on the candidate's time alone, whatever the best is */
    ck_assert_int_eq(aot_tune_pruned(-1.0, -1.0, 30.0, 5.0, 2.0), 0);
    /* exactly the factor is not "more than" */
    ck_assert_int_eq(aot_tune_pruned(8.0, 4.0, 10.0, 5.0, 2.0), 0);
    ck_assert_int_eq(aot_tune_pruned(8.0, 4.0, 30.0, 5.0, 2.0), 0);
    ck_assert_int_eq(aot_tune_pruned(30.0, 4.0, 10.0, 5.0, 2.0), 0);
    ck_assert_int_eq(aot_tune_pruned(8.5, 4.0, 10.5, 5.0, 2.0), 1);
    /* the candidate is the best itself */
    ck_assert_int_eq(aot_tune_pruned(4.0, 4.0, 5.0, 5.0, 1.5), 0);
}
END_TEST

/* ---------------------------------------------------------------- racing */

static struct aot_tune_est est3(double lo, double median, double hi)
{
    struct aot_tune_est e = { median, lo, hi, 3 };
    return e;
}

START_TEST(test_race_rule)
{
    struct aot_tune_est e[5] = {
        est3(95, 100, 105),     /* leader */
        est3(100, 104, 110),    /* overlaps the leader: stays */
        est3(114, 120, 125),    /* beyond the leader's interval, but within 1.1x: stays */
        est3(117, 130, 140),    /* 117 > 1.1 * 105 = 115.5: out */
        est3(300, 310, 320),    /* native, far behind: kept */
    };
    unsigned char keep[5] = { 0, 0, 0, 0, 1 }, alive[5] = { 1, 1, 1, 1, 1 };

    ck_assert_int_eq(aot_tune_race(e, 5, keep, alive, 1.1), 4);
    ck_assert_int_eq(alive[0], 1);
    ck_assert_int_eq(alive[1], 1);
    ck_assert_int_eq(alive[2], 1);
    ck_assert_int_eq(alive[3], 0);
    ck_assert_int_eq(alive[4], 1);
    /* with factor 1 the third goes too; without keep, native goes */
    ck_assert_int_eq(aot_tune_race(e, 5, NULL, alive, 1.0), 2);
    ck_assert_int_eq(alive[2], 0);
    ck_assert_int_eq(alive[4], 0);
    /* a dropped candidate is never the leader, even when its median is the lowest */
    unsigned char alive2[3] = { 0, 1, 1 };
    struct aot_tune_est f[3] = { est3(1, 2, 3), est3(95, 100, 105), est3(200, 210, 220) };
    ck_assert_int_eq(aot_tune_race(f, 3, NULL, alive2, 1.1), 1);
    ck_assert_int_eq(alive2[0], 0);
    ck_assert_int_eq(alive2[1], 1);
    ck_assert_int_eq(alive2[2], 0);
    /* one candidate alone stays */
    unsigned char one = 1;
    ck_assert_int_eq(aot_tune_race(f + 2, 1, NULL, &one, 1.0), 1);
}
END_TEST

/* A race run as autoopt-tune runs it, on a synthetic table: true times with +-5 % uniform
 * noise, rounds of one repetition each, the race from the third round, the precision rule
 * stopping the live ones.  Over 2000 seeds the true best and the near tie (4 % behind) are
 * never dropped and native is never dropped; the far ones (1.5x and more) are dropped after
 * their third repetition. */
START_TEST(test_race_synthetic)
{
    const double truth[6] = { 100, 104, 150, 220, 400, 180 };   /* [5] is native */
    const unsigned char keep[6] = { 0, 0, 0, 0, 0, 1 };
    unsigned long seed = 12345;
    long far_reps = 0;

    for (int run = 0; run < 2000; run++) {
        double samples[6][31];
        struct aot_tune_est e[6];
        unsigned char alive[6] = { 1, 1, 1, 1, 1, 1 };
        int reps = 0, n_alive = 6;
        for (;;) {
            for (int i = 0; i < 6; i++) {
                if (!alive[i])
                    continue;
                seed = seed * 6364136223846793005UL + 1442695040888963407UL;
                double u = (double) (seed >> 11) / 9007199254740992.0;  /* [0, 1) */
                samples[i][reps] = truth[i] * (0.95 + 0.1 * u);
                far_reps += i >= 2 && i <= 4;
            }
            reps++;
            if (reps < 3)
                continue;
            int precise = 1;
            for (int i = 0; i < 6; i++) {
                if (!alive[i])
                    continue;
                double tmp[31];
                memcpy(tmp, samples[i], (size_t) reps * sizeof(double));
                aot_tune_estimate(tmp, reps, &e[i]);
                if (reps >= 7)
                    precise &= aot_tune_precise(&e[i], 0.03);
            }
            n_alive = aot_tune_race(e, 6, keep, alive, 1.1);
            if ((reps >= 7 && precise) || reps >= 31)
                break;
        }
        ck_assert_int_ge(n_alive, 3);
        ck_assert_int_eq(alive[0], 1);
        ck_assert_int_eq(alive[1], 1);
        ck_assert_int_eq(alive[5], 1);
        ck_assert_int_eq(alive[2] + alive[3] + alive[4], 0);
    }
    /* 1.5x, 2.2x and 4x the best with +-5 % noise: out after three repetitions, every time,
     * instead of the 7 or more the precision rule takes */
    ck_assert_int_eq(far_reps, 3L * 3 * 2000);
}
END_TEST

/* ---------------------------------------------------------------- the two timings */

/* Both timings of a candidate: medians with intervals of +- h around them. */
static struct aot_tune_two two(double sep, double sep_h, double b2b, double b2b_h)
{
    struct aot_tune_two t = {est(sep, sep - sep_h, sep + sep_h),
                             est(b2b, b2b - b2b_h, b2b + b2b_h)};
    return t;
}

/* aot_tune_surely_faster_both on values. */
static int faster_both(struct aot_tune_two a, struct aot_tune_two b)
{
    return aot_tune_surely_faster_both(&a, &b);
}

START_TEST(test_surely_faster_both)
{
    struct aot_tune_two nat = two(27.5, 0.5, 27.5, 0.5);

    ck_assert_int_eq(faster_both(two(10, 1, 12, 1), nat), 1);
    /* issue 31's bcast chain at 16 KiB: 3.65x faster barrier-separated, 31-91 us back to back
     * against native's 27-28: not faster both ways */
    struct aot_tune_two chain = {est(7.5, 7.2, 7.9), est(61, 31, 91)};
    ck_assert_int_eq(aot_tune_surely_faster_both(&chain, &nat), 0);
    /* faster back to back only */
    ck_assert_int_eq(faster_both(two(27, 1, 10, 1), nat), 0);
    /* touching intervals are not "surely" */
    ck_assert_int_eq(faster_both(two(26, 1, 20, 1), nat), 0);
    /* an estimate not measured (n == 0) never wins, and never loses to one either */
    struct aot_tune_two half = two(10, 1, 10, 1);
    half.b2b.n = 0;
    ck_assert_int_eq(aot_tune_surely_faster_both(&half, &nat), 0);
    struct aot_tune_two nat0 = nat;
    nat0.sep.n = 0;
    ck_assert_int_eq(faster_both(two(10, 1, 10, 1), nat0), 0);
    /* and native is not faster than the faster one */
    ck_assert_int_eq(faster_both(nat, two(10, 1, 12, 1)), 0);
}
END_TEST

START_TEST(test_choose)
{
    /* native at index 2 */
    struct aot_tune_two c[4];

    /* native alone, and native among candidates none of which wins both ways */
    c[0] = two(100, 1, 100, 1);
    ck_assert_int_eq(aot_tune_choose(c, 1, 0, -1), 0);
    c[0] = (struct aot_tune_two){est(7.5, 7.2, 7.9), est(61, 31, 91)};  /* sep only */
    c[1] = two(40, 1, 10, 1);                                          /* b2b only */
    c[2] = two(27.5, 0.5, 27.5, 0.5);                                  /* native */
    c[3] = two(27.5, 0.2, 27.5, 0.2);                                  /* equal */
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, -1), 2);
    /* one that wins both ways is chosen over the one faster barrier-separated only */
    c[3] = two(20, 1, 20, 1);
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, -1), 3);
    /* between two that win both ways, the smaller worse ratio: c[0] 0.2 sep but 0.9 b2b
     * (worse ratio 0.9), c[3] 0.5 both ways (0.5) */
    c[0] = two(5.5, 0.1, 24.75, 0.1);
    c[3] = two(13.75, 0.1, 13.75, 0.1);
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, -1), 3);
    c[3] = two(26, 0.1, 23, 0.1);   /* worse ratio 0.945 */
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, -1), 0);
    /* prev kept while it qualifies and the best is not surely faster both ways */
    c[0] = two(10, 2, 10, 2);
    c[3] = two(11, 2, 11, 2);       /* overlaps c[0] */
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, -1), 0);
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, 3), 3);
    c[3] = two(11, 0.5, 20, 0.5);   /* c[0] surely faster back to back only: prev stays */
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, 3), 3);
    c[3] = two(20, 0.5, 20, 0.5);   /* c[0] surely faster both ways: prev goes */
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, 3), 0);
    c[3] = two(11, 0.5, 30, 0.5);   /* prev slower than native back to back: it goes */
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, 3), 0);
    /* prev native or out of range: ignored */
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, 2), 0);
    ck_assert_int_eq(aot_tune_choose(c, 4, 2, 7), 0);
}
END_TEST

START_TEST(test_right_wins)
{
    struct aot_tune_two nat = two(27.5, 0.5, 27.5, 0.5), both = two(10, 1, 10, 1),
                        sep_only = {est(7.5, 7.2, 7.9), est(61, 31, 91)};

    /* against native on the left: the algorithm must win both ways */
    ck_assert_int_eq(aot_tune_right_wins(&nat, 1, &both, 0), 1);
    ck_assert_int_eq(aot_tune_right_wins(&nat, 1, &sep_only, 0), 0);
    /* native on the right takes the size unless the left one wins both ways */
    ck_assert_int_eq(aot_tune_right_wins(&both, 0, &nat, 1), 0);
    ck_assert_int_eq(aot_tune_right_wins(&sep_only, 0, &nat, 1), 1);
    /* two algorithms: the lower sum of medians, ties to the right */
    struct aot_tune_two a = two(10, 1, 30, 1), b = two(25, 1, 14, 1), c = two(20, 1, 20, 1);
    ck_assert_int_eq(aot_tune_right_wins(&a, 0, &b, 0), 1);
    ck_assert_int_eq(aot_tune_right_wins(&b, 0, &a, 0), 0);
    ck_assert_int_eq(aot_tune_right_wins(&a, 0, &c, 0), 1);
    ck_assert_int_eq(aot_tune_right_wins(&c, 0, &a, 0), 1);
}
END_TEST

/* ---------------------------------------------------------------- raw measurements */

#define NAME47 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstu"   /* AOT_TUNE_NAME_MAX - 1 */

static struct aot_tune_raw raw(const char *coll, const char *alg, long param, int ranks,
                               uint64_t bytes, double median, double lo, double hi, int reps)
{
    struct aot_tune_raw r;

    memset(&r, 0, sizeof(r));
    snprintf(r.coll, sizeof(r.coll), "%s", coll);
    snprintf(r.alg, sizeof(r.alg), "%s", alg);
    r.param = param;
    r.ranks = ranks;
    r.bytes = bytes;
    r.est.median = median;
    r.est.lo = lo;
    r.est.hi = hi;
    r.est.n = reps;
    return r;
}

static void assert_same_raw(const struct aot_tune_raw *a, const struct aot_tune_raw *b)
{
    ck_assert_str_eq(a->coll, b->coll);
    ck_assert_str_eq(a->alg, b->alg);
    ck_assert_int_eq(a->param, b->param);
    ck_assert_int_eq(a->ranks, b->ranks);
    ck_assert_msg(a->bytes == b->bytes, "bytes %llu != %llu", (unsigned long long)a->bytes,
                  (unsigned long long)b->bytes);
    ck_assert_msg(close_rel(b->est.median, a->est.median, 1e-6), "median %.17g -> %.17g",
                  a->est.median, b->est.median);
    ck_assert_msg(close_rel(b->est.lo, a->est.lo, 1e-6), "lo %.17g -> %.17g", a->est.lo,
                  b->est.lo);
    ck_assert_msg(close_rel(b->est.hi, a->est.hi, 1e-6), "hi %.17g -> %.17g", a->est.hi,
                  b->est.hi);
    ck_assert_int_eq(a->est.n, b->est.n);
    ck_assert_int_eq(a->b2b.n, b->b2b.n);
    if (a->b2b.n > 0)
        ck_assert_msg(close_rel(b->b2b.median, a->b2b.median, 1e-6)
                      && close_rel(b->b2b.lo, a->b2b.lo, 1e-6)
                      && close_rel(b->b2b.hi, a->b2b.hi, 1e-6), "b2b %.17g %.17g %.17g -> "
                      "%.17g %.17g %.17g", a->b2b.median, a->b2b.lo, a->b2b.hi, b->b2b.median,
                      b->b2b.lo, b->b2b.hi);
}

/* r with a back-to-back estimate. */
static struct aot_tune_raw with_b2b(struct aot_tune_raw r, double median, double lo, double hi,
                                    int reps)
{
    r.b2b = (struct aot_tune_est){.median = median, .lo = lo, .hi = hi, .n = reps};
    return r;
}

START_TEST(test_raw_round_trip)
{
    const struct aot_tune_raw recs[] = {
        raw("bcast", "chain", 16384, 4, 65536, 41.2, 40.8, 41.9, 12),
        raw("allreduce", "ring", 0, 1, 0, 0.123, 0.1, 0.15, 1),
        raw("alltoall", "ring_n_barriers", 3, 1048576, 1099511627776ULL, 12345.6, 12000.5,
            12999.9, 1000),
        raw(NAME47, NAME47, 123456789, 2, 1125899906842624ULL, 5.0, 5.0, 5.0, 7),
        raw("allgatherv", "pair_light_barrier", 0, 64, 1, 1.5, 0.25, 3.75, 30),
        with_b2b(raw("bcast", "chain", 8192, 4, 16384, 10.5, 10.1, 11.0, 31), 61.25, 31.5, 91,
                 31),
        with_b2b(raw(NAME47, NAME47, 123456789, 2, 1125899906842624ULL, 5.0, 5.0, 5.0, 7),
                 12345.6, 12000.5, 12999.9, 1000),
    };

    for (size_t n = 0; n < sizeof(recs) / sizeof(recs[0]); n++) {
        char buf[512], err[256] = "";
        struct aot_tune_raw back;
        int len = aot_tune_raw_format(&recs[n], buf, sizeof(buf));

        ck_assert_msg(len > 0, "record %zu: format failed", n);
        ck_assert_int_eq((int)strlen(buf), len);
        ck_assert_msg(buf[len - 1] == '\n', "record %zu: no newline: %s", n, buf);
        ck_assert_msg(strchr(buf, '\n') == buf + len - 1, "record %zu: one line", n);
        ck_assert_msg(buf[0] == 'm' && buf[1] == ' ', "record %zu: %s", n, buf);
        buf[len - 1] = '\0';
        memset(&back, 0x5a, sizeof(back));
        ck_assert_msg(aot_tune_raw_parse(buf, &back, err, sizeof(err)) == 0, "%s: %s", buf,
                      err);
        assert_same_raw(&recs[n], &back);
    }
}
END_TEST

START_TEST(test_raw_format_text)
{
    struct aot_tune_raw r = raw("bcast", "chain", 16384, 4, 65536, 41.2, 40.8, 41.9, 12);
    char buf[256];
    int len = aot_tune_raw_format(&r, buf, sizeof(buf));
    static const char prefix[] = "m bcast chain 16384 4 65536 ";

    ck_assert_int_gt(len, 0);
    ck_assert_msg(strncmp(buf, prefix, strlen(prefix)) == 0, "%s", buf);
    ck_assert_msg(len >= 4 && strcmp(buf + len - 4, " 12\n") == 0, "%s", buf);
}
END_TEST

START_TEST(test_raw_parse_example)
{
    struct aot_tune_raw r, want = raw("bcast", "chain", 16384, 4, 65536, 41.2, 40.8, 41.9, 12);
    char err[256] = "";

    ck_assert_msg(aot_tune_raw_parse("m bcast chain 16384 4 65536 41.2 40.8 41.9 12", &r, err,
                                     sizeof(err)) == 0, "%s", err);
    assert_same_raw(&want, &r);
}
END_TEST

/* A line of each version: 14 fields with the back-to-back estimate last, 10 without it (a
 * version 1 line, which still parses, with b2b.n = 0). */
START_TEST(test_raw_versions)
{
    struct aot_tune_raw r = with_b2b(raw("bcast", "chain", 16384, 4, 65536, 41.2, 40.8, 41.9, 12),
                                     38.5, 38.1, 39.7, 11), back;
    char buf[256], err[256] = "";
    int len = aot_tune_raw_format(&r, buf, sizeof(buf));

    ck_assert_int_gt(len, 0);
    ck_assert_str_eq(buf, "m bcast chain 16384 4 65536 41.2 40.8 41.9 12 38.5 38.1 39.7 11\n");
    memset(&back, 0x5a, sizeof(back));
    ck_assert_msg(aot_tune_raw_parse("m bcast chain 16384 4 65536 41.2 40.8 41.9 12", &back, err,
                                     sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(back.b2b.n, 0);
    ck_assert_int_eq(back.est.n, 12);
    static const char v1[] = "m bcast chain 16384 4 65536 41.2 40.8 41.9 12\n";
    ck_assert_int_eq(aot_tune_raw_format(&back, buf, sizeof(buf)), (int)strlen(v1));
    ck_assert_str_eq(buf, v1);
}
END_TEST

START_TEST(test_raw_format_too_small)
{
    struct aot_tune_raw r = raw("alltoall", "ring_n_barriers", 3, 1048576, 1099511627776ULL,
                                12345.6, 12000.5, 12999.9, 1000);
    char buf[512], small[512];
    int len = aot_tune_raw_format(&r, buf, sizeof(buf));

    ck_assert_int_gt(len, 0);
    ck_assert_int_eq(aot_tune_raw_format(&r, small, (size_t)len + 1), len);
    ck_assert_str_eq(small, buf);
    ck_assert_int_eq(aot_tune_raw_format(&r, small, (size_t)len), -1);    /* no room for NUL */
    ck_assert_int_eq(aot_tune_raw_format(&r, small, (size_t)len - 1), -1);
    ck_assert_int_eq(aot_tune_raw_format(&r, small, 10), -1);
    ck_assert_int_eq(aot_tune_raw_format(&r, small, 1), -1);
    ck_assert_int_eq(aot_tune_raw_format(&r, small, 0), -1);
}
END_TEST

START_TEST(test_raw_parse_errors)
{
    static const char *bad[] = {
        "",                                                   /* too few fields */
        "m",
        "m bcast chain 16384 4 65536 41.2 40.8 41.9",
        "m bcast chain 16384 4 65536 41.2 40.8 41.9 12 13",   /* 11, 13 or 15 */
        "m bcast chain 16384 4 65536 41.2 40.8 41.9 12 13 12 14",
        "m bcast chain 16384 4 65536 41.2 40.8 41.9 12 13 12 14 5 6",
        "m bcast chain 16384 4 65536 41.2 40.8 41.9 12 0 0 0 5",      /* b2b median */
        "m bcast chain 16384 4 65536 41.2 40.8 41.9 12 x 1 2 5",
        "m bcast chain 16384 4 65536 41.2 40.8 41.9 12 13 13.5 14 5", /* b2b lo > median */
        "m bcast chain 16384 4 65536 41.2 40.8 41.9 12 13 12 12.5 5", /* b2b hi < median */
        "m bcast chain 16384 4 65536 41.2 40.8 41.9 12 13 12 14 0",   /* b2b reps */
        "x bcast chain 16384 4 65536 41.2 40.8 41.9 12",      /* tag */
        "mx bcast chain 16384 4 65536 41.2 40.8 41.9 12",
        "M bcast chain 16384 4 65536 41.2 40.8 41.9 12",
        "m bcast chain 16384 4 65536 -41.2 -41.5 -41.0 12",   /* median negative */
        "m bcast chain 16384 4 65536 0 0 0 12",               /* median not positive */
        "m bcast chain 16384 4 65536 abc 40.8 41.9 12",       /* median not a number */
        "m bcast chain 16384 4 65536 41.2x 40.8 41.9 12",
        "m bcast chain 16384 4 65536 nan 40.8 41.9 12",
        "m bcast chain 16384 4 65536 41.2 41.5 41.9 12",      /* lo > median */
        "m bcast chain 16384 4 65536 41.2 40.8 41.0 12",      /* hi < median */
        "m bcast chain 16384 0 65536 41.2 40.8 41.9 12",      /* ranks */
        "m bcast chain 16384 -4 65536 41.2 40.8 41.9 12",
        "m bcast chain 16384 4 abc 41.2 40.8 41.9 12",        /* bytes */
        "m bcast chain 16384 4 65536x 41.2 40.8 41.9 12",
        "m bcast chain abc 4 65536 41.2 40.8 41.9 12",        /* param */
        "m bcast chain 16384 4 65536 41.2 40.8 41.9 0",       /* reps */
        "m bcast chain 16384 4 65536 41.2 40.8 41.9 abc",
        "m " NAME47 "v chain 16384 4 65536 41.2 40.8 41.9 12", /* names of 48 */
        "m bcast " NAME47 "v 16384 4 65536 41.2 40.8 41.9 12",
    };

    for (size_t n = 0; n < sizeof(bad) / sizeof(bad[0]); n++) {
        struct aot_tune_raw r;
        char err[256] = "";
        ck_assert_msg(aot_tune_raw_parse(bad[n], &r, err, sizeof(err)) == -1, "accepted: \"%s\"",
                      bad[n]);
        ck_assert_msg(err[0] != '\0', "no reason for \"%s\"", bad[n]);
    }
}
END_TEST

/* The messages the header gives as examples. */
START_TEST(test_raw_parse_messages)
{
    struct aot_tune_raw r;
    char err[256] = "";

    ck_assert_int_eq(aot_tune_raw_parse("m bcast chain 16384 4 65536 41.2", &r, err,
                                        sizeof(err)), -1);
    ck_assert_msg(strstr(err, "expected 10 or 14 fields") && strstr(err, "found 7"), "%s", err);
    err[0] = '\0';
    ck_assert_int_eq(aot_tune_raw_parse("m bcast chain 16384 4 65536 abc 40.8 41.9 12", &r, err,
                                        sizeof(err)), -1);
    ck_assert_msg(strstr(err, "median_us") != NULL, "%s", err);
    err[0] = '\0';
    ck_assert_int_eq(aot_tune_raw_parse("m bcast chain 16384 4 65536 41.2 40.8 41.9 12 0 0 0 5",
                                        &r, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "b2b_median_us: not a positive number");
    ck_assert_int_eq(aot_tune_raw_parse("m bcast chain 16384 4 65536 41.2 40.8 41.9 12 1 2 3 4 5",
                                        &r, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "expected 10 or 14 fields, found more than 14");
}
END_TEST

/* A short err buffer is filled, NUL-terminated, and not overrun. */
START_TEST(test_raw_parse_short_err)
{
    struct aot_tune_raw r;
    char err[64];

    memset(err, 'Z', sizeof(err));
    ck_assert_int_eq(aot_tune_raw_parse("m bcast", &r, err, 8), -1);
    ck_assert_int_gt((int)strlen(err), 0);
    ck_assert_int_lt((int)strlen(err), 8);
    for (size_t i = 8; i < sizeof(err); i++)
        ck_assert_int_eq(err[i], 'Z');
}
END_TEST

/* ---------------------------------------------------------------- rules from a row */

/* The range of sp[0..n) that covers bytes, or -1. */
static int covering(const struct aot_tune_span *sp, int n, uint64_t bytes)
{
    for (int i = 0; i < n; i++)
        if (sp[i].lo <= bytes && bytes <= sp[i].hi)
            return i;
    return -1;
}

/* recursive_doubling (1) against native (0), mocked: surely faster at 64 and 256 B, surely
 * slower at 128 B (as autoopt-bench-coll found it on 4 ranks), faster at 16, 32 and 512 */
START_TEST(test_spans_loser_between_winners)
{
    static const uint64_t bytes[6] = {16, 32, 64, 128, 256, 512};
    static const double rd_us[6] = {5, 5, 5, 16, 5, 5};
    struct aot_tune_gridpt g[6];
    struct aot_tune_span sp[6];
    int n, k;

    for (int i = 0; i < 6; i++) {
        struct aot_tune_two c[2] = {two(10, 0.2, 10, 0.2), two(rd_us[i], 0.2, rd_us[i], 0.2)};
        g[i] = (struct aot_tune_gridpt){bytes[i], 1, aot_tune_choose(c, 2, 0, -1), 0};
    }
    ck_assert_int_eq(g[2].choice, 1);
    ck_assert_int_eq(g[3].choice, 0);
    ck_assert_int_eq(g[4].choice, 1);
    /* the crossover searches: native from 100 B, recursive_doubling again from 181 B */
    g[3].cross = 100;
    g[4].cross = 181;
    n = aot_tune_spans(g, 6, sp);
    ck_assert_int_eq(n, 3);
    k = covering(sp, n, 128);
    ck_assert_int_ge(k, 0);
    ck_assert_int_eq(g[sp[k].first].choice, 0);            /* native: no algorithm's rule */
    ck_assert_int_eq(sp[k].lo, 100);
    ck_assert_int_eq(sp[k].hi, 180);
    ck_assert_int_eq(sp[0].lo, 16);
    ck_assert_int_eq(sp[0].hi, 99);
    ck_assert_int_eq(sp[0].first, 0);
    ck_assert_int_eq(sp[0].last, 2);
    ck_assert_int_eq(sp[2].lo, 181);
    ck_assert_int_eq(sp[2].hi, 512);
    for (uint64_t b = 0; b <= 600; b++) {
        k = covering(sp, n, b);
        if (b < 16 || b > 512)
            ck_assert_int_eq(k, -1);
        else
            ck_assert_int_ge(k, 0);
        if (k >= 0 && b >= 100 && b <= 180)
            ck_assert_int_eq(g[sp[k].first].choice, 0);
    }

    /* the budget left 128 out: recursive_doubling at 64 and at 256 makes no rule across it;
     * from 65 to 255 B no rule (native) */
    g[3].measured = 0;
    g[4].cross = 0;
    n = aot_tune_spans(g, 6, sp);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(sp[0].hi, 64);
    ck_assert_int_eq(sp[1].lo, 256);
    ck_assert_int_eq(sp[1].hi, 512);
    for (uint64_t b = 65; b < 256; b++)
        ck_assert_int_eq(covering(sp, n, b), -1);
}
END_TEST

START_TEST(test_spans_edges)
{
    struct aot_tune_gridpt g[4] = {{4, 1, 0, 0}, {8, 1, 0, 0}, {16, 1, 1, 0}, {32, 0, 1, 0}};
    struct aot_tune_span sp[4];
    int n;

    /* the first point, at most 8 bytes, covers 0; a change without a search: at the point */
    n = aot_tune_spans(g, 4, sp);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(sp[0].lo, 0);
    ck_assert_int_eq(sp[0].hi, 15);
    ck_assert_int_eq(sp[1].lo, 16);
    ck_assert_int_eq(sp[1].hi, 16);          /* 32 was not measured: nothing beyond 16 */
    /* a crossover outside the bracket is not taken */
    g[2].cross = 99;
    n = aot_tune_spans(g, 4, sp);
    ck_assert_int_eq(sp[1].lo, 16);
    /* the first grid point left out: the next starts at itself, not at 0 */
    g[0].measured = 0;
    n = aot_tune_spans(g, 4, sp);
    ck_assert_int_eq(sp[0].lo, 8);
    /* nothing measured: no range */
    for (int i = 0; i < 4; i++)
        g[i].measured = 0;
    ck_assert_int_eq(aot_tune_spans(g, 4, sp), 0);
}
END_TEST

/* autoopt-bench-coll's same-launch ratio (issue 55, item 8): turns of the tuned call and of
 * MPI's own in one launch, as measured on 4 ranks sharing 2 cores under foreign load: the
 * tuned allreduce (recursive_doubling) about 0.6 x native per call at 128 B, but bursts of
 * milliseconds hit three of its ten turns and one of native's.  The ratio of the sums calls
 * it 2.7 x slower; the median of the paired turns' ratios keeps 0.6. */
START_TEST(test_paired_ratio_burst)
{
    const double tuned[10] = {18.1, 2000, 17.9, 18.3, 2100, 18.0, 17.8, 1900, 18.2, 18.0};
    const double native[10] = {30.2, 30.0, 29.8, 30.1, 30.3, 2000, 29.9, 30.0, 30.2, 29.7};
    double r[10], sum_t = 0, sum_n = 0;
    struct aot_tune_est e;

    for (int i = 0; i < 10; i++)
        sum_t += tuned[i], sum_n += native[i];
    ck_assert(sum_t / sum_n > 2.5);             /* what the ratio of the sums said */
    ck_assert_int_eq(aot_tune_paired_ratio(tuned, native, 10, r, &e), 10);
    ck_assert_int_eq(e.n, 10);
    ck_assert(fabs(e.median - 0.6) < 0.01);
    ck_assert(e.lo <= e.median && e.median <= e.hi);
    for (int i = 1; i < 10; i++)
        ck_assert(r[i - 1] <= r[i]);            /* sorted on return */
}
END_TEST

START_TEST(test_paired_ratio_edges)
{
    const double a[4] = {10, 0, NAN, 30}, b[4] = {20, 10, 10, -1};
    double r[4];
    struct aot_tune_est e = {1, 1, 1, 1};

    /* a turn with no time (0, NaN or negative) leaves its pair out */
    ck_assert_int_eq(aot_tune_paired_ratio(a, b, 4, r, &e), 1);
    ck_assert_int_eq(e.n, 1);
    ck_assert(e.median == 0.5 && e.lo == 0.5 && e.hi == 0.5);
    /* no pair: nothing, e says so */
    ck_assert_int_eq(aot_tune_paired_ratio(a + 1, b + 1, 3, r, &e), 0);
    ck_assert_int_eq(e.n, 0);
    ck_assert_int_eq(aot_tune_paired_ratio(a, b, 0, r, &e), 0);
    ck_assert_int_eq(e.n, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tune");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_estimate_small);
    tcase_add_test(tc, test_estimate_n20);
    tcase_add_test(tc, test_estimate_every_n);
    tcase_add_test(tc, test_estimate_sorts);
    tcase_add_test(tc, test_precise);
    tcase_add_test(tc, test_surely_faster);
    tcase_add_test(tc, test_advantage);
    tcase_add_test(tc, test_gss_unimodal);
    tcase_add_test(tc, test_gss_named_widths);
    tcase_add_test(tc, test_gss_noisy);
    tcase_add_test(tc, test_gss_init);
    tcase_add_test(tc, test_gss_cached);
    tcase_add_test(tc, test_gss_out_of_order);
    tcase_add_test(tc, test_gss_done_and_best);
    tcase_add_test(tc, test_bisect_first_step);
    tcase_add_test(tc, test_bisect_resolution);
    tcase_add_test(tc, test_bisect_exact);
    tcase_add_test(tc, test_bisect_nothing_to_do);
    tcase_add_test(tc, test_pruned);
    tcase_add_test(tc, test_spans_loser_between_winners);
    tcase_add_test(tc, test_spans_edges);
    tcase_add_test(tc, test_paired_ratio_burst);
    tcase_add_test(tc, test_paired_ratio_edges);
    tcase_add_test(tc, test_race_rule);
    tcase_add_test(tc, test_race_synthetic);
    tcase_add_test(tc, test_surely_faster_both);
    tcase_add_test(tc, test_choose);
    tcase_add_test(tc, test_right_wins);
    tcase_add_test(tc, test_raw_round_trip);
    tcase_add_test(tc, test_raw_versions);
    tcase_add_test(tc, test_raw_format_text);
    tcase_add_test(tc, test_raw_parse_example);
    tcase_add_test(tc, test_raw_format_too_small);
    tcase_add_test(tc, test_raw_parse_errors);
    tcase_add_test(tc, test_raw_parse_messages);
    tcase_add_test(tc, test_raw_parse_short_err);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
