/*
 * test_encode.c: the decision encodings (tools/lib/aot_encode.h): decision maps from
 * synthetic records, the quadtree with its two paddings, depth limit and threshold, the
 * penalty-aware tree, interval rules with a limit, the missing-method rule, raw-file reading,
 * tuning-file rules and the C.  Every expected answer is worked out by hand in the comment
 * above its test, or computed by a brute-force reference here.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_encode.h"
#include "aot_tuner_core.h"

/* ---------------------------------------------------------------- helpers */

/* ck_assert_msg for loops: costs nothing until it fails. */
#define expect(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond))                                                                           \
            ck_abort_msg(__VA_ARGS__);                                                         \
    } while (0)

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * (1.0 + fabs(b)))

/* The time of method k at row i, column j; 0 = not measured. */
typedef double timefn(int i, int j, int k, const void *arg);

/* Rows are communicator sizes 2, 3, ...; columns 1, 2, 4, ... bytes (1, 2, 3, ... for maps
 * wider than 62); methods are named "a", "b", ... so that method k has index k. */
static uint64_t col_bytes(int C, int j)
{
    return C <= 62 ? (uint64_t) 1 << j : (uint64_t) j + 1;
}

static void map_from(struct aot_encode_map *m, int R, int C, int M, timefn *f, const void *arg)
{
    struct aot_encode_raw raw;
    char err[256];

    aot_encode_raw_init(&raw);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            for (int k = 0; k < M; k++) {
                struct aot_tune_raw r;
                double t = f(i, j, k, arg);
                if (!(t > 0))
                    continue;
                memset(&r, 0, sizeof(r));
                snprintf(r.coll, sizeof(r.coll), "bcast");
                snprintf(r.alg, sizeof(r.alg), "%c", 'a' + k);
                r.ranks = 2 + i;
                r.bytes = col_bytes(C, j);
                r.est.median = r.est.lo = r.est.hi = t;
                r.est.n = 5;
                ck_assert_int_eq(aot_encode_raw_add(&raw, &r), 0);
            }
    ck_assert_msg(aot_encode_map_build(m, "bcast", raw.rec, raw.n, err, sizeof(err)) == 0, "%s",
                  err);
    aot_encode_raw_free(&raw);
}

static void build(const struct aot_encode_map *m, const char *name, struct aot_encoding *e)
{
    struct aot_encode_spec s;
    char err[256];
    ck_assert_msg(aot_encode_spec_parse(name, &s, err, sizeof(err)) == 0, "%s", err);
    ck_assert_msg(aot_encode_build(m, &s, e, err, sizeof(err)) == 0, "%s", err);
}

static void stats(const struct aot_encode_map *m, const char *name, struct aot_encode_stats *st)
{
    struct aot_encoding e;
    build(m, name, &e);
    ck_assert_int_eq(aot_encode_stats(m, &e, st), 0);
    aot_encoding_free(&e);
}

/* The sum of the penalties of e over the real points, computed here from lookups. */
static double total_penalty(const struct aot_encode_map *m, const struct aot_encoding *e)
{
    double s = 0;
    for (int i = 0; i < m->nrows; i++)
        for (int j = 0; j < m->ncols; j++)
            if (aot_encode_real(m, i, j))
                s += aot_encode_penalty(m, i, j,
                                        aot_encode_lookup(m, e, m->ranks[i], m->bytes[j], NULL));
    return s;
}

/* The emitted C of one collective as a string (free it). */
static char *c_text(const struct aot_encode_map *m, const struct aot_encoding *e,
                    const char *const *labels, int *lines)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    *lines = aot_encode_emit_c(f, m, e, labels);
    fclose(f);
    return text;
}

/* Every communicator size from 1 to two beyond the last row, and message sizes at, next to
 * and between the columns, and far beyond. */
static void for_points(const struct aot_encode_map *m,
                       void (*check)(const struct aot_encode_map *, int, uint64_t, void *),
                       void *arg)
{
    for (int p = 1; p <= m->ranks[m->nrows - 1] + 2; p++) {
        check(m, p, 0, arg);
        for (int j = 0; j < m->ncols; j++) {
            uint64_t b = m->bytes[j];
            check(m, p, b, arg);
            check(m, p, b + 1, arg);
            if (b > 0)
                check(m, p, b - 1, arg);
        }
        check(m, p, UINT64_MAX, arg);
    }
    check(m, INT_MAX, UINT64_MAX, arg);
}

/* ---------------------------------------------------------------- synthetic maps */

/* One method everywhere: times grow with both axes, so nothing but the method is constant. */
static double t_single(int i, int j, int k, const void *arg)
{
    (void) k;
    (void) arg;
    return 1.0 + i + j;
}

/* 4 rows x 8 columns (ranks 2-5, bytes 1-128): a is fastest below 16 bytes (columns 0-3), b
 * from 16 bytes on (columns 4-7): a boundary at a power of two of the padded 8 x 8 grid. */
static double t_two(int i, int j, int k, const void *arg)
{
    (void) i;
    (void) arg;
    if (j < 4)
        return k == 0 ? 1.0 : 2.0;
    return k == 0 ? 3.0 : 1.0;
}

/* 8 x 8 (ranks 2-9, bytes 1-128): a (1 us) is fastest everywhere, b takes 2 us; except at
 * row 2, column 5 (4 ranks, 32 bytes), where b takes 1 us and a 1.5 us: a's penalty there is
 * 50 %. */
static double t_noisy(int i, int j, int k, const void *arg)
{
    (void) arg;
    if (i == 2 && j == 5)
        return k == 0 ? 1.5 : 1.0;
    return k == 0 ? 1.0 : 2.0;
}

/* ---------------------------------------------------------------- tests: maps */

