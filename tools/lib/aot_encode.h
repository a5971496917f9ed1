/*
 * aot_encode.h: decision encodings of measured collective performance (docs/tuning.md,
 * "Decision encodings"): the decision map of one collective built from a raw file of
 * autoopt-tune, the quadtree of Pjesivac-Grbovic et al. ("MPI Collective Algorithm Selection
 * and Quadtree Encoding", 2007), a penalty-aware tree, interval rules, their statistics (the
 * paper's Table 2), lookups and the C they compile to.  Used by "autoopt-tune encode"
 * (tools/tune/encode.c) and tested on synthetic maps in tests/unit/test_encode.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Pure: no MPI calls, no global state, no use of the algorithm registry.  A method is an
 * (algorithm, parameter) pair of the raw file, named here "alg" (parameter 0) or "alg param";
 * the caller supplies the names the output shows (the CLI uses the tuning file's spelling).
 *
 * The decision map.  Rows are the distinct communicator sizes of the collective's records,
 * columns its distinct message sizes, both increasing; the methods are the union of all
 * (algorithm, parameter) pairs measured.  A (row, column) cell is a point; a point with at
 * least one measurement is a real point, a point with none is dropped from the map (counted
 * in `dropped`; encodings route it, but no statistic counts it).  Of two records of the same
 * method at the same point the later one counts (`replaced`).  The exact map names at each
 * real point the method with the lowest median (the lowest method index among equal ones).
 *
 * The missing-method rule.  A method not measured at a real point (a (point, method) pair
 * counted in `missing`) is never that point's best; when an encoding nevertheless chooses it
 * there, its time there counts as the slowest time measured at that point.  The statistics
 * count such choices (`on_missing`).
 *
 * Penalty of a choice at a real point: 100 * (t(chosen) - t(best)) / t(best), in percent.
 *
 * Ranges of a cell (the paper's boundary rule): column j covers the message sizes
 * [b_j, b_(j+1) - 1], the first column from 0, the last up to infinity; row i covers the
 * communicator sizes [r_i, r_(i+1) - 1], the first row from 1, the last up to infinity.  Every
 * encoding cuts only at cell boundaries, so each of its leaves or rules is a rectangle of cells
 * and becomes one rule of a tuning file with these ranges.
 *
 * Fill colour.  Every cell has a colour an encoding may give it when no real point decides:
 * its exact method at a real point; at a dropped point, the colour of the nearest real point
 * of its row towards smaller messages, else towards larger ones (every row has a real point).
 */
#ifndef AOT_ENCODE_H_INCLUDED
#define AOT_ENCODE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "aot_tuner_core.h"

/* ---------------------------------------------------------------- raw files */

/* The records of one or more raw files ("autoopt-tune-raw 1" or 2, '#' lines, blank lines, then
 * one "m ..." line per measurement, aot_tune_raw_parse). */
struct aot_encode_raw {
    struct aot_tune_raw *rec;
    size_t n, cap;
    int incomplete_line;    /* the line number of an unterminated last line that was ignored
                             * (a run killed mid-write), 0 when there was none */
};

void aot_encode_raw_init(struct aot_encode_raw *r);
void aot_encode_raw_free(struct aot_encode_raw *r);
/* Appends one record.  0, or -1 when out of memory. */
int aot_encode_raw_add(struct aot_encode_raw *r, const struct aot_tune_raw *rec);
/* Appends the records of the text of one raw file; `name` names it in messages
 * ("run.raw:12: median_us: not a positive number", "run.raw:1: expected 'autoopt-tune-raw 1'
 * or 'autoopt-tune-raw 2' ...").  0, or -1 with the message in err. */
int aot_encode_raw_parse(struct aot_encode_raw *r, const char *text, size_t len,
                         const char *name, char *err, size_t errlen);

/* ---------------------------------------------------------------- the decision map */

/* The largest map: rows x columns x methods time slots. */
#define AOT_ENCODE_MAP_MAX (1L << 23)

struct aot_encode_method {
    char alg[AOT_TUNE_NAME_MAX];
    long param;                 /* 0: no parameter */
};

