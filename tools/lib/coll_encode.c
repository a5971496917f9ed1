/*
 * coll_encode.c: decision encodings of measured collective performance (aot_encode.h,
 * docs/tuning.md "Decision encodings"): the decision map, the quadtree of Pjesivac-Grbovic
 * et al. (2007), the penalty-aware tree, interval rules, their statistics, tuning-file rules
 * and C.  No MPI, no global state, no registry.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Costs, for a map of R rows, C columns and M methods:
 *   map            O(records log records + R C M)
 *   quadtree       O(N^2 log N) cells visited, N the padded side
 *   penalty tree   exact DP: O(R^2 C^2 M) for the leaves, then per level the cut pairs of
 *                  every rectangle, about (R^3/6)(C^3/6); greedy: O(R C M) per node
 *   interval rules O(runs^2 M) with a limit
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_encode.h"
#include "aot_tuner_core.h"

/* Sums of penalties are compared within this relative margin (prefix sums round). */
#define EPS_REL 1e-9

static int better_sum(double a, double b)
{
    return a < b - EPS_REL * (1.0 + fabs(b));
}

/* ---------------------------------------------------------------- raw files */

void aot_encode_raw_init(struct aot_encode_raw *r)
{
    r->rec = NULL;
    r->n = r->cap = 0;
    r->incomplete_line = 0;
}

void aot_encode_raw_free(struct aot_encode_raw *r)
{
    free(r->rec);
    aot_encode_raw_init(r);
}

int aot_encode_raw_add(struct aot_encode_raw *r, const struct aot_tune_raw *rec)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        struct aot_tune_raw *nr = realloc(r->rec, cap * sizeof(*nr));
        if (!nr)
            return -1;
        r->rec = nr;
        r->cap = cap;
    }
    r->rec[r->n++] = *rec;
    return 0;
}

int aot_encode_raw_parse(struct aot_encode_raw *r, const char *text, size_t len,
                         const char *name, char *err, size_t errlen)
{
    /* version 2 adds the back-to-back estimate, which the map does not use */
    static const char header[] = "autoopt-tune-raw 1' or 'autoopt-tune-raw 2";
    size_t pos = 0;
    int lineno = 0;
    char line[512], msg[256];

    r->incomplete_line = 0;
    while (pos < len) {
        size_t end = pos, n;
        struct aot_tune_raw rec;

        while (end < len && text[end] != '\n')
            end++;
        n = end - pos;
        lineno++;
        if (memchr(text + pos, '\0', n)) {
            snprintf(err, errlen, "%s:%d: a NUL byte in the line (not a raw file?)", name,
                     lineno);
            return -1;
        }
        if (n >= sizeof(line)) {
            snprintf(err, errlen, "%s:%d: line longer than %zu characters", name, lineno,
                     sizeof(line) - 1);
            return -1;
        }
        memcpy(line, text + pos, n);
        line[n] = '\0';
        pos = end + 1;
        if (lineno == 1) {
            if (strcmp(line, "autoopt-tune-raw 1") != 0
                && strcmp(line, "autoopt-tune-raw 2") != 0) {
                snprintf(err, errlen, "%s:1: expected '%s': not a raw file of autoopt-tune",
                         name, header);
                return -1;
            }
            continue;
        }
        if (end == len) {
            /* the last line of a run killed mid-write: the tuner measures it again */
            if (n > 0)
                r->incomplete_line = lineno;
            break;
        }
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (aot_tune_raw_parse(line, &rec, msg, sizeof(msg)) != 0) {
            snprintf(err, errlen, "%s:%d: %s", name, lineno, msg);
            return -1;
        }
        if (aot_encode_raw_add(r, &rec) != 0) {
            snprintf(err, errlen, "%s:%d: out of memory", name, lineno);
            return -1;
        }
    }
    if (lineno == 0) {
        snprintf(err, errlen, "%s:1: empty file: expected '%s'", name, header);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- the decision map */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *) a, y = *(const int *) b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static int cmp_method(const void *a, const void *b)
{
    const struct aot_encode_method *x = a, *y = b;
    int c = strcmp(x->alg, y->alg);
    if (c)
        return c;
    return x->param < y->param ? -1 : x->param > y->param;
}

/* Sorts and removes duplicates; returns the new count. */
static int uniq(void *base, int n, size_t size, int (*cmp)(const void *, const void *))
{
    char *b = base;
    int k = 0;
    if (n == 0)
        return 0;
    qsort(base, (size_t) n, size, cmp);
    for (int i = 1; i < n; i++)
        if (cmp(b + (size_t) k * size, b + (size_t) i * size) != 0) {
            k++;
            if (k != i)
                memcpy(b + (size_t) k * size, b + (size_t) i * size, size);
        }
    return k + 1;
}

void aot_encode_map_free(struct aot_encode_map *m)
{
    free(m->ranks);
    free(m->bytes);
    free(m->methods);
    free(m->time);
    free(m->best);
    free(m->fill);
    free(m->worst);
    memset(m, 0, sizeof(*m));
}

int aot_encode_map_build(struct aot_encode_map *m, const char *coll,
                         const struct aot_tune_raw *rec, size_t n, char *err, size_t errlen)
{
    size_t k = 0;
    int R, C, M;

    memset(m, 0, sizeof(*m));
    snprintf(m->coll, sizeof(m->coll), "%s", coll);
    for (size_t i = 0; i < n; i++)
        if (strcmp(rec[i].coll, coll) == 0)
            k++;
    if (k == 0) {
        snprintf(err, errlen, "no measurements of %s", coll);
        return -1;
    }
    if (k > INT_MAX) {
        snprintf(err, errlen, "%s: too many records", coll);
        return -1;
    }
    m->ranks = malloc(k * sizeof(*m->ranks));
    m->bytes = malloc(k * sizeof(*m->bytes));
    m->methods = malloc(k * sizeof(*m->methods));
    if (!m->ranks || !m->bytes || !m->methods)
        goto oom;
    k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rec[i].coll, coll) != 0)
            continue;
        if (!(rec[i].est.median > 0)) {
            snprintf(err, errlen, "%s %s %ld at %d ranks, %llu bytes: the median must be above 0",
                     coll, rec[i].alg, rec[i].param, rec[i].ranks,
                     (unsigned long long) rec[i].bytes);
            return -1;
        }
        m->ranks[k] = rec[i].ranks;
        m->bytes[k] = rec[i].bytes;
        snprintf(m->methods[k].alg, sizeof(m->methods[k].alg), "%s", rec[i].alg);
        m->methods[k].param = rec[i].param;
        k++;
    }
    R = m->nrows = uniq(m->ranks, (int) k, sizeof(*m->ranks), cmp_int);
    C = m->ncols = uniq(m->bytes, (int) k, sizeof(*m->bytes), cmp_u64);
    M = m->nmethods = uniq(m->methods, (int) k, sizeof(*m->methods), cmp_method);
    if ((double) R * C * M > (double) AOT_ENCODE_MAP_MAX) {
        snprintf(err, errlen, "%s: a map of %d x %d points x %d methods is too large (at most "
                 "%ld time slots)", coll, R, C, M, (long) AOT_ENCODE_MAP_MAX);
        return -1;
    }
    m->time = calloc((size_t) R * C * M, sizeof(*m->time));
    m->best = malloc((size_t) R * C * sizeof(*m->best));
    m->fill = malloc((size_t) R * C * sizeof(*m->fill));
    m->worst = calloc((size_t) R * C, sizeof(*m->worst));
    if (!m->time || !m->best || !m->fill || !m->worst)
        goto oom;

    for (size_t i = 0; i < n; i++) {
        struct aot_encode_method key;
        const int *pr;
        const uint64_t *pb;
        const struct aot_encode_method *pm;
        size_t slot;

        if (strcmp(rec[i].coll, coll) != 0)
            continue;
        snprintf(key.alg, sizeof(key.alg), "%s", rec[i].alg);
        key.param = rec[i].param;
        pr = bsearch(&rec[i].ranks, m->ranks, (size_t) R, sizeof(int), cmp_int);
        pb = bsearch(&rec[i].bytes, m->bytes, (size_t) C, sizeof(uint64_t), cmp_u64);
        pm = bsearch(&key, m->methods, (size_t) M, sizeof(key), cmp_method);
        slot = ((size_t) (pr - m->ranks) * C + (size_t) (pb - m->bytes)) * M
               + (size_t) (pm - m->methods);
        if (m->time[slot] > 0)
            m->replaced++;
        m->time[slot] = rec[i].est.median;
    }

    for (int p = 0; p < R * C; p++) {
        const double *t = &m->time[(size_t) p * M];
        int best = -1, measured = 0;
        double worst = 0;
        for (int j = 0; j < M; j++) {
            if (!(t[j] > 0))
                continue;
            measured++;
            if (best < 0 || t[j] < t[best])
                best = j;
            if (t[j] > worst)
                worst = t[j];
        }
        m->best[p] = best;
        m->worst[p] = worst;
        if (best < 0) {
            m->dropped++;
        } else {
            m->points++;
            m->missing += M - measured;
        }
    }
    /* fill colours: a dropped point takes the nearest real point of its row to the left,
     * else to the right */
    for (int i = 0; i < R; i++) {
        int last = -1;
        for (int j = 0; j < C; j++) {
            int b = m->best[i * C + j];
            if (b >= 0)
                last = b;
            m->fill[i * C + j] = b >= 0 ? b : last;
        }
        last = -1;
        for (int j = C - 1; j >= 0; j--) {
            if (m->best[i * C + j] >= 0)
                last = m->best[i * C + j];
            if (m->fill[i * C + j] < 0)
                m->fill[i * C + j] = last;
        }
    }
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory", coll);
    return -1;
}