START_TEST(test_cells_and_ranges)
{
    struct aot_encode_map m;
    struct aot_encode_rule first = {0, 1, 0, 1, 0}, last = {3, 4, 7, 8, 0}, mid = {1, 3, 2, 5, 0};
    int rlo, rhi;
    uint64_t blo, bhi;

    map_from(&m, 4, 8, 2, t_two, NULL);
    ck_assert_int_eq(m.nrows, 4);
    ck_assert_int_eq(m.ncols, 8);
    ck_assert_int_eq(m.nmethods, 2);
    ck_assert_int_eq(m.points, 32);
    ck_assert_int_eq(m.dropped, 0);
    ck_assert_int_eq(m.missing, 0);
    /* rows: ranks 2, 3, 4, 5; the first from 1, the last to infinity */
    ck_assert_int_eq(aot_encode_row_of(&m, 1), 0);
    ck_assert_int_eq(aot_encode_row_of(&m, 2), 0);
    ck_assert_int_eq(aot_encode_row_of(&m, 3), 1);
    ck_assert_int_eq(aot_encode_row_of(&m, 5), 3);
    ck_assert_int_eq(aot_encode_row_of(&m, INT_MAX), 3);
    /* columns: 1, 2, 4, ..., 128 bytes; the first from 0 */
    ck_assert_int_eq(aot_encode_col_of(&m, 0), 0);
    ck_assert_int_eq(aot_encode_col_of(&m, 1), 0);
    ck_assert_int_eq(aot_encode_col_of(&m, 3), 1);
    ck_assert_int_eq(aot_encode_col_of(&m, 15), 3);
    ck_assert_int_eq(aot_encode_col_of(&m, 16), 4);
    ck_assert_int_eq(aot_encode_col_of(&m, UINT64_MAX), 7);
    aot_encode_ranges(&m, &first, &rlo, &rhi, &blo, &bhi);
    ck_assert_int_eq(rlo, 1);
    ck_assert_int_eq(rhi, 2);
    ck_assert_uint_eq(blo, 0);
    ck_assert_uint_eq(bhi, 1);
    aot_encode_ranges(&m, &last, &rlo, &rhi, &blo, &bhi);
    ck_assert_int_eq(rlo, 5);
    ck_assert_int_eq(rhi, INT_MAX);
    ck_assert_uint_eq(blo, 128);
    ck_assert_uint_eq(bhi, UINT64_MAX);
    aot_encode_ranges(&m, &mid, &rlo, &rhi, &blo, &bhi);
    ck_assert_int_eq(rlo, 3);
    ck_assert_int_eq(rhi, 4);
    ck_assert_uint_eq(blo, 4);
    ck_assert_uint_eq(bhi, 31);
    aot_encode_map_free(&m);
}
END_TEST

/* The exact map and the missing-method rule.  1 row, 2 columns, methods a, b, c: at column 0
 * a 1 us, b 2 us, c not measured; at column 1 c 1 us, a 3 us, b 4 us.  The exact map is a, c;
 * c at column 0 counts as the slowest time measured there, 2 us: a penalty of 100 %.  One
 * rule (limit 1) takes the least summed penalty: a 0 + 200, b 100 + 300, c 100 + 0: c, which
 * falls on the missing pair at column 0 (mean 50 %, max 100 %). */
static double t_missing(int i, int j, int k, const void *arg)
{
    static const double t[2][3] = {{1, 2, 0}, {3, 4, 1}};
    (void) i;
    (void) arg;
    return t[j][k];
}

START_TEST(test_missing_rule)
{
    struct aot_encode_map m;
    struct aot_encoding e;
    struct aot_encode_stats st;

    map_from(&m, 1, 2, 3, t_missing, NULL);
    ck_assert_int_eq(m.points, 2);
    ck_assert_int_eq(m.missing, 1);
    ck_assert_int_eq(m.best[0], 0);
    ck_assert_int_eq(m.best[1], 2);
    ck_assert(NEAR(aot_encode_time(&m, 0, 0, 2), 2.0));
    ck_assert(NEAR(aot_encode_time(&m, 0, 0, 1), 2.0));
    ck_assert(NEAR(aot_encode_penalty(&m, 0, 0, 2), 100.0));
    ck_assert(NEAR(aot_encode_penalty(&m, 0, 1, 1), 300.0));
    ck_assert(NEAR(aot_encode_penalty(&m, 0, 1, 2), 0.0));

    build(&m, "rules:limit=1", &e);
    ck_assert_int_eq(e.nrules, 1);
    ck_assert_int_eq(e.rules[0].method, 2);
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert_int_eq(st.on_missing, 1);
    ck_assert(NEAR(st.pen_mean, 50.0));
    ck_assert(NEAR(st.pen_max, 100.0));
    ck_assert(NEAR(st.pen_min, 0.0));
    aot_encoding_free(&e);

    /* the exact choices never fall on a missing pair */
    stats(&m, "exact", &st);
    ck_assert_int_eq(st.on_missing, 0);
    ck_assert(NEAR(st.pen_max, 0.0));
    stats(&m, "penalty:depth=1", &st);
    ck_assert_int_eq(st.on_missing, 0);
    ck_assert_int_eq(st.leaves, 2);
    aot_encode_map_free(&m);
}
END_TEST

/* ---------------------------------------------------------------- tests: encodings */

/* One method: every encoding is one leaf (one rule) of depth 0 and no penalty; the function
 * is 6 lines: the signature, '{', two '(void)' lines, the return, '}'. */