struct aot_encode_map {
    char coll[AOT_TUNE_NAME_MAX];
    int nrows, ncols, nmethods;
    int *ranks;                 /* [nrows], increasing */
    uint64_t *bytes;            /* [ncols], increasing */
    struct aot_encode_method *methods; /* [nmethods], by algorithm name, then parameter */
    double *time;               /* [(row * ncols + col) * nmethods + method]: the median in us,
                                 * 0 where not measured */
    int *best;                  /* [row * ncols + col]: the exact map; -1 at a dropped point */
    int *fill;                  /* [row * ncols + col]: the fill colour (above) */
    double *worst;              /* [row * ncols + col]: the slowest time measured there */
    int points;                 /* real points */
    int dropped;                /* grid points without any measurement */
    long missing;               /* (real point, method) pairs without a measurement */
    long replaced;              /* records replaced by a later one of the same method and point */
};

/* The map of collective `coll` from the records named so (others are skipped).  0, or -1 with
 * a message ("no measurements of bcast", "map of 90 x 300 points x 400 methods is too large
 * ...", "out of memory").  The map is freed with aot_encode_map_free either way. */
int aot_encode_map_build(struct aot_encode_map *m, const char *coll,
                         const struct aot_tune_raw *rec, size_t n, char *err, size_t errlen);
void aot_encode_map_free(struct aot_encode_map *m);

/* Whether (row, col) is a real point. */
int aot_encode_real(const struct aot_encode_map *m, int row, int col);
/* The time of method at a real point, by the missing-method rule. */
double aot_encode_time(const struct aot_encode_map *m, int row, int col, int method);
/* The penalty in percent of method at a real point (0 for the exact choice). */
double aot_encode_penalty(const struct aot_encode_map *m, int row, int col, int method);
/* The cell that covers a communicator size / message size (the ranges above). */
int aot_encode_row_of(const struct aot_encode_map *m, int comm_size);
int aot_encode_col_of(const struct aot_encode_map *m, uint64_t bytes);
/* The core's name of a method: "alg", or "alg param".  0, or -1 when it does not fit. */
int aot_encode_method_name(const struct aot_encode_method *mt, char *buf, size_t len);

/* ---------------------------------------------------------------- encodings */

enum aot_encode_kind {
    AOT_ENCODE_EXACT,       /* the quadtree without limits (square padding): the exact map */
    AOT_ENCODE_QUADTREE,    /* the paper's quadtree */
    AOT_ENCODE_PENALTY,     /* the penalty-aware tree */
    AOT_ENCODE_RULES        /* interval rules, the tuning file's own encoding */
};

/* Padding of the quadtree.  SQUARE (the paper): the map is padded to one 2^k x 2^k grid by
 * replicating its last row and last column, and every level halves both axes.  AXIS: each axis
 * is padded to its own power of two, and a level halves an axis only while it is longer than
 * one cell (a map of one communicator size becomes a binary tree over message sizes). */
enum aot_encode_pad { AOT_ENCODE_PAD_SQUARE, AOT_ENCODE_PAD_AXIS };