int aot_encode_real(const struct aot_encode_map *m, int row, int col)
{
    return m->best[row * m->ncols + col] >= 0;
}

double aot_encode_time(const struct aot_encode_map *m, int row, int col, int method)
{
    int p = row * m->ncols + col;
    double t = m->time[(size_t) p * m->nmethods + method];
    return t > 0 ? t : m->worst[p];
}

double aot_encode_penalty(const struct aot_encode_map *m, int row, int col, int method)
{
    int p = row * m->ncols + col;
    double best = m->time[(size_t) p * m->nmethods + m->best[p]];
    return 100.0 * (aot_encode_time(m, row, col, method) - best) / best;
}

int aot_encode_row_of(const struct aot_encode_map *m, int comm_size)
{
    int lo = 0, hi = m->nrows - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (m->ranks[mid] <= comm_size)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int aot_encode_col_of(const struct aot_encode_map *m, uint64_t bytes)
{
    int lo = 0, hi = m->ncols - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (m->bytes[mid] <= bytes)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int aot_encode_method_name(const struct aot_encode_method *mt, char *buf, size_t len)
{
    int n = mt->param ? snprintf(buf, len, "%s %ld", mt->alg, mt->param)
                      : snprintf(buf, len, "%s", mt->alg);
    return n < 0 || (size_t) n >= len ? -1 : 0;
}

/* ---------------------------------------------------------------- encoding names */

static int parse_int(const char *s, long lo, long hi, long *v)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    *v = strtol(s, &end, 10);
    return *end || *v < lo || *v > hi ? -1 : 0;
}

int aot_encode_spec_parse(const char *name, struct aot_encode_spec *s, char *err,
                          size_t errlen)
{
    char copy[128], *save = NULL, *tok;
    const char *kind;
    int have_depth = 0, have_thr = 0, have_pad = 0, have_limit = 0;
    long v;

    memset(s, 0, sizeof(*s));
    s->threshold = 100;
    s->pad = AOT_ENCODE_PAD_SQUARE;
    if (strlen(name) >= sizeof(copy)) {
        snprintf(err, errlen, "encoding name longer than %zu characters", sizeof(copy) - 1);
        return -1;
    }
    strcpy(copy, name);
    kind = strtok_r(copy, ":", &save);
    if (!kind)
        kind = "";
    if (strcmp(kind, "exact") == 0)
        s->kind = AOT_ENCODE_EXACT;
    else if (strcmp(kind, "quadtree") == 0)
        s->kind = AOT_ENCODE_QUADTREE;
    else if (strcmp(kind, "penalty") == 0)
        s->kind = AOT_ENCODE_PENALTY;
    else if (strcmp(kind, "rules") == 0)
        s->kind = AOT_ENCODE_RULES;
    else {
        snprintf(err, errlen, "%s: unknown encoding '%s' (known: exact, quadtree, penalty, "
                 "rules)", name, kind);
        return -1;
    }
    while ((tok = strtok_r(NULL, ":", &save)) != NULL) {
        char *eq = strchr(tok, '=');
        const char *val = eq ? eq + 1 : "";
        if (eq)
            *eq = '\0';
        if (s->kind == AOT_ENCODE_EXACT) {
            snprintf(err, errlen, "%s: 'exact' takes no settings", name);
            return -1;
        }
        if (strcmp(tok, "depth") == 0 && s->kind != AOT_ENCODE_RULES && !have_depth) {
            long hi = s->kind == AOT_ENCODE_PENALTY ? 16 : 32;
            if (parse_int(val, 1, hi, &v) != 0) {
                snprintf(err, errlen, "%s: depth must be an integer 1..%ld", name, hi);
                return -1;
            }
            s->max_depth = (int) v;
            have_depth = 1;
        } else if (strcmp(tok, "threshold") == 0 && s->kind == AOT_ENCODE_QUADTREE && !have_thr) {
            char *end;
            double d = strtod(val, &end);
            if (end == val || *end || !(d > 0 && d <= 100)) {
                snprintf(err, errlen, "%s: threshold must be a percentage above 0, at most 100",
                         name);
                return -1;
            }
            s->threshold = d;
            have_thr = 1;
        } else if (strcmp(tok, "pad") == 0 && s->kind == AOT_ENCODE_QUADTREE && !have_pad) {
            if (strcmp(val, "square") == 0)
                s->pad = AOT_ENCODE_PAD_SQUARE;
            else if (strcmp(val, "axis") == 0)
                s->pad = AOT_ENCODE_PAD_AXIS;
            else {
                snprintf(err, errlen, "%s: pad must be 'square' or 'axis'", name);
                return -1;
            }
            have_pad = 1;
        } else if (strcmp(tok, "limit") == 0 && s->kind == AOT_ENCODE_RULES && !have_limit) {
            if (parse_int(val, 1, INT_MAX, &v) != 0) {
                snprintf(err, errlen, "%s: limit must be an integer of at least 1", name);
                return -1;
            }
            s->limit = (int) v;
            have_limit = 1;
        } else {
            static const char *const known[] = {
                [AOT_ENCODE_QUADTREE] = "depth=D, threshold=P, pad=square|axis",
                [AOT_ENCODE_PENALTY] = "depth=D",
                [AOT_ENCODE_RULES] = "limit=N",
            };
            snprintf(err, errlen, "%s: unexpected or repeated setting '%s' (known: %s)", name,
                     tok, known[s->kind]);
            return -1;
        }
    }
    if (s->kind == AOT_ENCODE_PENALTY && !have_depth) {
        snprintf(err, errlen, "%s: the penalty tree needs depth=D (1..16)", name);
        return -1;
    }
    return 0;
}

int aot_encode_spec_format(const struct aot_encode_spec *s, char *buf, size_t len)
{
    int n = 0;
    switch (s->kind) {
    case AOT_ENCODE_EXACT:
        n = snprintf(buf, len, "exact");
        break;
    case AOT_ENCODE_QUADTREE: {
        char d[32] = "", t[48] = "";
        if (s->max_depth)
            snprintf(d, sizeof(d), ":depth=%d", s->max_depth);
        if (s->threshold < 100)
            snprintf(t, sizeof(t), ":threshold=%.15g", s->threshold);
        n = snprintf(buf, len, "quadtree%s%s%s", d, t,
                     s->pad == AOT_ENCODE_PAD_AXIS ? ":pad=axis" : "");
        break;
    }
    case AOT_ENCODE_PENALTY:
        n = snprintf(buf, len, "penalty:depth=%d", s->max_depth);
        break;
    case AOT_ENCODE_RULES:
        n = s->limit ? snprintf(buf, len, "rules:limit=%d", s->limit)
                     : snprintf(buf, len, "rules");
        break;
    }
    return n < 0 || (size_t) n >= len ? -1 : 0;
}

/* ---------------------------------------------------------------- trees: nodes */

static int node_new(struct aot_encoding *e, int r0, int r1, int c0, int c1)
{
    struct aot_encode_node *n;
    if (e->nnodes == e->capnodes) {
        int cap = e->capnodes ? 2 * e->capnodes : 64;
        struct aot_encode_node *nn = realloc(e->nodes, (size_t) cap * sizeof(*nn));
        if (!nn)
            return -1;
        e->nodes = nn;
        e->capnodes = cap;
    }
    n = &e->nodes[e->nnodes];
    n->r0 = r0;
    n->r1 = r1;
    n->c0 = c0;
    n->c1 = c1;
    n->rcut = n->ccut = 0;
    n->child[0] = n->child[1] = n->child[2] = n->child[3] = -1;
    n->method = -1;
    return e->nnodes++;
}

static int leaf_new(struct aot_encoding *e, int r0, int r1, int c0, int c1, int method)
{
    int id = node_new(e, r0, r1, c0, c1);
    if (id >= 0)
        e->nodes[id].method = method;
    return id;
}

/* ---------------------------------------------------------------- the quadtree */

struct qt {
    const struct aot_encode_map *m;
    const struct aot_encode_spec *s;
    struct aot_encoding *e;
    int *count;                 /* [nmethods] scratch */
};

static int argmax(const int *count, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (count[i] > count[best])
            best = i;
    return best;
}

/* The block of the padded grid at (a, b) of h x w cells, which holds at least one map cell.
 * Returns its node, or -1 when out of memory. */
static int qt_build(struct qt *q, int a, int b, int h, int w, int level)
{
    const struct aot_encode_map *m = q->m;
    int R = m->nrows, C = m->ncols, M = m->nmethods;
    int r1 = a + h < R ? a + h : R, c1 = b + w < C ? b + w : C;
    int nreal = 0, maj, hh, hw, kids[4], nkids = 0, id;

    memset(q->count, 0, (size_t) M * sizeof(*q->count));
    for (int i = a; i < r1; i++)
        for (int j = b; j < c1; j++)
            if (m->best[i * C + j] >= 0) {
                q->count[m->best[i * C + j]]++;
                nreal++;
            }
    if (nreal == 0) {
        /* no real point: the fill colours of the block, its padded copies included */
        for (int i = a; i < a + h; i++)
            for (int j = b; j < b + w; j++)
                q->count[m->fill[(i < R ? i : R - 1) * C + (j < C ? j : C - 1)]]++;
    }
    maj = argmax(q->count, M);
    if (nreal == 0 || (h == 1 && w == 1) || (q->s->max_depth && level >= q->s->max_depth)
        || 100.0 * q->count[maj] >= q->s->threshold * nreal * (1 - 1e-12))
        return leaf_new(q->e, a, r1, b, c1, maj);

    /* square: both axes halve (h == w); axis: an axis halves while longer than one cell */
    hh = h > 1 ? h / 2 : h;
    hw = w > 1 ? w / 2 : w;
    for (int pr = 0; pr < (hh < h ? 2 : 1); pr++)
        for (int pc = 0; pc < (hw < w ? 2 : 1); pc++) {
            int ca = a + pr * hh, cb = b + pc * hw;
            if (ca < R && cb < C)
                kids[nkids++] = pr * 2 + pc;   /* reachable: holds a map cell */
        }
    if (nkids == 1) {
        /* the other quadrants are all padding: this level tests nothing */
        int pr = kids[0] / 2, pc = kids[0] % 2;
        return qt_build(q, a + pr * hh, b + pc * hw, pr ? h - hh : hh, pc ? w - hw : hw,
                        level + 1);
    }
    id = node_new(q->e, a, r1, b, c1);
    if (id < 0)
        return -1;
    if (hh < h && a + hh < R)
        q->e->nodes[id].rcut = a + hh;
    if (hw < w && b + hw < C)
        q->e->nodes[id].ccut = b + hw;
    for (int k = 0; k < nkids; k++) {
        int pr = kids[k] / 2, pc = kids[k] % 2;
        int kid = qt_build(q, a + pr * hh, b + pc * hw, pr ? h - hh : hh, pc ? w - hw : hw,
                           level + 1);
        if (kid < 0)
            return -1;
        q->e->nodes[id].child[kids[k]] = kid;
    }
    return id;
}

static int pow2_at_least(int n)
{
    int p = 1;
    while (p < n)
        p *= 2;
    return p;
}

static int quadtree(const struct aot_encode_map *m, const struct aot_encode_spec *s,
                    struct aot_encoding *e)
{
    struct qt q = {m, s, e, calloc((size_t) m->nmethods, sizeof(int))};
    int rc;
    if (!q.count)
        return -1;
    if (s->pad == AOT_ENCODE_PAD_SQUARE) {
        e->pad_rows = e->pad_cols = pow2_at_least(m->nrows > m->ncols ? m->nrows : m->ncols);
    } else {
        e->pad_rows = pow2_at_least(m->nrows);
        e->pad_cols = pow2_at_least(m->ncols);
    }
    rc = qt_build(&q, 0, 0, e->pad_rows, e->pad_cols, 0) < 0 ? -1 : 0;
    free(q.count);
    return rc;
}

/* ---------------------------------------------------------------- prefix sums */

/* 2-D prefix sums over the map of each method's penalty and fill colour, and of real points:
 * the sums over any rectangle in O(1) per method. */
struct psum {
    int R, C, M;
    double *pen;                /* [M][(R+1)(C+1)] */
    int *fillc;                 /* [M][(R+1)(C+1)] */
    int *real;                  /* [(R+1)(C+1)] */
};

static void psum_free(struct psum *ps)
{
    free(ps->pen);
    free(ps->fillc);
    free(ps->real);
}

static int psum_init(struct psum *ps, const struct aot_encode_map *m)
{
    int R = m->nrows, C = m->ncols, M = m->nmethods, W = C + 1;
    size_t plane = (size_t) (R + 1) * W;

    ps->R = R;
    ps->C = C;
    ps->M = M;
    ps->pen = calloc(plane * M, sizeof(*ps->pen));
    ps->fillc = calloc(plane * M, sizeof(*ps->fillc));
    ps->real = calloc(plane, sizeof(*ps->real));
    if (!ps->pen || !ps->fillc || !ps->real) {
        psum_free(ps);
        return -1;
    }
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            size_t at = (size_t) (i + 1) * W + (j + 1), up = (size_t) i * W + (j + 1);
            size_t left = (size_t) (i + 1) * W + j, diag = (size_t) i * W + j;
            int real = m->best[i * C + j] >= 0;
            ps->real[at] = ps->real[up] + ps->real[left] - ps->real[diag] + real;
            for (int k = 0; k < M; k++) {
                double *P = ps->pen + (size_t) k * plane;
                int *F = ps->fillc + (size_t) k * plane;
                double v = real ? aot_encode_penalty(m, i, j, k) : 0;
                P[at] = P[up] + P[left] - P[diag] + v;
                F[at] = F[up] + F[left] - F[diag] + (m->fill[i * C + j] == k);
            }
        }
    return 0;
}