START_TEST(test_single_method)
{
    static const char *const names[] = {"exact", "quadtree:depth=3", "quadtree:depth=3:pad=axis",
                                        "quadtree:threshold=50", "penalty:depth=2", "rules",
                                        "rules:limit=1"};
    static const char expect_c[] =
        "const char *aot_builtin_decide_bcast(int comm_size, unsigned long long bytes)\n"
        "{\n"
        "    (void) comm_size;\n"
        "    (void) bytes;\n"
        "    return \"a\";\n"
        "}\n";
    struct aot_encode_map m;

    map_from(&m, 3, 5, 1, t_single, NULL);
    for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
        struct aot_encoding e;
        struct aot_encode_stats st;
        int lines;
        char *text;

        build(&m, names[n], &e);
        ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
        ck_assert_msg(st.leaves == 1, "%s: %d leaves", names[n], st.leaves);
        ck_assert_int_eq(st.depth_min, 0);
        ck_assert_int_eq(st.depth_max, 0);
        ck_assert(NEAR(st.pen_max, 0.0));
        ck_assert_int_eq(st.points, 15);
        ck_assert_int_eq(st.lines, 6);
        ck_assert_int_eq(aot_encode_lookup(&m, &e, 1, 0, NULL), 0);
        ck_assert_int_eq(aot_encode_lookup(&m, &e, 1000, UINT64_MAX, NULL), 0);
        text = c_text(&m, &e, NULL, &lines);
        ck_assert_int_eq(lines, 6);
        ck_assert_str_eq(text, expect_c);
        free(text);
        aot_encoding_free(&e);
    }
    aot_encode_map_free(&m);
}
END_TEST

/* Two regions split at 16 bytes (t_two).  Square padding: 8 x 8, whose first level cuts rows
 * at 4 (beyond the 4 rows: no cut) and columns at 4 (16 bytes): depth 1 is exact, 2 leaves,
 * every point at depth 1, 7 lines.  Axis padding: 4 x 8, its first level cuts rows at 2 too:
 * 4 leaves.  The penalty tree needs only the column cut: 2 leaves.  Rules: one ranks range of
 * two runs. */
START_TEST(test_two_regions)
{
    static const char expect_c[] =
        "const char *aot_builtin_decide_bcast(int comm_size, unsigned long long bytes)\n"
        "{\n"
        "    (void) comm_size;\n"
        "    if (bytes < 16ULL)\n"
        "        return \"a\";\n"
        "    return \"b\";\n"
        "}\n";
    static const char expect_axis[] =
        "const char *aot_builtin_decide_bcast(int comm_size, unsigned long long bytes)\n"
        "{\n"
        "    if (comm_size < 4) {\n"
        "        if (bytes < 16ULL)\n"
        "            return \"a\";\n"
        "        return \"b\";\n"
        "    }\n"
        "    if (bytes < 16ULL)\n"
        "        return \"a\";\n"
        "    return \"b\";\n"
        "}\n";
    struct aot_encode_map m;
    struct aot_encoding e;
    struct aot_encode_stats st;
    char *text;
    int lines;

    map_from(&m, 4, 8, 2, t_two, NULL);
    build(&m, "quadtree:depth=1", &e);
    ck_assert_int_eq(e.pad_rows, 8);
    ck_assert_int_eq(e.pad_cols, 8);
    ck_assert_int_eq(e.nodes[0].rcut, 0);
    ck_assert_int_eq(e.nodes[0].ccut, 4);
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert_int_eq(st.leaves, 2);
    ck_assert_int_eq(st.depth_min, 1);
    ck_assert_int_eq(st.depth_max, 1);
    ck_assert(NEAR(st.depth_mean, 1.0));
    ck_assert(NEAR(st.pen_max, 0.0));
    ck_assert_int_eq(st.lines, 7);
    ck_assert_int_eq(aot_encode_lookup(&m, &e, 1, 0, NULL), 0);
    ck_assert_int_eq(aot_encode_lookup(&m, &e, 3, 15, NULL), 0);
    ck_assert_int_eq(aot_encode_lookup(&m, &e, 3, 16, NULL), 1);
    ck_assert_int_eq(aot_encode_lookup(&m, &e, 1000, UINT64_MAX, NULL), 1);
    text = c_text(&m, &e, NULL, &lines);
    ck_assert_str_eq(text, expect_c);
    free(text);
    aot_encoding_free(&e);

    stats(&m, "exact", &st);
    ck_assert_int_eq(st.leaves, 2);
    ck_assert_int_eq(st.depth_max, 1);

    build(&m, "quadtree:depth=1:pad=axis", &e);
    ck_assert_int_eq(e.pad_rows, 4);
    ck_assert_int_eq(e.pad_cols, 8);
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert_int_eq(st.leaves, 4);
    ck_assert(NEAR(st.pen_max, 0.0));
    ck_assert_int_eq(st.lines, 11);
    text = c_text(&m, &e, NULL, &lines);
    ck_assert_str_eq(text, expect_axis);
    free(text);
    aot_encoding_free(&e);

    build(&m, "penalty:depth=1", &e);
    ck_assert_int_eq(e.greedy, 0);
    ck_assert_int_eq(e.nodes[0].rcut, 0);
    ck_assert_int_eq(e.nodes[0].ccut, 4);
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert_int_eq(st.leaves, 2);
    ck_assert(NEAR(st.pen_max, 0.0));
    aot_encoding_free(&e);

    build(&m, "rules", &e);
    ck_assert_int_eq(e.nrules, 2);
    ck_assert_int_eq(e.rules[0].r0, 0);
    ck_assert_int_eq(e.rules[0].r1, 4);
    ck_assert_int_eq(e.rules[0].c1, 4);
    ck_assert_int_eq(e.rules[1].method, 1);
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert_int_eq(st.lines, 7);
    ck_assert(NEAR(st.depth_mean, 1.0));
    text = c_text(&m, &e, NULL, &lines);
    ck_assert_str_eq(text, expect_c);
    free(text);
    aot_encoding_free(&e);
    aot_encode_map_free(&m);
}
END_TEST

