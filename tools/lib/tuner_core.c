/*
 * tuner_core.c: the pure core of the empirical tuner (aot_tuner_core.h, docs/tuning.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_tuner_core.h"

/* ---------------------------------------------------------------- estimates */

static int aot_tune_cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

void aot_tune_estimate(double *x, int n, struct aot_tune_est *e)
{
    qsort(x, (size_t) n, sizeof(*x), aot_tune_cmp);
    e->n = n;
    e->median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    if (n < 6) {
        e->lo = x[0];
        e->hi = x[n - 1];
        return;
    }
    /* 1-based ranks of the order statistics that bound the median with 95 % confidence */
    double half = 0.98 * sqrt((double) n);
    int j = (int) floor(n / 2.0 - half), k = (int) ceil(n / 2.0 + 1 + half);
    if (j < 1)
        j = 1;
    if (k > n)
        k = n;
    e->lo = x[j - 1];
    e->hi = x[k - 1];
}

int aot_tune_paired_ratio(const double *a, const double *b, int n, double *ratios,
                          struct aot_tune_est *e)
{
    int m = 0;

    for (int i = 0; i < n; i++)
        if (a[i] > 0 && b[i] > 0 && isfinite(a[i]) && isfinite(b[i]))
            ratios[m++] = a[i] / b[i];
    *e = (struct aot_tune_est){0, 0, 0, 0};
    if (m)
        aot_tune_estimate(ratios, m, e);
    return m;
}

int aot_tune_precise(const struct aot_tune_est *e, double tol)
{
    return (e->hi - e->lo) / 2 <= tol * e->median;
}

int aot_tune_surely_faster(const struct aot_tune_est *a, const struct aot_tune_est *b)
{
    return a->hi < b->lo;
}

double aot_tune_advantage(const struct aot_tune_est *a, const struct aot_tune_est *b)
{
    return b->median > 0 ? 100.0 * (b->median - a->median) / b->median : 0;
}

/* ---------------------------------------------------------------- the two timings */

int aot_tune_surely_faster_both(const struct aot_tune_two *a, const struct aot_tune_two *b)
{
    if (a->sep.n < 1 || a->b2b.n < 1 || b->sep.n < 1 || b->b2b.n < 1)
        return 0;
    return aot_tune_surely_faster(&a->sep, &b->sep) && aot_tune_surely_faster(&a->b2b, &b->b2b);
}

/* How much of native's time c takes in its slower way (a ratio of medians, < 1: faster). */
static double aot_tune_worse_ratio(const struct aot_tune_two *c, const struct aot_tune_two *nat)
{
    double s = c->sep.median / nat->sep.median, b = c->b2b.median / nat->b2b.median;
    return s > b ? s : b;
}

int aot_tune_choose(const struct aot_tune_two *c, int n, int native, int prev)
{
    const struct aot_tune_two *nat = &c[native];
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (i == native || !aot_tune_surely_faster_both(&c[i], nat))
            continue;
        if (best < 0 || aot_tune_worse_ratio(&c[i], nat) < aot_tune_worse_ratio(&c[best], nat))
            best = i;
    }
    if (best < 0)
        return native;
    if (prev >= 0 && prev < n && prev != native && aot_tune_surely_faster_both(&c[prev], nat)
        && !aot_tune_surely_faster_both(&c[best], &c[prev]))
        return prev;
    return best;
}

int aot_tune_right_wins(const struct aot_tune_two *l, int l_native, const struct aot_tune_two *r,
                        int r_native)
{
    if (l_native)
        return aot_tune_surely_faster_both(r, l);
    if (r_native)
        return !aot_tune_surely_faster_both(l, r);
    return r->sep.median + r->b2b.median <= l->sep.median + l->b2b.median;
}

/* ---------------------------------------------------------------- parameter search */

int aot_tune_gss_init(struct aot_tune_gss *g, int lo, int hi)
{
    if (hi < lo || hi - lo + 1 > AOT_TUNE_GSS_MAX)
        return -1;
    memset(g, 0, sizeof(*g));
    g->lo = g->a = lo;
    g->hi = g->b = hi;
    return 0;
}

static int aot_tune_gss_have(const struct aot_tune_gss *g, int i)
{
    return g->have[i - g->lo];
}

/* The two interior probes of bracket [a, b] at the golden ratio, distinct when b - a >= 3. */
static void aot_tune_gss_probes(int a, int b, int *c, int *d)
{
    const double r = 0.3819660112501051; /* 2 - golden ratio */
    *c = a + (int) lround(r * (b - a));
    *d = b - (int) lround(r * (b - a));
    if (*c <= a)
        *c = a + 1;
    if (*d >= b)
        *d = b - 1;
    if (*d <= *c)
        *d = *c + 1;
}