/* The best leaf for rows [a, b) x columns [c, d): the method with the least summed penalty
 * over its real points, or the majority fill colour without real points; *cost its sum. */
static int psum_leaf(const struct psum *ps, int a, int b, int c, int d, double *cost)
{
    size_t W = (size_t) ps->C + 1, plane = (size_t) (ps->R + 1) * W;
    size_t i11 = (size_t) b * W + d, i01 = (size_t) a * W + d, i10 = (size_t) b * W + c,
           i00 = (size_t) a * W + c;
    int best = 0;

    if (ps->real[i11] - ps->real[i01] - ps->real[i10] + ps->real[i00] == 0) {
        int most = -1;
        for (int k = 0; k < ps->M; k++) {
            const int *F = ps->fillc + (size_t) k * plane;
            int n = F[i11] - F[i01] - F[i10] + F[i00];
            if (n > most) {
                most = n;
                best = k;
            }
        }
        *cost = 0;
        return best;
    }
    double bc = 0;
    for (int k = 0; k < ps->M; k++) {
        const double *P = ps->pen + (size_t) k * plane;
        double s = P[i11] - P[i01] - P[i10] + P[i00];
        if (k == 0 || better_sum(s, bc)) {
            bc = s;
            best = k;
        }
    }
    *cost = bc > 0 ? bc : 0;    /* a region of exact choices may sum to -1e-15 */
    return best;
}