/*
 * One noisy point (t_noisy, 8 x 8, 64 points).
 * - Quadtree depth 2: the root splits in four (63 of 64 are a: 98.4 % < 100 %); the quadrant
 *   rows 0-3 x columns 4-7 holds the noise and splits again; its 2 x 2 block with the noise is
 *   3 a to 1 b: a leaf a.  Leaves 3 + 4 = 7, 48 points at depth 1 and 16 at depth 2 (mean
 *   1.25); the noise pays 50 %: mean 50 / 64 = 0.78125 %, median 0.
 * - Threshold 90 %: the root is 98.4 % a: one leaf, the same penalty.
 * - Exact: that 2 x 2 block splits too: 3 + 3 + 4 = 10 leaves, depth 48 x 1 + 12 x 2 + 4 x 3
 *   = 84 / 64 = 1.3125, no penalty.
 * - Penalty tree depth 2: one cut pair puts the noise in a corner of a part, a second cut
 *   pair isolates it: no penalty with 3 + 4 = 7 leaves (a single cut at the root leaves the
 *   noise inside an edge).  Depth 1 cannot isolate it: one leaf a, 50 in all.
 * - Rules: row 2 has runs a, b, a: 1 + 3 + 1 = 5 rules.  Limit 4: merging b into either
 *   neighbour adds 50 (b over a's points would add 100 each); its row becomes all a and
 *   identical to its neighbours: one rule.
 */
START_TEST(test_noisy_point)
{
    struct aot_encode_map m;
    struct aot_encoding e;
    struct aot_encode_stats st;

    map_from(&m, 8, 8, 2, t_noisy, NULL);
    ck_assert_int_eq(m.best[2 * 8 + 5], 1);

    build(&m, "quadtree:depth=2", &e);
    ck_assert_int_eq(aot_encode_lookup(&m, &e, 4, 32, NULL), 0);   /* mislabelled */
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert_int_eq(st.leaves, 7);
    ck_assert_int_eq(st.depth_min, 1);
    ck_assert_int_eq(st.depth_max, 2);
    ck_assert(NEAR(st.depth_mean, 1.25));
    ck_assert(NEAR(st.pen_mean, 0.78125));
    ck_assert(NEAR(st.pen_max, 50.0));
    ck_assert(NEAR(st.pen_median, 0.0));
    aot_encoding_free(&e);

    stats(&m, "quadtree:threshold=90", &st);
    ck_assert_int_eq(st.leaves, 1);
    ck_assert_int_eq(st.depth_max, 0);
    ck_assert(NEAR(st.pen_mean, 0.78125));

    stats(&m, "exact", &st);
    ck_assert_int_eq(st.leaves, 10);
    ck_assert_int_eq(st.depth_max, 3);
    ck_assert(NEAR(st.depth_mean, 1.3125));
    ck_assert(NEAR(st.pen_max, 0.0));

    build(&m, "penalty:depth=2", &e);
    ck_assert_int_eq(aot_encode_lookup(&m, &e, 4, 32, NULL), 1);
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert(NEAR(st.pen_max, 0.0));
    ck_assert_int_eq(st.leaves, 7);
    ck_assert_int_eq(st.depth_max, 2);
    aot_encoding_free(&e);

    stats(&m, "penalty:depth=1", &st);
    ck_assert_int_eq(st.leaves, 1);
    ck_assert(NEAR(st.pen_mean, 0.78125));

    stats(&m, "rules", &st);
    ck_assert_int_eq(st.leaves, 5);
    ck_assert(NEAR(st.pen_max, 0.0));
    build(&m, "rules:limit=4", &e);
    ck_assert_int_eq(e.nrules, 1);
    ck_assert_int_eq(e.rules[0].method, 0);
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert(NEAR(st.pen_mean, 0.78125));
    aot_encoding_free(&e);
    aot_encode_map_free(&m);
}
END_TEST

/*
 * Interval rules with a limit, one row of 6 columns and methods a, b, c (times in us):
 *   columns 0-1: a 1, b 1.1, c 3      exact: a
 *   columns 2-3: a 1.2, b 1, c 1.05   exact: b
 *   columns 4-5: a 3, b 1.5, c 1      exact: c
 * Limit 2: merging a|b costs 2 x 10 (as b) and b|c 2 x 5 (as c): [a 0-1] [c 2-5], total 10,
 * mean 10/6 %.  Limit 1: a 440, b 20 + 0 + 100 = 120, c 400 + 10 = 410: b, mean 20 %.
 */
static double t_three(int i, int j, int k, const void *arg)
{
    static const double t[3][3] = {{1, 1.1, 3}, {1.2, 1, 1.05}, {3, 1.5, 1}};
    (void) i;
    (void) arg;
    return t[j / 2][k];
}

/* Two rows of one run each: row 0 a 1, b 1.5; row 1 a 1.2, b 1 (both columns).  Limit 1 joins
 * the ranks ranges: a costs 2 x 20 = 40, b 2 x 50 = 100: a, mean 10 %. */
static double t_rows(int i, int j, int k, const void *arg)
{
    (void) j;
    (void) arg;
    if (i == 0)
        return k == 0 ? 1.0 : 1.5;
    return k == 0 ? 1.2 : 1.0;
}