int aot_tune_gss_next(struct aot_tune_gss *g)
{
    for (;;) {
        if (g->b - g->a <= 2) {
            /* a bracket of at most 3 indices: measure what is left of it */
            for (int i = g->a; i <= g->b; i++)
                if (!aot_tune_gss_have(g, i))
                    return i;
            return g->lo - 1;
        }
        int c, d;
        aot_tune_gss_probes(g->a, g->b, &c, &d);
        if (!aot_tune_gss_have(g, c))
            return c;
        if (!aot_tune_gss_have(g, d))
            return d;
        /* both probes known: the minimum of a unimodal function lies in [a, d - 1] when
         * c is at least as fast as d (ties keep the left), else in [c + 1, b] */
        if (g->t[c - g->lo] <= g->t[d - g->lo])
            g->b = d - 1;
        else
            g->a = c + 1;
    }
}

void aot_tune_gss_report(struct aot_tune_gss *g, int i, double t)
{
    if (i < g->lo || i > g->hi)
        return;
    if (!g->have[i - g->lo])
        g->nmeasured++;
    g->have[i - g->lo] = 1;
    g->t[i - g->lo] = t;
}

int aot_tune_gss_best(const struct aot_tune_gss *g)
{
    int best = g->lo - 1;
    for (int i = g->lo; i <= g->hi; i++)
        if (g->have[i - g->lo] && (best < g->lo || g->t[i - g->lo] < g->t[best - g->lo]))
            best = i;
    return best;
}

/* ---------------------------------------------------------------- crossover search */

void aot_tune_bisect_init(struct aot_tune_bisect *b, uint64_t lo, uint64_t hi,
                          double resolution)
{
    b->lo = lo;
    b->hi = hi;
    b->resolution = resolution;
}

uint64_t aot_tune_bisect_next(const struct aot_tune_bisect *b)
{
    if (b->hi <= b->lo + 1 || (double) b->hi <= (double) b->lo * (1 + b->resolution))
        return 0;
    uint64_t m = (uint64_t) llround(sqrt((double) b->lo * (double) b->hi));
    if (b->lo == 0)
        m = b->hi / 2;
    if (m <= b->lo)
        m = b->lo + 1;
    if (m >= b->hi)
        m = b->hi - 1;
    return m;
}

void aot_tune_bisect_report(struct aot_tune_bisect *b, uint64_t bytes, int right_won)
{
    if (bytes <= b->lo || bytes >= b->hi)
        return;
    if (right_won)
        b->hi = bytes;
    else
        b->lo = bytes;
}

uint64_t aot_tune_bisect_cross(const struct aot_tune_bisect *b)
{
    return b->hi;
}

/* ---------------------------------------------------------------- rules from a row */

int aot_tune_spans(const struct aot_tune_gridpt *g, int n, struct aot_tune_span *out)
{
    int nr = 0, prev = -1;

    for (int i = 0; i < n; i++) {
        if (!g[i].measured)
            continue;
        if (prev >= 0 && prev == i - 1 && g[prev].choice == g[i].choice) {
            out[nr - 1].hi = g[i].bytes;          /* the same choice at the next point */
            out[nr - 1].last = i;
        } else if (prev >= 0 && prev == i - 1) {
            /* another choice at the next point: the crossover splits the sizes between */
            uint64_t cross = g[i].cross > g[prev].bytes && g[i].cross <= g[i].bytes
                             ? g[i].cross : g[i].bytes;
            out[nr - 1].hi = cross - 1;
            out[nr++] = (struct aot_tune_span){cross, g[i].bytes, i, i};
        } else {
            /* the first point, or one after a point left out: from itself */
            uint64_t lo = i == 0 && g[i].bytes <= 8 ? 0 : g[i].bytes;
            out[nr++] = (struct aot_tune_span){lo, g[i].bytes, i, i};
        }
        prev = i;
    }
    return nr;
}

/* ---------------------------------------------------------------- pruning */

int aot_tune_pruned(double t_left, double best_left, double t_right, double best_right,
                    double factor)
{
    if (t_left <= 0 || t_right <= 0 || best_left <= 0 || best_right <= 0)
        return 0;
    return t_left > factor * best_left && t_right > factor * best_right;
}

/* ---------------------------------------------------------------- racing */

int aot_tune_race(const struct aot_tune_est *e, int n, const unsigned char *keep,
                  unsigned char *alive, double factor)
{
    int lead = -1, left = 0;
    for (int i = 0; i < n; i++)
        if (alive[i] && (lead < 0 || e[i].median < e[lead].median))
            lead = i;
    for (int i = 0; i < n; i++) {
        if (!alive[i])
            continue;
        if (i != lead && !(keep && keep[i]) && e[i].lo > factor * e[lead].hi)
            alive[i] = 0;
        else
            left++;
    }
    return left;
}

/* ---------------------------------------------------------------- raw measurements */