/* ---------------------------------------------------------------- the penalty-aware tree */

struct dp {
    const struct psum *ps;
    int R, C, D;
    long NC, N;                 /* column intervals, rectangles */
    int *rid, *cid;             /* interval index of [a, b): rid[a * (R + 1) + b] */
    double *lcost;              /* [N] leaf cost */
    int *llab;                  /* [N] leaf label */
    int *choice;                /* [D][N]: 0 leaf, else rcut * (C + 1) + ccut */
};

static long rect_id(const struct dp *x, int a, int b, int c, int d)
{
    return (long) x->rid[a * (x->R + 1) + b] * x->NC + x->cid[c * (x->C + 1) + d];
}

/* (cost, leaves) a is better than b: less cost, or as much and fewer leaves */
static int better_tree(double ca, int la, double cb, int lb)
{
    if (better_sum(ca, cb))
        return 1;
    return !better_sum(cb, ca) && la < lb;
}

static int dp_rebuild(const struct dp *x, struct aot_encoding *e, int a, int b, int c, int d,
                      int level)
{
    long id = rect_id(x, a, b, c, d);
    int ch = level > 0 ? x->choice[(long) (level - 1) * x->N + id] : 0;
    int rc = ch / (x->C + 1), cc = ch % (x->C + 1), node;

    if (ch == 0)
        return leaf_new(e, a, b, c, d, x->llab[id]);
    node = node_new(e, a, b, c, d);
    if (node < 0)
        return -1;
    e->nodes[node].rcut = rc;
    e->nodes[node].ccut = cc;
    for (int k = 0; k < 4; k++) {
        int pr = k / 2, pc = k % 2, kid;
        if ((pr && !rc) || (pc && !cc))
            continue;
        kid = dp_rebuild(x, e, pr ? rc : a, pr || !rc ? b : rc, pc ? cc : c, pc || !cc ? d : cc,
                         level - 1);
        if (kid < 0)
            return -1;
        e->nodes[node].child[k] = kid;
    }
    return node;
}

/* Whether the exact DP fits the limits of aot_encode.h. */
static int dp_fits(int R, int C, int D)
{
    double rects = (double) R * (R + 1) / 2 * ((double) C * (C + 1) / 2);
    double sr = 0, sc = 0;
    for (int h = 1; h <= R; h++)
        sr += (double) (R - h + 1) * h;    /* rows: intervals of height h x (h cut choices) */
    for (int w = 1; w <= C; w++)
        sc += (double) (C - w + 1) * w;
    return rects * (D + 1) <= (double) AOT_ENCODE_DP_MAX_RECTS
           && sr * sc * D <= (double) AOT_ENCODE_DP_MAX_WORK;
}