START_TEST(test_rules_limit)
{
    struct aot_encode_map m;
    struct aot_encoding e;
    struct aot_encode_stats st;

    map_from(&m, 1, 6, 3, t_three, NULL);
    stats(&m, "rules", &st);
    ck_assert_int_eq(st.leaves, 3);
    ck_assert(NEAR(st.pen_max, 0.0));

    build(&m, "rules:limit=2", &e);
    ck_assert_int_eq(e.nrules, 2);
    ck_assert_int_eq(e.rules[0].c0, 0);
    ck_assert_int_eq(e.rules[0].c1, 2);
    ck_assert_int_eq(e.rules[0].method, 0);
    ck_assert_int_eq(e.rules[1].c0, 2);
    ck_assert_int_eq(e.rules[1].c1, 6);
    ck_assert_int_eq(e.rules[1].method, 2);
    ck_assert(NEAR(total_penalty(&m, &e), 10.0));
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert(NEAR(st.pen_mean, 10.0 / 6));
    ck_assert(NEAR(st.pen_max, 5.0));
    aot_encoding_free(&e);

    build(&m, "rules:limit=1", &e);
    ck_assert_int_eq(e.nrules, 1);
    ck_assert_int_eq(e.rules[0].method, 1);
    ck_assert(NEAR(total_penalty(&m, &e), 120.0));
    aot_encoding_free(&e);
    aot_encode_map_free(&m);

    map_from(&m, 2, 2, 2, t_rows, NULL);
    stats(&m, "rules", &st);
    ck_assert_int_eq(st.leaves, 2);
    build(&m, "rules:limit=1", &e);
    ck_assert_int_eq(e.nrules, 1);
    ck_assert_int_eq(e.rules[0].r0, 0);
    ck_assert_int_eq(e.rules[0].r1, 2);
    ck_assert_int_eq(e.rules[0].method, 0);
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert(NEAR(st.pen_mean, 10.0));
    aot_encoding_free(&e);
    aot_encode_map_free(&m);
}
END_TEST

/* ---------------------------------------------------------------- random maps */

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