/*
 * What to build, named (aot_encode_spec_parse / _format) as
 *   exact
 *   quadtree[:depth=D][:threshold=P][:pad=square|axis]   D 1..32, P in (0, 100], default 100
 *   penalty:depth=D                                      D 1..16
 *   rules[:limit=N]                                      N >= 1, default no limit
 * e.g. "quadtree:depth=3", "quadtree:depth=3:pad=axis", "quadtree:threshold=45",
 * "penalty:depth=3", "rules:limit=16".
 *
 * Quadtree (the paper, section 3): a block becomes a leaf when at least `threshold` % of its
 * real points have the same exact colour, at depth `max_depth`, or when it is one cell; its
 * colour is the majority colour of its real points (fill-in copies not counted; the lowest
 * method index among equal counts).  A block without real points is a leaf with the majority
 * fill colour of its cells, copies included.  One level is one split into (at most) four;
 * quadrants that lie wholly in the padding are left out (no query reaches them), and a level
 * that leaves one quadrant tests nothing: it is not a node (the depth statistics count tests),
 * though it counts towards max_depth as in the paper.
 *
 * Penalty-aware tree: nodes of the same shape (a rectangle of the map split by at most one
 * row cut and one column cut into 2 or 4 parts), but every cut position is chosen, and a leaf
 * names the method with the least summed penalty over its real points (the lowest index among
 * equal sums; a leaf without real points takes its majority fill colour).  The tree of depth
 * at most max_depth with the least total penalty over the real points, among equal totals the
 * one with the fewest leaves, is found by exact dynamic programming over all sub-rectangles of
 * the map (2-D prefix sums of each method's penalty: a leaf's cost in O(methods)), when
 *   rectangles x (max_depth + 1) <= AOT_ENCODE_DP_MAX_RECTS   and
 *   sum over rectangles of (cut pairs tried) x max_depth <= AOT_ENCODE_DP_MAX_WORK
 * (rectangles = R(R+1)/2 x C(C+1)/2 for R rows and C columns).  Beyond, a greedy top-down
 * build is used instead (`greedy` is set): each node takes the cut pair whose parts, as
 * leaves, have the least summed penalty, and stays a leaf when no cut pair lowers it.  Every
 * quadtree of depth D restricted to the real map is one of the trees the exact DP considers,
 * so the DP's tree is never worse than the quadtree at the same depth.
 *
 * Interval rules: per communicator size, the runs of equal exact colour (fill colour at
 * dropped points) over message sizes; adjacent rows with identical runs share one ranks range.
 * With a limit on the number of rules, while there are more: of all adjacent pairs of runs in
 * one ranks range, and of adjacent ranks ranges that both have a single run, the pair whose
 * merge adds the least penalty is merged, into the method with the least summed penalty over
 * both (the first such pair in (ranks, bytes) order among equal ones); neighbours that end up
 * with the same method, and ranks ranges that end up with identical runs, are joined (no
 * penalty added).  The least a limit can reach is one rule.
 */
struct aot_encode_spec {
    enum aot_encode_kind kind;
    int max_depth;              /* QUADTREE: 0 = no limit; PENALTY: 1..16 */
    double threshold;           /* QUADTREE: percent, (0, 100] */
    enum aot_encode_pad pad;    /* QUADTREE */
    int limit;                  /* RULES: 0 = no limit */
};

#define AOT_ENCODE_DP_MAX_RECTS (1L << 23)
#define AOT_ENCODE_DP_MAX_WORK (1L << 30)

/* 0, or -1 with a message ("quadtree:depth=0: depth must be an integer 1..32"). */
int aot_encode_spec_parse(const char *name, struct aot_encode_spec *s, char *err,
                          size_t errlen);
/* The canonical name (parse(format(s)) == s).  0, or -1 when it does not fit. */
int aot_encode_spec_format(const struct aot_encode_spec *s, char *buf, size_t len);

/* A node of a tree: the rectangle [r0, r1) x [c0, c1) of map cells it decides (for the
 * quadtree, its block's part inside the map).  An inner node cuts at row rcut (rows >= rcut go
 * to the second part, i.e. comm_size >= ranks[rcut]) and/or column ccut (bytes >= bytes[ccut]);
 * 0 = no cut there.  child[2 * (second row part) + (second column part)], -1 where absent. */
struct aot_encode_node {
    int r0, r1, c0, c1;
    int rcut, ccut;
    int child[4];
    int method;                 /* a leaf's method; -1 for an inner node */
};

/* One rule: the cells [r0, r1) x [c0, c1) run `method`.  A list of rules is in (rows, bytes)
 * order, the rules of one ranks range (equal r0, r1) contiguous, covering all columns. */
struct aot_encode_rule {
    int r0, r1, c0, c1;
    int method;
};

struct aot_encoding {
    struct aot_encode_spec spec;
    struct aot_encode_node *nodes;  /* trees (EXACT, QUADTREE, PENALTY): nodes[0] is the root */
    int nnodes, capnodes;
    struct aot_encode_rule *rules;  /* RULES */
    int nrules;
    int greedy;                     /* PENALTY: 1 when the greedy fallback built it */
    int pad_rows, pad_cols;         /* EXACT, QUADTREE: the padded grid */
};