static int penalty_dp(const struct psum *ps, int D, struct aot_encoding *e)
{
    struct dp x = {.ps = ps, .R = ps->R, .C = ps->C, .D = D};
    int R = x.R, C = x.C, rc = -1, k;
    double *pc = NULL, *cc = NULL;
    int *pn = NULL, *cn = NULL;

    x.NC = (long) C * (C + 1) / 2;
    x.N = (long) R * (R + 1) / 2 * x.NC;
    x.rid = malloc((size_t) (R + 1) * (R + 1) * sizeof(int));
    x.cid = malloc((size_t) (C + 1) * (C + 1) * sizeof(int));
    x.lcost = malloc((size_t) x.N * sizeof(double));
    x.llab = malloc((size_t) x.N * sizeof(int));
    x.choice = malloc((size_t) x.N * D * sizeof(int));
    pc = malloc((size_t) x.N * sizeof(double));
    cc = malloc((size_t) x.N * sizeof(double));
    pn = malloc((size_t) x.N * sizeof(int));
    cn = malloc((size_t) x.N * sizeof(int));
    if (!x.rid || !x.cid || !x.lcost || !x.llab || !x.choice || !pc || !cc || !pn || !cn)
        goto out;
    k = 0;
    for (int a = 0; a < R; a++)
        for (int b = a + 1; b <= R; b++)
            x.rid[a * (R + 1) + b] = k++;
    k = 0;
    for (int c = 0; c < C; c++)
        for (int d = c + 1; d <= C; d++)
            x.cid[c * (C + 1) + d] = k++;
    for (int a = 0; a < R; a++)
        for (int b = a + 1; b <= R; b++)
            for (int c = 0; c < C; c++)
                for (int d = c + 1; d <= C; d++) {
                    long id = rect_id(&x, a, b, c, d);
                    x.llab[id] = psum_leaf(ps, a, b, c, d, &x.lcost[id]);
                    pc[id] = x.lcost[id];
                    pn[id] = 1;
                }

    for (int level = 1; level <= D; level++) {
        int *choice = x.choice + (long) (level - 1) * x.N;
        for (int a = 0; a < R; a++)
            for (int b = a + 1; b <= R; b++)
                for (int c = 0; c < C; c++)
                    for (int d = c + 1; d <= C; d++) {
                        long id = rect_id(&x, a, b, c, d);
                        double bc = x.lcost[id];
                        int bn = 1, ch = 0;
                        if (bc > 0 && (b - a > 1 || d - c > 1)) {
                            /* i == a: no row cut; j == c: no column cut */
                            for (int i = a; i < b; i++) {
                                int r0 = x.rid[a * (R + 1) + (i == a ? b : i)];
                                int r1 = i == a ? -1 : x.rid[i * (R + 1) + b];
                                for (int j = c; j < d; j++) {
                                    int c0, c1;
                                    double s;
                                    int n;
                                    if (i == a && j == c)
                                        continue;
                                    c0 = x.cid[c * (C + 1) + (j == c ? d : j)];
                                    c1 = j == c ? -1 : x.cid[j * (C + 1) + d];
                                    s = pc[r0 * x.NC + c0];
                                    n = pn[r0 * x.NC + c0];
                                    if (c1 >= 0) {
                                        s += pc[r0 * x.NC + c1];
                                        n += pn[r0 * x.NC + c1];
                                    }
                                    if (r1 >= 0) {
                                        s += pc[r1 * x.NC + c0];
                                        n += pn[r1 * x.NC + c0];
                                        if (c1 >= 0) {
                                            s += pc[r1 * x.NC + c1];
                                            n += pn[r1 * x.NC + c1];
                                        }
                                    }
                                    if (better_tree(s, n, bc, bn)) {
                                        bc = s;
                                        bn = n;
                                        ch = (i == a ? 0 : i) * (C + 1) + (j == c ? 0 : j);
                                    }
                                }
                            }
                        }
                        cc[id] = bc;
                        cn[id] = bn;
                        choice[id] = ch;
                    }
        double *t = pc;
        int *tn = pn;
        pc = cc;
        pn = cn;
        cc = t;
        cn = tn;
    }
    rc = dp_rebuild(&x, e, 0, R, 0, C, D) < 0 ? -1 : 0;
out:
    free(x.rid);
    free(x.cid);
    free(x.lcost);
    free(x.llab);
    free(x.choice);
    free(pc);
    free(cc);
    free(pn);
    free(cn);
    return rc;
}

/* The greedy fallback: the cut pair whose parts, as leaves, cost least; a leaf when none
 * lowers the cost. */
static int penalty_greedy(const struct psum *ps, struct aot_encoding *e, int a, int b, int c,
                          int d, int level)
{
    double cost, best;
    int lab = psum_leaf(ps, a, b, c, d, &cost), bi = 0, bj = 0, node;

    best = cost;
    if (level > 0 && cost > 0 && (b - a > 1 || d - c > 1)) {
        for (int i = a; i < b; i++)
            for (int j = c; j < d; j++) {
                double s = 0, t;
                if (i == a && j == c)
                    continue;
                for (int k = 0; k < 4; k++) {
                    int pr = k / 2, pc = k % 2;
                    if ((pr && i == a) || (pc && j == c))
                        continue;
                    psum_leaf(ps, pr ? i : a, pr || i == a ? b : i, pc ? j : c,
                              pc || j == c ? d : j, &t);
                    s += t;
                }
                if (better_sum(s, best)) {
                    best = s;
                    bi = i == a ? 0 : i;
                    bj = j == c ? 0 : j;
                }
            }
    }
    if (!bi && !bj)
        return leaf_new(e, a, b, c, d, lab);
    node = node_new(e, a, b, c, d);
    if (node < 0)
        return -1;
    e->nodes[node].rcut = bi;
    e->nodes[node].ccut = bj;
    for (int k = 0; k < 4; k++) {
        int pr = k / 2, pc = k % 2, kid;
        if ((pr && !bi) || (pc && !bj))
            continue;
        kid = penalty_greedy(ps, e, pr ? bi : a, pr || !bi ? b : bi, pc ? bj : c,
                             pc || !bj ? d : bj, level - 1);
        if (kid < 0)
            return -1;
        e->nodes[node].child[k] = kid;
    }
    return node;
}

static int penalty_tree(const struct aot_encode_map *m, const struct aot_encode_spec *s,
                        struct aot_encoding *e)
{
    struct psum ps;
    int rc;
    if (psum_init(&ps, m) != 0)
        return -1;
    if (dp_fits(m->nrows, m->ncols, s->max_depth)) {
        rc = penalty_dp(&ps, s->max_depth, e);
    } else {
        e->greedy = 1;
        rc = penalty_greedy(&ps, e, 0, m->nrows, 0, m->ncols, s->max_depth) < 0 ? -1 : 0;
    }
    psum_free(&ps);
    return rc;
}

/* ---------------------------------------------------------------- interval rules */

struct rrun {
    int c0, c1, method;
    double cost;
};

struct rgroup {
    int r0, r1, n;
    struct rrun *runs;          /* capacity: the number of columns */
};

static int same_runs(const struct rgroup *x, const struct rgroup *y)
{
    if (x->n != y->n)
        return 0;
    for (int k = 0; k < x->n; k++)
        if (x->runs[k].c0 != y->runs[k].c0 || x->runs[k].c1 != y->runs[k].c1
            || x->runs[k].method != y->runs[k].method)
            return 0;
    return 1;
}

/* Joins neighbouring runs of one method, then neighbouring ranks ranges with identical runs:
 * neither changes a choice.  Returns the number of groups left. */
static int rules_normalize(struct rgroup *g, int ng)
{
    for (int i = 0; i < ng; i++) {
        int k = 0;
        for (int j = 1; j < g[i].n; j++) {
            if (g[i].runs[j].method == g[i].runs[k].method) {
                g[i].runs[k].c1 = g[i].runs[j].c1;
                g[i].runs[k].cost += g[i].runs[j].cost;
            } else {
                g[i].runs[++k] = g[i].runs[j];
            }
        }
        g[i].n = k + 1;
    }
    for (int i = 0; i + 1 < ng;) {
        if (!same_runs(&g[i], &g[i + 1])) {
            i++;
            continue;
        }
        g[i].r1 = g[i + 1].r1;
        for (int k = 0; k < g[i].n; k++)
            g[i].runs[k].cost += g[i + 1].runs[k].cost;
        free(g[i + 1].runs);
        memmove(&g[i + 1], &g[i + 2], (size_t) (ng - i - 2) * sizeof(*g));
        ng--;
    }
    return ng;
}

static int interval_rules(const struct aot_encode_map *m, const struct aot_encode_spec *s,
                          struct aot_encoding *e)
{
    int R = m->nrows, C = m->ncols, ng = R, count = 0, rc = -1, k;
    struct rgroup *g = calloc((size_t) R, sizeof(*g));
    struct psum ps;