int aot_tune_raw_format(const struct aot_tune_raw *r, char *buf, size_t len)
{
    int n = snprintf(buf, len, "m %s %s %ld %d %llu %.9g %.9g %.9g %d", r->coll, r->alg,
                     r->param, r->ranks, (unsigned long long) r->bytes, r->est.median,
                     r->est.lo, r->est.hi, r->est.n);
    if (n < 0 || (size_t) n >= len)
        return -1;
    int m = r->b2b.n > 0 ? snprintf(buf + n, len - (size_t) n, " %.9g %.9g %.9g %d\n",
                                    r->b2b.median, r->b2b.lo, r->b2b.hi, r->b2b.n)
                         : snprintf(buf + n, len - (size_t) n, "\n");
    return m < 0 || (size_t) m >= len - (size_t) n ? -1 : n + m;
}

static int aot_tune_num(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return errno || end == s || *end || !isfinite(*v) || *v < 0 ? -1 : 0;
}

static int aot_tune_int(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    if (*s == '-' || *s == '+' || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long u = strtoull(s, &end, 10);
    if (errno || *end || u > (unsigned long long) hi || (long long) u < lo)
        return -1;
    *v = (long long) u;
    return 0;
}

/* One estimate from four fields: median, lo, hi, reps; what[0..4) names them in messages. */
static int aot_tune_parse_est(char *const *f, const char *const *what, struct aot_tune_est *e,
                              char *err, size_t errlen)
{
    double d[3];
    long long v;

    for (int i = 0; i < 3; i++)
        if (aot_tune_num(f[i], &d[i]) != 0) {
            snprintf(err, errlen, "%s: not a number >= 0", what[i]);
            return -1;
        }
    if (d[0] <= 0) {
        snprintf(err, errlen, "%s: not a positive number", what[0]);
        return -1;
    }
    if (d[1] > d[0] || d[2] < d[0]) {
        snprintf(err, errlen, "the interval [%s, %s] does not hold the median", what[1],
                 what[2]);
        return -1;
    }
    if (aot_tune_int(f[3], 1, 1 << 30, &v) != 0) {
        snprintf(err, errlen, "%s: not an integer 1..2^30", what[3]);
        return -1;
    }
    e->median = d[0];
    e->lo = d[1];
    e->hi = d[2];
    e->n = (int) v;
    return 0;
}

int aot_tune_raw_parse(const char *line, struct aot_tune_raw *r, char *err, size_t errlen)
{
    static const char *const what[] = {"tag", "collective", "algorithm", "param", "ranks",
                                       "bytes", "median_us", "lo_us", "hi_us", "reps",
                                       "b2b_median_us", "b2b_lo_us", "b2b_hi_us", "b2b_reps"};
    char copy[512], *f[15], *save = NULL;
    int nf = 0;
    long long v;

    if (strlen(line) >= sizeof(copy)) {
        snprintf(err, errlen, "line longer than %zu characters", sizeof(copy) - 1);
        return -1;
    }
    strcpy(copy, line);
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (nf == 15)
            break;
        f[nf++] = t;
    }
    if (nf != 10 && nf != 14) {
        snprintf(err, errlen, "expected 10 or 14 fields, found %s%d",
                 nf == 15 ? "more than " : "", nf == 15 ? 14 : nf);
        return -1;
    }
    if (strcmp(f[0], "m") != 0) {
        snprintf(err, errlen, "expected 'm' as the first field");
        return -1;
    }
    for (int i = 1; i <= 2; i++)
        if (strlen(f[i]) >= AOT_TUNE_NAME_MAX) {
            snprintf(err, errlen, "%s: longer than %d characters", what[i],
                     AOT_TUNE_NAME_MAX - 1);
            return -1;
        }
    snprintf(r->coll, sizeof(r->coll), "%s", f[1]);
    snprintf(r->alg, sizeof(r->alg), "%s", f[2]);
    if (aot_tune_int(f[3], 0, 1LL << 40, &v) != 0) {
        snprintf(err, errlen, "param: not an integer 0..2^40");
        return -1;
    }
    r->param = (long) v;
    if (aot_tune_int(f[4], 1, 1 << 30, &v) != 0) {
        snprintf(err, errlen, "ranks: not an integer 1..2^30");
        return -1;
    }
    r->ranks = (int) v;
    if (aot_tune_int(f[5], 0, 1LL << 62, &v) != 0) {
        snprintf(err, errlen, "bytes: not an integer 0..2^62");
        return -1;
    }
    r->bytes = (uint64_t) v;
    if (aot_tune_parse_est(f + 6, what + 6, &r->est, err, errlen) != 0)
        return -1;
    memset(&r->b2b, 0, sizeof(r->b2b));
    if (nf == 14 && aot_tune_parse_est(f + 10, what + 10, &r->b2b, err, errlen) != 0)
        return -1;
    return 0;
}