/* Builds encoding s of map m into e.  0, or -1 with a message (out of memory). */
int aot_encode_build(const struct aot_encode_map *m, const struct aot_encode_spec *s,
                     struct aot_encoding *e, char *err, size_t errlen);
void aot_encoding_free(struct aot_encoding *e);

/* The method e chooses for a call (the in-memory walk of the tree or of the rules, by the
 * cell ranges above); *depth (may be NULL) gets the number of tests passed: the tree's inner
 * nodes on the way, or for rules the ranks tests plus the bytes tests the emitted C makes. */
int aot_encode_lookup(const struct aot_encode_map *m, const struct aot_encoding *e,
                      int comm_size, uint64_t bytes, int *depth);
/* The same over a list of rules (aot_encode_flatten's). */
int aot_encode_rules_lookup(const struct aot_encode_map *m, const struct aot_encode_rule *r,
                            int n, int comm_size, uint64_t bytes, int *depth);

/* ---------------------------------------------------------------- statistics */

/* The paper's Table 2 for one encoding, over the real points of the map. */
struct aot_encode_stats {
    int depth_min, depth_max;
    double depth_mean;          /* tests passed, mean over the real points */
    int leaves;                 /* trees: leaves; rules: rules */
    int lines;                  /* lines of the emitted C function, braces included */
    double pen_min, pen_mean, pen_median, pen_max;   /* percent */
    int points;                 /* real points */
    int on_missing;             /* real points whose choice was not measured there */
};
int aot_encode_stats(const struct aot_encode_map *m, const struct aot_encoding *e,
                     struct aot_encode_stats *st);

/* ---------------------------------------------------------------- tuning-file rules */

/* The rules of a tuning file that route every call as e does: per row the runs of e's method
 * over the columns, identical adjacent rows joined (a tree's leaves may cross ranks ranges,
 * which a tuning file's ranks blocks cannot).  With `sizeless` (alltoallv, barrier: the file
 * takes "bytes 0-inf" only) each ranks range becomes one rule, of the method with the least
 * summed penalty over its real points, and adjacent ranges with the same method are joined.
 * *out is malloc'ed.  0, or -1 when out of memory. */
int aot_encode_flatten(const struct aot_encode_map *m, const struct aot_encoding *e,
                       int sizeless, struct aot_encode_rule **out, int *n);
/* The ranges of a rectangle of cells: ranks_hi INT_MAX and bytes_hi UINT64_MAX for "inf". */
void aot_encode_ranges(const struct aot_encode_map *m, const struct aot_encode_rule *r,
                       int *ranks_lo, int *ranks_hi, uint64_t *bytes_lo, uint64_t *bytes_hi);

/* ---------------------------------------------------------------- C */

/*
 * The decision function of one collective as C11:
 *
 *   const char *aot_builtin_decide_<coll>(int comm_size, unsigned long long bytes)
 *
 * returning labels[method] (NULL: aot_encode_method_name's names): nested ifs following the
 * tree (a node: "if (comm_size < r)" then "if (bytes < b)" in each part; a test whose two sides
 * decide the same method is left out, the tree keeps it), or for rules ifs over the ranks
 * ranges, then over the bytes ranges.  A parameter no test reads is cast to void.  <coll> is
 * the collective's name with every character other than a letter, digit or '_' replaced by
 * '_'.  f NULL: only counts.  Returns the number of lines of the function, or -1 on an output
 * error.
 */
int aot_encode_emit_c(FILE *f, const struct aot_encode_map *m, const struct aot_encoding *e,
                      const char *const *labels);
/* A self-contained C11 file: a comment (`comment`, may be NULL), prototypes, the function of
 * each of the n collectives, and
 *   const char *aot_builtin_decide(const char *coll, int comm_size, unsigned long long bytes)
 * which calls the collective's function, or returns NULL for another collective.  0, or -1 on
 * an output error. */
int aot_encode_emit_c_file(FILE *f, int n, const struct aot_encode_map *const *maps,
                           const struct aot_encoding *const *encs,
                           const char *const *const *labels, const char *comment);

#endif /* AOT_ENCODE_H_INCLUDED */