    if (!g)
        return -1;
    if (psum_init(&ps, m) != 0) {
        free(g);
        return -1;
    }
    for (int i = 0; i < R; i++) {
        g[i].r0 = i;
        g[i].r1 = i + 1;
        g[i].runs = malloc((size_t) C * sizeof(*g[i].runs));
        if (!g[i].runs)
            goto out;
        for (int j = 0; j < C; j++) {
            int col = m->fill[i * C + j];
            if (g[i].n && g[i].runs[g[i].n - 1].method == col) {
                g[i].runs[g[i].n - 1].c1 = j + 1;
            } else {
                g[i].runs[g[i].n].c0 = j;
                g[i].runs[g[i].n].c1 = j + 1;
                g[i].runs[g[i].n].method = col;
                g[i].runs[g[i].n].cost = 0;   /* exact: no penalty at its real points */
                g[i].n++;
            }
        }
    }
    ng = rules_normalize(g, ng);
    for (;;) {
        int bg = -1, bk = -1, blab = 0;
        double bd = 0, bcost = 0;
        count = 0;
        for (int i = 0; i < ng; i++)
            count += g[i].n;
        if (!s->limit || count <= s->limit)
            break;
        for (int i = 0; i < ng; i++) {
            for (int j = 0; j + 1 < g[i].n; j++) {
                double cu;
                int lab = psum_leaf(&ps, g[i].r0, g[i].r1, g[i].runs[j].c0,
                                    g[i].runs[j + 1].c1, &cu);
                double delta = cu - g[i].runs[j].cost - g[i].runs[j + 1].cost;
                if (bg < 0 || better_sum(delta, bd)) {
                    bg = i;
                    bk = j;
                    bd = delta;
                    blab = lab;
                    bcost = cu;
                }
            }
            if (i + 1 < ng && g[i].n == 1 && g[i + 1].n == 1) {
                double cu;
                int lab = psum_leaf(&ps, g[i].r0, g[i + 1].r1, 0, C, &cu);
                double delta = cu - g[i].runs[0].cost - g[i + 1].runs[0].cost;
                if (bg < 0 || better_sum(delta, bd)) {
                    bg = i;
                    bk = -1;
                    bd = delta;
                    blab = lab;
                    bcost = cu;
                }
            }
        }
        if (bg < 0)
            break;              /* one rule: nothing left to merge */
        if (bk >= 0) {
            struct rgroup *x = &g[bg];
            x->runs[bk].c1 = x->runs[bk + 1].c1;
            x->runs[bk].method = blab;
            x->runs[bk].cost = bcost;
            memmove(&x->runs[bk + 1], &x->runs[bk + 2],
                    (size_t) (x->n - bk - 2) * sizeof(*x->runs));
            x->n--;
        } else {
            g[bg].r1 = g[bg + 1].r1;
            g[bg].runs[0].method = blab;
            g[bg].runs[0].cost = bcost;
            free(g[bg + 1].runs);
            memmove(&g[bg + 1], &g[bg + 2], (size_t) (ng - bg - 2) * sizeof(*g));
            ng--;
        }
        ng = rules_normalize(g, ng);
    }
    e->rules = malloc((size_t) count * sizeof(*e->rules));
    if (!e->rules)
        goto out;
    k = 0;
    for (int i = 0; i < ng; i++)
        for (int j = 0; j < g[i].n; j++)
            e->rules[k++] = (struct aot_encode_rule){g[i].r0, g[i].r1, g[i].runs[j].c0,
                                                     g[i].runs[j].c1, g[i].runs[j].method};
    e->nrules = k;
    rc = 0;
out:
    for (int i = 0; i < ng; i++)
        free(g[i].runs);
    free(g);
    psum_free(&ps);
    return rc;
}

/* ---------------------------------------------------------------- build, lookup */

int aot_encode_build(const struct aot_encode_map *m, const struct aot_encode_spec *s,
                     struct aot_encoding *e, char *err, size_t errlen)
{
    int rc = -1;

    memset(e, 0, sizeof(*e));
    e->spec = *s;
    switch (s->kind) {
    case AOT_ENCODE_EXACT: {
        struct aot_encode_spec q = {AOT_ENCODE_QUADTREE, 0, 100, AOT_ENCODE_PAD_SQUARE, 0};
        rc = quadtree(m, &q, e);
        break;
    }
    case AOT_ENCODE_QUADTREE:
        rc = quadtree(m, s, e);
        break;
    case AOT_ENCODE_PENALTY:
        rc = penalty_tree(m, s, e);
        break;
    case AOT_ENCODE_RULES:
        rc = interval_rules(m, s, e);
        break;
    }
    if (rc != 0) {
        aot_encoding_free(e);
        snprintf(err, errlen, "%s: out of memory", m->coll);
    }
    return rc;
}

void aot_encoding_free(struct aot_encoding *e)
{
    free(e->nodes);
    free(e->rules);
    e->nodes = NULL;
    e->rules = NULL;
    e->nnodes = e->capnodes = e->nrules = 0;
}

int aot_encode_rules_lookup(const struct aot_encode_map *m, const struct aot_encode_rule *r,
                            int n, int comm_size, uint64_t bytes, int *depth)
{
    int tests = 0, i = 0;

    while (i < n) {
        int j = i;
        while (j < n && r[j].r0 == r[i].r0 && r[j].r1 == r[i].r1)
            j++;
        /* the ranks range [i, j): "if (comm_size < next range's first size)" unless last */
        if (j < n && r[i].r1 < m->nrows) {
            tests++;
            if (comm_size >= m->ranks[r[i].r1]) {
                i = j;
                continue;
            }
        }
        for (int k = i; k < j; k++) {
            if (k + 1 < j && r[k].c1 < m->ncols) {
                tests++;
                if (bytes >= m->bytes[r[k].c1])
                    continue;
            }
            if (depth)
                *depth = tests;
            return r[k].method;
        }
        break;
    }
    if (depth)
        *depth = tests;
    return -1;                  /* not a list of rules as aot_encode.h describes */
}

int aot_encode_lookup(const struct aot_encode_map *m, const struct aot_encoding *e,
                      int comm_size, uint64_t bytes, int *depth)
{
    int id = 0, tests = 0;

    if (e->spec.kind == AOT_ENCODE_RULES)
        return aot_encode_rules_lookup(m, e->rules, e->nrules, comm_size, bytes, depth);
    while (e->nodes[id].method < 0) {
        const struct aot_encode_node *n = &e->nodes[id];
        int k = 0;
        if (n->rcut && comm_size >= m->ranks[n->rcut])
            k += 2;
        if (n->ccut && bytes >= m->bytes[n->ccut])
            k += 1;
        id = n->child[k];
        tests++;
    }
    if (depth)
        *depth = tests;
    return e->nodes[id].method;
}

/* ---------------------------------------------------------------- statistics */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int aot_encode_stats(const struct aot_encode_map *m, const struct aot_encoding *e,
                     struct aot_encode_stats *st)
{
    double *pen = malloc((size_t) (m->points ? m->points : 1) * sizeof(*pen)), dsum = 0;
    int k = 0;