static double rng_unit(struct rng *r)
{
    return (double) (rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

struct table {
    double t[8][12][4];
};

static double t_table(int i, int j, int k, const void *arg)
{
    return ((const struct table *) arg)->t[i][j][k];
}

/* A random map of up to 6 x 10 points and 2-4 methods, 15 % of the pairs not measured; a few
 * regions of one winner, so that trees have something to find. */
static void random_map(struct rng *r, struct aot_encode_map *m)
{
    struct table tab;
    int R = 1 + (int) (rng_next(r) % 6), C = 1 + (int) (rng_next(r) % 10);
    int M = 2 + (int) (rng_next(r) % 3);
    int ci = (int) (rng_next(r) % (uint64_t) R), cj = (int) (rng_next(r) % (uint64_t) C);

    memset(&tab, 0, sizeof(tab));
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            for (int k = 0; k < M; k++) {
                int region = (i >= ci) * 2 + (j >= cj);
                double t = 1 + 2 * rng_unit(r) + (region % M == k ? 0 : 0.5);
                tab.t[i][j][k] = rng_unit(r) < 0.15 ? 0 : t;
            }
    /* the first point measured by every method: the map is never empty */
    for (int k = 0; k < M; k++)
        tab.t[0][0][k] = 1 + k;
    map_from(m, R, C, M, t_table, &tab);
}

/* The least penalty of one leaf over [a, b) x [c, d), summed here point by point. */
static double rect_min(const struct aot_encode_map *m, int a, int b, int c, int d)
{
    double best = INFINITY;
    int real = 0;
    for (int k = 0; k < m->nmethods; k++) {
        double s = 0;
        for (int i = a; i < b; i++)
            for (int j = c; j < d; j++)
                if (aot_encode_real(m, i, j)) {
                    s += aot_encode_penalty(m, i, j, k);
                    real = 1;
                }
        if (s < best)
            best = s;
    }
    return real ? best : 0;
}

/* The least total penalty of a tree of depth at most `depth` over [a, b) x [c, d), by trying
 * every cut pair at every node (no table: exponential, for small maps only). */
static double brute(const struct aot_encode_map *m, int a, int b, int c, int d, int depth)
{
    double best = rect_min(m, a, b, c, d);
    if (depth == 0)
        return best;
    for (int i = a; i < b; i++)
        for (int j = c; j < d; j++) {
            double s = 0;
            if (i == a && j == c)
                continue;
            for (int k = 0; k < 4; k++) {
                int pr = k / 2, pc = k % 2;
                if ((pr && i == a) || (pc && j == c))
                    continue;
                s += brute(m, pr ? i : a, pr || i == a ? b : i, pc ? j : c, pc || j == c ? d : j,
                           depth - 1);
            }
            if (s < best)
                best = s;
        }
    return best;
}

struct same_job {
    const struct aot_encoding *e;
    const struct aot_encode_rule *r;
    int n;
};

static void check_same(const struct aot_encode_map *m, int p, uint64_t b, void *arg)
{
    const struct same_job *x = arg;
    int want = aot_encode_lookup(m, x->e, p, b, NULL);
    int got = aot_encode_rules_lookup(m, x->r, x->n, p, b, NULL);
    expect(want == got, "ranks %d bytes %llu: encoding %d, flattened rules %d", p,
           (unsigned long long) b, want, got);
}

/* Penalty tree <= quadtree (both paddings) at every depth 1-4, never worse one level deeper,
 * equal to the brute force at depth 1 (and at depth 2 on maps of at most 20 points); exact
 * encodings have no penalty; the tuning-file rules of every encoding route as the encoding
 * does everywhere. */
START_TEST(test_random_maps)
{
    static const char *const all[] = {"exact", "quadtree:depth=1", "quadtree:depth=2:pad=axis",
                                      "quadtree:threshold=60", "penalty:depth=2", "rules",
                                      "rules:limit=3"};
    struct rng r = {0x9e3779b97f4a7c15ULL};

    for (int n = 0; n < 300; n++) {
        struct aot_encode_map m;
        double prev = INFINITY;
        random_map(&r, &m);
        for (int d = 1; d <= 4; d++) {
            char name[64];
            struct aot_encoding pt, qs, qa;
            double p, s, a;
            snprintf(name, sizeof(name), "penalty:depth=%d", d);
            build(&m, name, &pt);
            snprintf(name, sizeof(name), "quadtree:depth=%d", d);
            build(&m, name, &qs);
            snprintf(name, sizeof(name), "quadtree:depth=%d:pad=axis", d);
            build(&m, name, &qa);
            p = total_penalty(&m, &pt);
            s = total_penalty(&m, &qs);
            a = total_penalty(&m, &qa);
            expect(pt.greedy == 0, "map %d: greedy", n);
            expect(p <= s + 1e-6 && p <= a + 1e-6,
                   "map %d (%dx%dx%d) depth %d: penalty tree %g, quadtree %g (square), %g "
                   "(axis)", n, m.nrows, m.ncols, m.nmethods, d, p, s, a);
            expect(p <= prev + 1e-6, "map %d depth %d: %g, deeper than %g", n, d, p, prev);
            if (d == 1 || (d == 2 && m.nrows * m.ncols <= 20)) {
                double bf = brute(&m, 0, m.nrows, 0, m.ncols, d);
                expect(fabs(p - bf) <= 1e-6 * (1 + bf), "map %d: depth %d %g, brute force %g", n,
                       d, p, bf);
            }
            prev = p;
            aot_encoding_free(&pt);
            aot_encoding_free(&qs);
            aot_encoding_free(&qa);
        }
        for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) {
            struct aot_encoding e;
            struct aot_encode_rule *flat;
            struct same_job job;
            int nflat;
            build(&m, all[k], &e);
            if (strcmp(all[k], "exact") == 0 || strcmp(all[k], "rules") == 0)
                expect(total_penalty(&m, &e) == 0, "map %d: %s has a penalty", n, all[k]);
            ck_assert_int_eq(aot_encode_flatten(&m, &e, 0, &flat, &nflat), 0);
            job = (struct same_job){&e, flat, nflat};
            for_points(&m, check_same, &job);
            free(flat);
            aot_encoding_free(&e);
        }
        aot_encode_map_free(&m);
    }
}
END_TEST

/* ---------------------------------------------------------------- greedy fallback */

/* 1 x 2048: a below column 1000, b from there.  The exact DP at depth 2 would try about
 * 2.9e9 cut pairs (> AOT_ENCODE_DP_MAX_WORK): the greedy build runs, finds the cut and has
 * no penalty.  1 x 64 stays with the DP. */
static double t_wide(int i, int j, int k, const void *arg)
{
    (void) i;
    (void) arg;
    return (j < 1000) == (k == 0) ? 1.0 : 2.0;
}

START_TEST(test_greedy_fallback)
{
    struct aot_encode_map m;
    struct aot_encoding e;
    struct aot_encode_stats st;

    map_from(&m, 1, 2048, 2, t_wide, NULL);
    build(&m, "penalty:depth=2", &e);
    ck_assert_int_eq(e.greedy, 1);
    ck_assert_int_eq(e.nodes[0].ccut, 1000);
    ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
    ck_assert_int_eq(st.leaves, 2);
    ck_assert(NEAR(st.pen_max, 0.0));
    ck_assert_int_eq(aot_encode_lookup(&m, &e, 2, 1000, NULL), 0);   /* column 999 */
    ck_assert_int_eq(aot_encode_lookup(&m, &e, 2, 1001, NULL), 1);   /* column 1000 */
    aot_encoding_free(&e);
    aot_encode_map_free(&m);

    map_from(&m, 1, 64, 2, t_wide, NULL);
    build(&m, "penalty:depth=2", &e);
    ck_assert_int_eq(e.greedy, 0);
    aot_encoding_free(&e);
    aot_encode_map_free(&m);
}
END_TEST

/* ---------------------------------------------------------------- tuning-file rules */

/* The quadtree of depth 2 of the noisy map: leaves of 4 x 4 and 2 x 2 cells, all a (the noise
 * is mislabelled): one rule.  Its exact tree: the exact interval rules, 1 + 3 + 1.  Sizeless
 * (barrier): one rule per ranks range, the least summed penalty: on t_two, a would
 * pay 200 % at 16 points, b 100 % at 16: one rule b over everything.  (test_random_maps
 * checks the routing of the rules of every encoding on 300 maps.) */
START_TEST(test_flatten)
{
    struct aot_encode_map m;
    struct aot_encoding e;
    struct aot_encode_rule *flat;
    struct same_job job;
    int n;

    map_from(&m, 8, 8, 2, t_noisy, NULL);
    build(&m, "quadtree:depth=2", &e);
    ck_assert_int_eq(aot_encode_flatten(&m, &e, 0, &flat, &n), 0);
    ck_assert_int_eq(n, 1);
    job = (struct same_job){&e, flat, n};
    for_points(&m, check_same, &job);
    free(flat);
    aot_encoding_free(&e);

    build(&m, "exact", &e);
    ck_assert_int_eq(aot_encode_flatten(&m, &e, 0, &flat, &n), 0);
    ck_assert_int_eq(n, 5);     /* as the exact interval rules */
    job = (struct same_job){&e, flat, n};
    for_points(&m, check_same, &job);
    free(flat);
    aot_encoding_free(&e);
    aot_encode_map_free(&m);

    map_from(&m, 4, 8, 2, t_two, NULL);
    build(&m, "exact", &e);
    ck_assert_int_eq(aot_encode_flatten(&m, &e, 1, &flat, &n), 0);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(flat[0].r0, 0);
    ck_assert_int_eq(flat[0].r1, 4);
    ck_assert_int_eq(flat[0].c0, 0);
    ck_assert_int_eq(flat[0].c1, 8);
    ck_assert_int_eq(flat[0].method, 1);
    free(flat);
    aot_encoding_free(&e);
    aot_encode_map_free(&m);
}
END_TEST

/* ---------------------------------------------------------------- raw files */

/* Rows 2 and 4 ranks, columns 1 and 8 bytes, methods binomial, chain 8192, linear (in name
 * order).  (4, 8) has no measurement: dropped.  Missing pairs: (2, 1) chain; (4, 1) binomial
 * and chain: 3.  The second "linear at (2, 8)" replaces the first (3.0 -> 2.5), so chain (1.2)
 * is best there.  The unterminated last line is ignored. */
static const char raw_text[] =
    "autoopt-tune-raw 1\n"
    "# setup ranks=4 hosts=1\n"
    "\n"
    "m bcast linear 0 2 1 1.0 1.0 1.0 5\n"
    "m bcast binomial 0 2 1 2.0 1.9 2.1 5\n"
    "m bcast linear 0 2 8 3.0 3.0 3.0 5\n"
    "m bcast binomial 0 2 8 1.5 1.5 1.5 5\n"
    "m bcast chain 8192 2 8 1.2 1.2 1.2 5\n"
    "m bcast linear 0 4 1 1.1 1.1 1.1 5\n"
    "m allreduce ring 0 4 1 1 1 1 5\n"
    "m bcast linear 0 2 8 2.5 2.5 2.5 5\n"
    "m bcast linear 0 4 8";

START_TEST(test_raw_missing)
{
    static const char *const names[] = {"exact", "quadtree:depth=1", "quadtree:depth=2:pad=axis",
                                        "quadtree:threshold=50", "penalty:depth=1",
                                        "penalty:depth=3", "rules", "rules:limit=1"};
    struct aot_encode_raw raw;
    struct aot_encode_map m;
    char err[256], name[64];

    aot_encode_raw_init(&raw);
    ck_assert_msg(aot_encode_raw_parse(&raw, raw_text, strlen(raw_text), "t.raw", err,
                                       sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(raw.n, 8);
    ck_assert_int_eq(raw.incomplete_line, 12);
    ck_assert_int_eq(aot_encode_map_build(&m, "bcast", raw.rec, raw.n, err, sizeof(err)), 0);
    ck_assert_int_eq(m.nrows, 2);
    ck_assert_int_eq(m.ncols, 2);
    ck_assert_int_eq(m.nmethods, 3);
    ck_assert_int_eq(aot_encode_method_name(&m.methods[1], name, sizeof(name)), 0);
    ck_assert_str_eq(name, "chain 8192");
    ck_assert_int_eq(aot_encode_method_name(&m.methods[2], name, sizeof(name)), 0);
    ck_assert_str_eq(name, "linear");
    ck_assert_int_eq(m.points, 3);
    ck_assert_int_eq(m.dropped, 1);
    ck_assert_int_eq(m.missing, 3);
    ck_assert_int_eq(m.replaced, 1);
    ck_assert_int_eq(m.best[0], 2);
    ck_assert_int_eq(m.best[1], 1);
    ck_assert_int_eq(m.best[2], 2);
    ck_assert_int_eq(m.best[3], -1);
    ck_assert_int_eq(m.fill[3], 2);     /* the dropped point: its left neighbour's colour */
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        struct aot_encoding e;
        struct aot_encode_stats st;
        build(&m, names[k], &e);
        ck_assert_int_eq(aot_encode_stats(&m, &e, &st), 0);
        ck_assert_int_eq(st.points, 3);
        expect(aot_encode_lookup(&m, &e, 4, 8, NULL) >= 0, "%s", names[k]);
        if (strcmp(names[k], "exact") == 0 || strcmp(names[k], "rules") == 0
            || strcmp(names[k], "penalty:depth=3") == 0)
            expect(st.pen_max == 0 && st.on_missing == 0, "%s: penalty %g", names[k],
                   st.pen_max);
        aot_encoding_free(&e);
    }
    aot_encode_map_free(&m);
    ck_assert_int_eq(aot_encode_map_build(&m, "reduce", raw.rec, raw.n, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "no measurements of reduce");
    aot_encode_map_free(&m);
    aot_encode_raw_free(&raw);
}
END_TEST

/* A raw file of version 2 (each line with its back-to-back estimate too) reads alike: the map
 * takes the barrier-separated medians. */
START_TEST(test_raw_version2)
{
    static const char text[] = "autoopt-tune-raw 2\n"
                               "# setup ranks=4 hosts=1\n"
                               "m bcast linear 0 2 1 1.0 0.9 1.1 5 0.5 0.4 0.6 5\n"
                               "m bcast binomial 0 2 1 2.0 1.9 2.1 5 3.0 2.9 3.1 7\n";
    struct aot_encode_raw raw;
    char err[256] = "";

    aot_encode_raw_init(&raw);
    ck_assert_msg(aot_encode_raw_parse(&raw, text, strlen(text), "t.raw", err, sizeof(err)) == 0,
                  "%s", err);
    ck_assert_uint_eq(raw.n, 2);
    ck_assert(raw.rec[0].est.median == 1.0 && raw.rec[0].b2b.median == 0.5);
    ck_assert(raw.rec[1].b2b.lo == 2.9 && raw.rec[1].b2b.hi == 3.1 && raw.rec[1].b2b.n == 7);
    aot_encode_raw_free(&raw);
}
END_TEST

START_TEST(test_raw_errors)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"", "t.raw:1: empty file: expected 'autoopt-tune-raw 1' or 'autoopt-tune-raw 2'"},
        {"autoopt-tuning 1\n", "t.raw:1: expected 'autoopt-tune-raw 1' or 'autoopt-tune-raw 2': "
                               "not a raw file of autoopt-tune"},
        {"autoopt-tune-raw 1\n# c\nm bcast linear 0 2 1\n", "t.raw:3: expected 10 or 14 "
                                                            "fields, found 6"},
        {"autoopt-tune-raw 1\nm bcast linear 0 2 1 0 0 0 5\n", "t.raw:2: median_us: not a "
                                                               "positive number"},
        {"autoopt-tune-raw 1\nm bcast linear 0 0 1 1 1 1 5\n", "t.raw:2: ranks: not an integer "
                                                               "1..2^30"},
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        struct aot_encode_raw raw;
        char err[256] = "";
        aot_encode_raw_init(&raw);
        ck_assert_int_eq(aot_encode_raw_parse(&raw, bad[k].text, strlen(bad[k].text), "t.raw",
                                              err, sizeof(err)), -1);
        ck_assert_str_eq(err, bad[k].msg);
        aot_encode_raw_free(&raw);
    }
}
END_TEST