    memset(st, 0, sizeof(*st));
    if (!pen)
        return -1;
    st->depth_min = INT_MAX;
    for (int i = 0; i < m->nrows; i++)
        for (int j = 0; j < m->ncols; j++) {
            int d, meth;
            if (!aot_encode_real(m, i, j))
                continue;
            meth = aot_encode_lookup(m, e, m->ranks[i], m->bytes[j], &d);
            pen[k++] = aot_encode_penalty(m, i, j, meth);
            if (!(m->time[((size_t) i * m->ncols + j) * m->nmethods + meth] > 0))
                st->on_missing++;
            dsum += d;
            if (d < st->depth_min)
                st->depth_min = d;
            if (d > st->depth_max)
                st->depth_max = d;
        }
    st->points = k;
    if (k) {
        double sum = 0;
        qsort(pen, (size_t) k, sizeof(*pen), cmp_double);
        for (int i = 0; i < k; i++)
            sum += pen[i];
        st->pen_min = pen[0];
        st->pen_max = pen[k - 1];
        st->pen_mean = sum / k;
        st->pen_median = k % 2 ? pen[k / 2] : (pen[k / 2 - 1] + pen[k / 2]) / 2;
        st->depth_mean = dsum / k;
    } else {
        st->depth_min = 0;
    }
    free(pen);
    if (e->spec.kind == AOT_ENCODE_RULES) {
        st->leaves = e->nrules;
    } else {
        for (int i = 0; i < e->nnodes; i++)
            st->leaves += e->nodes[i].method >= 0;
    }
    st->lines = aot_encode_emit_c(NULL, m, e, NULL);
    return st->lines < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- tuning-file rules */

void aot_encode_ranges(const struct aot_encode_map *m, const struct aot_encode_rule *r,
                       int *ranks_lo, int *ranks_hi, uint64_t *bytes_lo, uint64_t *bytes_hi)
{
    *ranks_lo = r->r0 == 0 ? 1 : m->ranks[r->r0];
    *ranks_hi = r->r1 >= m->nrows ? INT_MAX : m->ranks[r->r1] - 1;
    *bytes_lo = r->c0 == 0 ? 0 : m->bytes[r->c0];
    *bytes_hi = r->c1 >= m->ncols ? UINT64_MAX : m->bytes[r->c1] - 1;
}

int aot_encode_flatten(const struct aot_encode_map *m, const struct aot_encoding *e,
                       int sizeless, struct aot_encode_rule **out, int *nout)
{
    int R = m->nrows, C = m->ncols, M = m->nmethods, n = 0, gstart = 0;
    struct aot_encode_rule *r = malloc((size_t) R * C * sizeof(*r));
    int *row = malloc((size_t) C * sizeof(*row));
    double *sum = malloc((size_t) M * sizeof(*sum));

    if (!r || !row || !sum) {
        free(r);
        free(row);
        free(sum);
        return -1;
    }
    for (int i = 0; i < R; i++) {
        int start = n, same;
        for (int j = 0; j < C; j++)
            row[j] = aot_encode_lookup(m, e, m->ranks[i], m->bytes[j], NULL);
        for (int j = 0; j < C; j++) {
            if (n > start && r[n - 1].method == row[j])
                r[n - 1].c1 = j + 1;
            else
                r[n++] = (struct aot_encode_rule){i, i + 1, j, j + 1, row[j]};
        }
        /* the same runs as the range above: it grows by this row */
        same = i > 0 && n - start == start - gstart;
        for (int k = 0; same && k < n - start; k++)
            same = r[gstart + k].c0 == r[start + k].c0 && r[gstart + k].c1 == r[start + k].c1
                   && r[gstart + k].method == r[start + k].method;
        if (same) {
            for (int k = gstart; k < start; k++)
                r[k].r1 = i + 1;
            n = start;
        } else {
            gstart = start;
        }
    }
    if (sizeless) {
        /* one rule per ranks range: the least summed penalty over its real points */
        int k = 0;
        for (int i = 0; i < n;) {
            int j = i, best = 0, real = 0;
            while (j < n && r[j].r0 == r[i].r0)
                j++;
            memset(sum, 0, (size_t) M * sizeof(*sum));
            for (int a = r[i].r0; a < r[i].r1; a++)
                for (int b = 0; b < C; b++) {
                    if (!aot_encode_real(m, a, b))
                        continue;
                    real = 1;
                    for (int x = 0; x < M; x++)
                        sum[x] += aot_encode_penalty(m, a, b, x);
                }
            for (int x = 1; x < M; x++)
                if (better_sum(sum[x], sum[best]))
                    best = x;
            if (!real)
                best = r[i].method;
            if (k > 0 && r[k - 1].method == best) {
                r[k - 1].r1 = r[i].r1;
            } else {
                r[k] = (struct aot_encode_rule){r[i].r0, r[i].r1, 0, C, best};
                k++;
            }
            i = j;
        }
        n = k;
    }
    free(row);
    free(sum);
    *out = r;
    *nout = n;
    return 0;
}

/* ---------------------------------------------------------------- C */

struct emitter {
    FILE *f;
    int lines, failed;
    const struct aot_encode_map *m;
    const struct aot_encoding *e;
    const char *const *labels;
    int uses_ranks, uses_bytes;     /* a test of comm_size / bytes was emitted */
};

__attribute__((format(printf, 3, 4)))
static void emit(struct emitter *x, int indent, const char *fmt, ...)
{
    va_list ap;
    x->lines++;
    if (!x->f)
        return;
    if (fprintf(x->f, "%*s", 4 * indent, "") < 0)
        x->failed = 1;
    va_start(ap, fmt);
    if (vfprintf(x->f, fmt, ap) < 0)
        x->failed = 1;
    va_end(ap);
    if (fputc('\n', x->f) == EOF)
        x->failed = 1;
}

/* s as the inside of a C string literal ('?' escaped against trigraphs). */
static void c_escape(const char *s, char *out, size_t len)
{
    size_t k = 0;
    for (; *s && k + 5 < len; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\' || c == '?') {
            out[k++] = '\\';
            out[k++] = (char) c;
        } else if (c < 0x20 || c > 0x7e) {
            k += (size_t) snprintf(out + k, len - k, "\\%03o", c);
        } else {
            out[k++] = (char) c;
        }
    }
    out[k] = '\0';
}

/* The collective's name as a C identifier. */
static void c_ident(const char *s, char *out, size_t len)
{
    size_t k = 0;
    for (; *s && k + 1 < len; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                 || c == '_';
        out[k++] = ok ? c : '_';
    }
    out[k] = '\0';
}

static void emit_return(struct emitter *x, int method, int indent)
{
    char name[256], lit[1024];
    const char *label = name;
    if (x->labels)
        label = x->labels[method];
    else if (aot_encode_method_name(&x->m->methods[method], name, sizeof(name)) != 0)
        snprintf(name, sizeof(name), "%s", x->m->methods[method].alg);
    c_escape(label, lit, sizeof(lit));
    emit(x, indent, "return \"%s\";", lit);
}

/* The method of every leaf below node id when they all name one, else -1.  The C leaves out a
 * test whose two sides decide the same method (the tree keeps its shape: a quadtree's quadrants
 * of one colour, or a cut the penalty tree needed on one side of a node only). */
static int uniform(const struct aot_encoding *e, int id)
{
    const struct aot_encode_node *n = &e->nodes[id];
    int u = -1;
    if (n->method >= 0)
        return n->method;
    for (int k = 0; k < 4; k++) {
        int v;
        if (n->child[k] < 0)
            continue;
        v = uniform(e, n->child[k]);
        if (v < 0 || (u >= 0 && v != u))
            return -1;
        u = v;
    }
    return u;
}

static void emit_node(struct emitter *x, int id, int indent);

/* "if (cond) <a> <b>": the part a when cond holds, else b; one return when both decide the
 * same.  rows: cond tests comm_size. */