/* ---------------------------------------------------------------- names */

START_TEST(test_spec_names)
{
    static const char *const good[] = {"exact", "quadtree", "quadtree:depth=3",
                                       "quadtree:depth=3:pad=axis", "quadtree:threshold=45",
                                       "quadtree:depth=4:threshold=80.5:pad=axis",
                                       "penalty:depth=16", "rules", "rules:limit=16"};
    static const struct {
        const char *name, *msg;
    } bad[] = {
        {"quadtree:depth=0", "quadtree:depth=0: depth must be an integer 1..32"},
        {"penalty:depth=17", "penalty:depth=17: depth must be an integer 1..16"},
        {"penalty", "penalty: the penalty tree needs depth=D (1..16)"},
        {"rules:limit=0", "rules:limit=0: limit must be an integer of at least 1"},
        {"exact:depth=3", "exact:depth=3: 'exact' takes no settings"},
        {"quadtree:threshold=0", "quadtree:threshold=0: threshold must be a percentage above 0, "
                                 "at most 100"},
        {"quadtree:threshold=101", "quadtree:threshold=101: threshold must be a percentage "
                                   "above 0, at most 100"},
        {"quadtree:pad=diagonal", "quadtree:pad=diagonal: pad must be 'square' or 'axis'"},
        {"quadtree:depth=3:depth=4", "quadtree:depth=3:depth=4: unexpected or repeated setting "
                                     "'depth' (known: depth=D, threshold=P, pad=square|axis)"},
        {"rules:depth=3", "rules:depth=3: unexpected or repeated setting 'depth' (known: "
                          "limit=N)"},
        {"octree", "octree: unknown encoding 'octree' (known: exact, quadtree, penalty, rules)"},
    };
    for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
        struct aot_encode_spec s;
        char err[256], back[128];
        ck_assert_msg(aot_encode_spec_parse(good[k], &s, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(aot_encode_spec_format(&s, back, sizeof(back)), 0);
        ck_assert_str_eq(back, good[k]);
    }
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        struct aot_encode_spec s;
        char err[256] = "";
        ck_assert_int_eq(aot_encode_spec_parse(bad[k].name, &s, err, sizeof(err)), -1);
        ck_assert_str_eq(err, bad[k].msg);
    }
}
END_TEST