static void emit_if(struct emitter *x, const char *cond, int rows, int a, int b, int indent)
{
    int ua = uniform(x->e, a);
    if (ua >= 0 && ua == uniform(x->e, b)) {
        emit_return(x, ua, indent);
        return;
    }
    if (rows)
        x->uses_ranks = 1;
    else
        x->uses_bytes = 1;
    if (ua >= 0) {
        emit(x, indent, "if (%s)", cond);
        emit_return(x, ua, indent + 1);
    } else {
        emit(x, indent, "if (%s) {", cond);
        emit_node(x, a, indent + 1);
        emit(x, indent, "}");
    }
    emit_node(x, b, indent);
}

static void emit_node(struct emitter *x, int id, int indent)
{
    const struct aot_encode_node *n = &x->e->nodes[id];
    char rc[64], cc[64];
    int u = uniform(x->e, id);

    if (u >= 0) {
        emit_return(x, u, indent);
        return;
    }
    snprintf(rc, sizeof(rc), "comm_size < %d", n->rcut ? x->m->ranks[n->rcut] : 0);
    snprintf(cc, sizeof(cc), "bytes < %lluULL",
             n->ccut ? (unsigned long long) x->m->bytes[n->ccut] : 0ULL);
    if (n->rcut && n->ccut) {
        /* the ranks test, then the bytes test in each part */
        int u0 = uniform(x->e, n->child[0]), u1 = uniform(x->e, n->child[1]);
        x->uses_ranks = 1;
        if (u0 >= 0 && u0 == u1) {
            emit(x, indent, "if (%s)", rc);
            emit_return(x, u0, indent + 1);
        } else {
            emit(x, indent, "if (%s) {", rc);
            emit_if(x, cc, 0, n->child[0], n->child[1], indent + 1);
            emit(x, indent, "}");
        }
        emit_if(x, cc, 0, n->child[2], n->child[3], indent);
    } else if (n->rcut) {
        emit_if(x, rc, 1, n->child[0], n->child[2], indent);
    } else {
        emit_if(x, cc, 0, n->child[0], n->child[1], indent);
    }
}

static void emit_rules(struct emitter *x, const struct aot_encode_rule *r, int n)
{
    const struct aot_encode_map *m = x->m;
    for (int i = 0; i < n;) {
        int j = i, in = 1;
        while (j < n && r[j].r0 == r[i].r0 && r[j].r1 == r[i].r1)
            j++;
        if (j < n && r[i].r1 < m->nrows) {
            x->uses_ranks = 1;
            if (j - i == 1) {
                emit(x, 1, "if (comm_size < %d)", m->ranks[r[i].r1]);
                emit_return(x, r[i].method, 2);
                i = j;
                continue;
            }
            emit(x, 1, "if (comm_size < %d) {", m->ranks[r[i].r1]);
            in = 2;
        }
        for (int k = i; k < j; k++) {
            if (k + 1 < j && r[k].c1 < m->ncols) {
                x->uses_bytes = 1;
                emit(x, in, "if (bytes < %lluULL)", (unsigned long long) m->bytes[r[k].c1]);
                emit_return(x, r[k].method, in + 1);
            } else {
                emit_return(x, r[k].method, in);
            }
        }
        if (in == 2)
            emit(x, 1, "}");
        i = j;
    }
}

static void emit_body(struct emitter *x)
{
    if (x->e->spec.kind == AOT_ENCODE_RULES)
        emit_rules(x, x->e->rules, x->e->nrules);
    else
        emit_node(x, 0, 1);
}

int aot_encode_emit_c(FILE *f, const struct aot_encode_map *m, const struct aot_encoding *e,
                      const char *const *labels)
{
    struct emitter x = {NULL, 0, 0, m, e, labels, 0, 0};
    char id[2 * AOT_TUNE_NAME_MAX];

    emit_body(&x);              /* a dry run: which parameters the tests use */
    x.f = f;
    x.lines = 0;
    c_ident(m->coll, id, sizeof(id));
    emit(&x, 0, "const char *aot_builtin_decide_%s(int comm_size, unsigned long long bytes)", id);
    emit(&x, 0, "{");
    if (!x.uses_ranks)
        emit(&x, 1, "(void) comm_size;");
    if (!x.uses_bytes)
        emit(&x, 1, "(void) bytes;");
    emit_body(&x);
    emit(&x, 0, "}");
    return x.failed ? -1 : x.lines;
}

int aot_encode_emit_c_file(FILE *f, int n, const struct aot_encode_map *const *maps,
                           const struct aot_encoding *const *encs,
                           const char *const *const *labels, const char *comment)
{
    char id[2 * AOT_TUNE_NAME_MAX], lit[4 * AOT_TUNE_NAME_MAX + 8], name[64];
    int failed = 0;

    failed |= fputs("/* Generated by autoopt-tune encode (docs/tuning.md, \"Decision "
                    "encodings\").\n", f) < 0;
    if (comment) {
        /* the comment must not end the comment */
        failed |= fputs(" * ", f) < 0;
        for (const char *s = comment; *s; s++) {
            failed |= fputc(*s == '\n' ? ' ' : *s, f) == EOF;
            if (s[0] == '*' && s[1] == '/')
                failed |= fputc(' ', f) == EOF;
        }
        failed |= fputc('\n', f) == EOF;
    }
    failed |= fputs(" * aot_builtin_decide_<coll>(comm_size, bytes) returns the method, \"alg\" "
                    "or \"alg:param=value\",\n"
                    " * for a communicator of comm_size ranks and a call of `bytes` bytes as "
                    "the tuning file\n"
                    " * counts them (docs/tuning-format.md). */\n"
                    "#include <string.h>\n\n", f) < 0;
    for (int i = 0; i < n; i++) {
        c_ident(maps[i]->coll, id, sizeof(id));
        failed |= fprintf(f, "const char *aot_builtin_decide_%s(int comm_size, "
                          "unsigned long long bytes);\n", id) < 0;
    }
    failed |= fputs("const char *aot_builtin_decide(const char *coll, int comm_size, "
                    "unsigned long long bytes);\n", f) < 0;
    for (int i = 0; i < n; i++) {
        struct aot_encode_stats st;
        if (aot_encode_spec_format(&encs[i]->spec, name, sizeof(name)) != 0)
            snprintf(name, sizeof(name), "?");
        if (aot_encode_stats(maps[i], encs[i], &st) != 0)
            return -1;
        failed |= fprintf(f, "\n/* %s: %s, %d %s, mean penalty %.2f %% over %d measured "
                          "points */\n", maps[i]->coll, name, st.leaves,
                          encs[i]->spec.kind == AOT_ENCODE_RULES ? "rules" : "leaves",
                          st.pen_mean, st.points) < 0;
        if (aot_encode_emit_c(f, maps[i], encs[i], labels ? labels[i] : NULL) < 0)
            failed = 1;
    }
    failed |= fputs("\nconst char *aot_builtin_decide(const char *coll, int comm_size, "
                    "unsigned long long bytes)\n{\n", f) < 0;
    for (int i = 0; i < n; i++) {
        c_ident(maps[i]->coll, id, sizeof(id));
        c_escape(maps[i]->coll, lit, sizeof(lit));
        failed |= fprintf(f, "    if (strcmp(coll, \"%s\") == 0)\n"
                          "        return aot_builtin_decide_%s(comm_size, bytes);\n",
                          lit, id) < 0;
    }
    if (n == 0)
        failed |= fputs("    (void) coll;\n    (void) comm_size;\n    (void) bytes;\n", f) < 0;
    failed |= fputs("    return NULL;\n}\n", f) < 0;
    return failed || ferror(f) ? -1 : 0;
}