/* ---------------------------------------------------------------- C file */

/* Labels are escaped: a quote, a backslash and a '?' (trigraphs) in a method name. */
START_TEST(test_c_file)
{
    static const char *const labels[] = {"a\"x", "b\\?"};
    struct aot_encode_map m;
    struct aot_encoding e;
    const struct aot_encode_map *maps[1] = {&m};
    const struct aot_encoding *encs[1] = {&e};
    const char *const *lab[1] = {labels};
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    map_from(&m, 4, 8, 2, t_two, NULL);
    build(&m, "penalty:depth=1", &e);
    f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(aot_encode_emit_c_file(f, 1, maps, encs, lab, "a */ comment"), 0);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, " * a * / comment\n"));
    ck_assert_ptr_nonnull(strstr(text, "const char *aot_builtin_decide_bcast(int comm_size, "
                                       "unsigned long long bytes);\n"));
    ck_assert_ptr_nonnull(strstr(text, "        return \"a\\\"x\";\n"));
    ck_assert_ptr_nonnull(strstr(text, "    return \"b\\\\\\?\";\n"));
    ck_assert_ptr_nonnull(strstr(text, "    if (strcmp(coll, \"bcast\") == 0)\n"
                                       "        return aot_builtin_decide_bcast(comm_size, "
                                       "bytes);\n    return NULL;\n}\n"));
    free(text);
    aot_encoding_free(&e);
    aot_encode_map_free(&m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("encode");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, 100);
    tcase_add_test(tc, test_cells_and_ranges);
    tcase_add_test(tc, test_missing_rule);
    tcase_add_test(tc, test_single_method);
    tcase_add_test(tc, test_two_regions);
    tcase_add_test(tc, test_noisy_point);
    tcase_add_test(tc, test_rules_limit);
    tcase_add_test(tc, test_random_maps);
    tcase_add_test(tc, test_greedy_fallback);
    tcase_add_test(tc, test_flatten);
    tcase_add_test(tc, test_raw_missing);
    tcase_add_test(tc, test_raw_version2);
    tcase_add_test(tc, test_raw_errors);
    tcase_add_test(tc, test_spec_names);
    tcase_add_test(tc, test_c_file);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
