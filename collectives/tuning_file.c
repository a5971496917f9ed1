/*
 * tuning_file.c: reader and writer of the tuning file, format version 2, reading version 1
 * too (docs/tuning-format.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   # comment
 *   autoopt-tuning 2
 *   collective allreduce
 *   ranks 1-4
 *   bytes 0-2047 recursive_doubling
 *   bytes 2048-inf rabenseifner
 *   ranks 5-inf hosts 2-inf ppn 2-inf      (version 2: qualified by the host shape)
 *   bytes 0-255 shm
 *   ranks 5-inf hosts 1-1
 *   bytes 0-inf ring
 *
 * A ranks block is the triple (ranks, hosts, ppn); a missing qualifier is 1-inf.  Blocks of
 * one collective are identical or disjoint in at least one of the three.
 * One statement per line, leading blanks ignored.  Every error names the file, the line and
 * what was expected.  Pure C: no MPI (coll_run.c broadcasts the text from rank 0).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "aot_config.h"
#include "aot_files.h"
#include "aot_tuning_file.h"
#include "coll_registry.h"
#include "coll_select.h"

void aot_tuning_init(struct aot_tuning *t)
{
    t->rules = NULL;
    t->n = t->cap = 0;
    t->sorted = 1;
    t->shaped = 0;
}

void aot_tuning_free(struct aot_tuning *t)
{
    free(t->rules);
    aot_tuning_init(t);
}

static int aot_overlap_u64(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi)
{
    return alo <= bhi && blo <= ahi;
}

static void aot_fmt_ranks(char *buf, size_t len, int lo, int hi)
{
    if (hi == AOT_TUNING_INF_RANKS)
        snprintf(buf, len, "%d-inf", lo);
    else
        snprintf(buf, len, "%d-%d", lo, hi);
}

/* A qualifier's range as the rule stores it (lo 0: none) turned into what it means. */
static int aot_eff_lo(int lo)
{
    return lo ? lo : 1;
}

static int aot_eff_hi(int lo, int hi)
{
    return lo ? hi : AOT_TUNING_INF_RANKS;
}

static int aot_overlap_int(int alo, int ahi, int blo, int bhi)
{
    return alo <= bhi && blo <= ahi;
}

/* "4-8", "4-8 hosts 2-2", "4-8 hosts 2-inf ppn 2-2": a ranks block as the file writes it. */
static void aot_fmt_block(char *buf, size_t len, const struct aot_tuning_rule *r)
{
    char a[32];
    size_t n;

    aot_fmt_ranks(buf, len, r->ranks_lo, r->ranks_hi);
    if (r->hosts_lo) {
        n = strlen(buf);
        aot_fmt_ranks(a, sizeof(a), r->hosts_lo, r->hosts_hi);
        snprintf(buf + n, len - n, " hosts %s", a);
    }
    if (r->ppn_lo) {
        n = strlen(buf);
        aot_fmt_ranks(a, sizeof(a), r->ppn_lo, r->ppn_hi);
        snprintf(buf + n, len - n, " ppn %s", a);
    }
}

/* Whether two rules belong to the same ranks block (same three ranges). */
static int aot_same_block(const struct aot_tuning_rule *x, const struct aot_tuning_rule *y)
{
    return x->ranks_lo == y->ranks_lo && x->ranks_hi == y->ranks_hi
           && x->hosts_lo == y->hosts_lo && x->hosts_hi == y->hosts_hi
           && x->ppn_lo == y->ppn_lo && x->ppn_hi == y->ppn_hi;
}

/* Whether the blocks of two rules of one collective share a communicator. */
static int aot_blocks_meet(const struct aot_tuning_rule *x, const struct aot_tuning_rule *y)
{
    return aot_overlap_int(x->ranks_lo, x->ranks_hi, y->ranks_lo, y->ranks_hi)
           && aot_overlap_int(aot_eff_lo(x->hosts_lo), aot_eff_hi(x->hosts_lo, x->hosts_hi),
                              aot_eff_lo(y->hosts_lo), aot_eff_hi(y->hosts_lo, y->hosts_hi))
           && aot_overlap_int(aot_eff_lo(x->ppn_lo), aot_eff_hi(x->ppn_lo, x->ppn_hi),
                              aot_eff_lo(y->ppn_lo), aot_eff_hi(y->ppn_lo, y->ppn_hi));
}

/* Whether a communicator of this shape (nhosts, ppn: 0 unknown) is in r's block. */
static int aot_rule_holds(const struct aot_tuning_rule *r, int comm_size, int nhosts, int ppn)
{
    if (comm_size < r->ranks_lo || comm_size > r->ranks_hi)
        return 0;
    if (r->hosts_lo && (nhosts < r->hosts_lo || nhosts > r->hosts_hi))
        return 0;
    if (r->ppn_lo && (ppn < r->ppn_lo || ppn > r->ppn_hi))
        return 0;
    return 1;
}

static void aot_fmt_bytes(char *buf, size_t len, uint64_t lo, uint64_t hi)
{
    if (hi == AOT_TUNING_INF_BYTES)
        snprintf(buf, len, "%llu-inf", (unsigned long long) lo);
    else
        snprintf(buf, len, "%llu-%llu", (unsigned long long) lo, (unsigned long long) hi);
}

/* Order of the table when t->sorted: collective, ranks_lo, hosts_lo, ppn_lo, bytes_lo (without
 * shape qualifiers: collective, ranks_lo, bytes_lo, which the binary search relies on). */
static int aot_rule_cmp(const void *a, const void *b)
{
    const struct aot_tuning_rule *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->ranks_lo != y->ranks_lo)
        return x->ranks_lo < y->ranks_lo ? -1 : 1;
    if (x->hosts_lo != y->hosts_lo)
        return x->hosts_lo < y->hosts_lo ? -1 : 1;
    if (x->ppn_lo != y->ppn_lo)
        return x->ppn_lo < y->ppn_lo ? -1 : 1;
    if (x->bytes_lo != y->bytes_lo)
        return x->bytes_lo < y->bytes_lo ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* The checks on one rule by itself. */
static int aot_rule_check(const struct aot_tuning_rule *r, char *err, size_t errlen)
{
    const struct aot_coll_param *par;
    char a[64];

    if (r->kind < 0 || r->kind >= AOT_COLL_NKINDS) {
        snprintf(err, errlen, "unknown collective %d", r->kind);
        return -1;
    }
    if (r->alg < 0 || r->alg >= aot_coll_nalgs || (int) aot_coll_algs[r->alg].kind != r->kind) {
        snprintf(err, errlen, "algorithm %d is not a %s algorithm", r->alg,
                 aot_coll_kind_names[r->kind]);
        return -1;
    }
    par = &aot_coll_algs[r->alg].param;
    if (par->name ? (r->param < par->min || r->param > par->max) : r->param != 0) {
        snprintf(err, errlen, "%s: parameter %ld out of range", aot_coll_algs[r->alg].name,
                 r->param);
        return -1;
    }
    if (r->ranks_lo < 1 || r->ranks_hi < r->ranks_lo) {
        aot_fmt_ranks(a, sizeof(a), r->ranks_lo, r->ranks_hi);
        snprintf(err, errlen, "ranks %s: expected 1 <= lo <= hi", a);
        return -1;
    }
    if ((r->hosts_lo || r->hosts_hi) && (r->hosts_lo < 1 || r->hosts_hi < r->hosts_lo)) {
        aot_fmt_ranks(a, sizeof(a), r->hosts_lo, r->hosts_hi);
        snprintf(err, errlen, "hosts %s: expected 1 <= lo <= hi", a);
        return -1;
    }
    if ((r->ppn_lo || r->ppn_hi) && (r->ppn_lo < 1 || r->ppn_hi < r->ppn_lo)) {
        aot_fmt_ranks(a, sizeof(a), r->ppn_lo, r->ppn_hi);
        snprintf(err, errlen, "ppn %s: expected 1 <= lo <= hi", a);
        return -1;
    }
    if (r->bytes_hi < r->bytes_lo) {
        aot_fmt_bytes(a, sizeof(a), r->bytes_lo, r->bytes_hi);
        snprintf(err, errlen, "bytes %s: expected lo <= hi", a);
        return -1;
    }
    return 0;
}

static int aot_rule_append(struct aot_tuning *t, const struct aot_tuning_rule *r, char *err,
                           size_t errlen)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        struct aot_tuning_rule *nr = realloc(t->rules, cap * sizeof(*nr));
        if (!nr) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        t->rules = nr;
        t->cap = cap;
    }
    if (t->n && aot_rule_cmp(&t->rules[t->n - 1], r) >= 0)
        t->sorted = 0;
    if (aot_tuning_rule_shaped(r))
        t->shaped++;
    t->rules[t->n++] = *r;
    return 0;
}

/* "bytes A overlaps bytes B at line N" for the rule `late` and the earlier rule `o`. */
static void aot_overlap_msg(const struct aot_tuning_rule *late, const struct aot_tuning_rule *o,
                            char *err, size_t errlen)
{
    char a[128], b[128];
    const char *what = "bytes";

    if (!aot_same_block(o, late)) {
        what = "ranks";
        aot_fmt_block(a, sizeof(a), late);
        aot_fmt_block(b, sizeof(b), o);
    } else {
        aot_fmt_bytes(a, sizeof(a), late->bytes_lo, late->bytes_hi);
        aot_fmt_bytes(b, sizeof(b), o->bytes_lo, o->bytes_hi);
    }
    if (o->line)
        snprintf(err, errlen, "%s %s overlaps %s %s at line %d", what, a, what, b, o->line);
    else
        snprintf(err, errlen, "%s %s overlaps %s %s", what, a, what, b);
}

static int aot_rules_overlap(const struct aot_tuning_rule *o, const struct aot_tuning_rule *r)
{
    if (o->kind != r->kind || !aot_blocks_meet(o, r))
        return 0;
    if (!aot_same_block(o, r))
        return 1;
    return aot_overlap_u64(o->bytes_lo, o->bytes_hi, r->bytes_lo, r->bytes_hi);
}

/* For tables built in memory (the tuner): each rule is compared with every earlier one. */
int aot_tuning_add(struct aot_tuning *t, const struct aot_tuning_rule *r, char *err,
                   size_t errlen)
{
    if (aot_rule_check(r, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        if (aot_rules_overlap(&t->rules[i], r)) {
            aot_overlap_msg(r, &t->rules[i], err, errlen);
            return -1;
        }
    }
    return aot_rule_append(t, r, err, errlen);
}

/*
 * Sorts the table and checks all of it at once: O(n log n), where comparing each rule of a file
 * with every earlier one took 5.4 s for 40,000 rules.  Sorted by (collective, ranks_lo,
 * hosts_lo, ppn_lo, bytes_lo), two rules of one block that overlap imply two neighbours that
 * overlap; blocks that meet were rejected before (aot_blocks_check).  On an overlap, *line is
 * the later of the two rules' lines and err names the other.
 */
static int aot_tuning_finish(struct aot_tuning *t, int *line, char *err, size_t errlen)
{
    if (!t->sorted && t->n > 1) {
        qsort(t->rules, t->n, sizeof(*t->rules), aot_rule_cmp);
        t->sorted = 1;
    }
    for (size_t i = 1; i < t->n; i++) {
        const struct aot_tuning_rule *x = &t->rules[i - 1], *y = &t->rules[i];
        if (aot_rules_overlap(x, y)) {
            const struct aot_tuning_rule *late = x->line > y->line ? x : y;
            aot_overlap_msg(late, late == x ? y : x, err, errlen);
            *line = late->line;
            return -1;
        }
    }
    return 0;
}

/* The last rule at or before (kind, ranks_lo, bytes_lo) in the sorted table, or -1. */
static ptrdiff_t aot_tuning_floor(const struct aot_tuning *t, int kind, int ranks_lo,
                                  uint64_t bytes_lo)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t) t->n - 1, found = -1;
    while (lo <= hi) {
        ptrdiff_t mid = lo + (hi - lo) / 2;
        const struct aot_tuning_rule *r = &t->rules[mid];
        int le = r->kind != kind ? r->kind < kind
                 : r->ranks_lo != ranks_lo ? r->ranks_lo < ranks_lo : r->bytes_lo <= bytes_lo;
        if (le) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return found;
}

const struct aot_tuning_rule *aot_tuning_lookup_shape(const struct aot_tuning *t, int kind,
                                                      int comm_size, int nhosts, int ppn,
                                                      uint64_t bytes)
{
    if (t->sorted && !t->shaped) {
        /* the ranks block that may hold comm_size, then the bytes range within it */
        ptrdiff_t i = aot_tuning_floor(t, kind, comm_size, UINT64_MAX);
        const struct aot_tuning_rule *r;
        if (i < 0 || t->rules[i].kind != kind || t->rules[i].ranks_hi < comm_size)
            return NULL;
        i = aot_tuning_floor(t, kind, t->rules[i].ranks_lo, bytes);
        if (i < 0)
            return NULL;
        r = &t->rules[i];
        if (r->kind == kind && r->ranks_lo <= comm_size && comm_size <= r->ranks_hi
            && r->bytes_lo <= bytes && bytes <= r->bytes_hi)
            return r;
        return NULL;
    }
    /* with shapes (files of a few dozen rules): a scan of the collective's rules */
    for (size_t i = t->sorted ? (size_t) (aot_tuning_floor(t, kind, 0, 0) + 1) : 0; i < t->n; i++) {
        const struct aot_tuning_rule *r = &t->rules[i];
        if (t->sorted && r->kind > kind)
            break;
        if (r->kind == kind && aot_rule_holds(r, comm_size, nhosts, ppn)
            && r->bytes_lo <= bytes && bytes <= r->bytes_hi)
            return r;
    }
    return NULL;
}

const struct aot_tuning_rule *aot_tuning_lookup(const struct aot_tuning *t, int kind,
                                                int comm_size, uint64_t bytes)
{
    return aot_tuning_lookup_shape(t, kind, comm_size, 0, 0, bytes);
}

/* Whether any rule of kind covers communicators of comm_size ranks: 1, 0, or -1 when the table
 * has no rule of kind at all. */
int aot_tuning_covers(const struct aot_tuning *t, int kind, int comm_size)
{
    int any = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct aot_tuning_rule *r = &t->rules[i];
        if (r->kind != kind)
            continue;
        any = 1;
        if (r->ranks_lo <= comm_size && comm_size <= r->ranks_hi)
            return 1;
    }
    return any ? 0 : -1;
}

/* ---------------------------------------------------------------- reader */

#define AOT_MAXTOK 8

struct aot_reader {
    const char *name;
    int line;
    char *err;
    size_t errlen;
    char q[3][AOT_QUOTE_LEN];   /* tokens quoted for the message (aot_rq) */
};

/* A token as a message shows it (escaped, cut at AOT_QUOTE_SHOWN characters); up to three per
 * message. */
static const char *aot_rq(struct aot_reader *rd, int slot, const char *tok)
{
    return aot_quote_str(tok, rd->q[slot], sizeof(rd->q[slot]));
}

__attribute__((format(printf, 2, 3)))
static int aot_fail(struct aot_reader *rd, const char *fmt, ...)
{
    va_list ap;
    char name[AOT_QUOTE_LEN];
    int n = snprintf(rd->err, rd->errlen, "%s:%d: ", aot_quote_str(rd->name, name, sizeof(name)),
                     rd->line);
    if (n < 0 || (size_t) n >= rd->errlen)
        return -1;
    va_start(ap, fmt);
    vsnprintf(rd->err + n, rd->errlen - (size_t) n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A byte count (aot_parse_size: the parser settings use too), or "inf" (returns inf). */
static int aot_parse_u64(const char *s, size_t len, uint64_t inf, uint64_t *out)
{
    if (len == 3 && memcmp(s, "inf", 3) == 0) {
        *out = inf;
        return 0;
    }
    return aot_parse_size(s, len, out);
}

/* One end of a range, s[0..n): a count of at most max, or "inf".  NULL, or what is wrong with
 * it (in buf). */
static const char *aot_range_end(const char *s, size_t n, const char *end, uint64_t inf,
                                 uint64_t max, uint64_t *out, char *buf, size_t len)
{
    char q[AOT_QUOTE_LEN];

    if (n == 0) {
        snprintf(buf, len, "the %s end is missing%s", end,
                 *end == 'l' ? " (a negative number?)" : "");
        return buf;
    }
    if (aot_parse_u64(s, n, inf, out) == 0) {
        if (*out == inf || *out <= max)
            return NULL;
        snprintf(buf, len, "%s is more than %llu, the most ranks an int counts",
                 aot_quote(s, n, q, sizeof(q)), (unsigned long long) max);
        return buf;
    }
    if (strspn(s, "0123456789") >= n)
        snprintf(buf, len, "%s is too large (more than %llu)", aot_quote(s, n, q, sizeof(q)),
                 (unsigned long long) UINT64_MAX);
    else if (s[0] == '-')
        snprintf(buf, len, "the %s end is negative", end);
    else
        snprintf(buf, len, "'%s' is not a count such as 4096, 64K or 1M, nor 'inf'",
                 aot_quote(s, n, q, sizeof(q)));
    return buf;
}

/* "<lo>-<hi>" with min <= lo <= hi <= max (or hi "inf"): NULL, or what is wrong (in buf). */
static const char *aot_range_why(const char *tok, uint64_t inf, uint64_t min, uint64_t max,
                                 uint64_t *lo, uint64_t *hi, char *buf, size_t len)
{
    const char *dash = strchr(tok, '-');
    const char *why;

    if (!dash)
        return "no '-' between the low and the high end";
    why = aot_range_end(tok, (size_t) (dash - tok), "low", inf, max, lo, buf, len);
    if (!why && *lo == inf)
        why = "the low end cannot be 'inf'";
    if (!why)
        why = aot_range_end(dash + 1, strlen(dash + 1), "high", inf, max, hi, buf, len);
    if (!why && *lo < min) {
        snprintf(buf, len, "the low end must be at least %llu", (unsigned long long) min);
        why = buf;
    }
    if (!why && *hi < *lo) {
        snprintf(buf, len, "the low end %llu is above the high end %llu",
                 (unsigned long long) *lo, (unsigned long long) *hi);
        why = buf;
    }
    return why;
}

/* "WORD <lo>-<hi>" at tok[at] (a ranks count, min 1, or bytes): 0, or -1 with the message that
 * says what is wrong with the value. */
static int aot_parse_range(struct aot_reader *rd, char **tok, int ntok, int at, const char *word,
                           uint64_t *lo, uint64_t *hi)
{
    const int ranks = strcmp(word, "bytes") != 0;
    char buf[AOT_QUOTE_LEN + 128];
    const char *why;

    why = at >= ntok ? "no range"
          : aot_range_why(tok[at], ranks ? AOT_TUNING_INF_RANKS : AOT_TUNING_INF_BYTES,
                          ranks ? 1 : 0, ranks ? INT_MAX : UINT64_MAX, lo, hi, buf,
                          sizeof(buf));
    if (!why)
        return 0;
    return aot_fail(rd, "%s %s: %s (expected '%s <lo>-<hi>' with %slo <= hi, hi may be 'inf')",
                    word, at < ntok ? aot_rq(rd, 0, tok[at]) : "", why, word,
                    ranks ? "1 <= " : "");
}

static int aot_split(char *s, char **tok)
{
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(s, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save)) {
        if (n == AOT_MAXTOK)
            return n + 1;
        tok[n++] = w;
    }
    return n;
}

/* Ranks blocks seen so far, for the overlap check. */
/* A block is kept as a rule whose kind, ranges and line are set. */
struct aot_blocks {
    struct aot_tuning_rule *b;
    int n, cap;
};

static int aot_block_cmp(const void *a, const void *b)
{
    const struct aot_tuning_rule *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->ranks_lo != y->ranks_lo)
        return x->ranks_lo < y->ranks_lo ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Ranks blocks of one collective must not meet.  Sorted by ranks_lo, each block is compared
 * with the later ones whose ranks range starts within its own: without shape qualifiers that is
 * only its neighbour (O(n log n)); blocks that share a ranks range and differ in their shape
 * are compared with each other. */
static int aot_blocks_check(struct aot_blocks *bl, struct aot_reader *rd)
{
    if (bl->n < 2)
        return 0;           /* (qsort may not be handed the NULL of an empty list) */
    qsort(bl->b, (size_t) bl->n, sizeof(*bl->b), aot_block_cmp);
    for (int i = 0; i + 1 < bl->n; i++) {
        const struct aot_tuning_rule *x = &bl->b[i];
        for (int j = i + 1; j < bl->n && bl->b[j].kind == x->kind
                            && bl->b[j].ranks_lo <= x->ranks_hi; j++) {
            const struct aot_tuning_rule *y = &bl->b[j];
            if (aot_blocks_meet(x, y)) {
                const struct aot_tuning_rule *late = x->line > y->line ? x : y;
                const struct aot_tuning_rule *o = late == x ? y : x;
                char a[128], b[128];
                aot_fmt_block(a, sizeof(a), late);
                aot_fmt_block(b, sizeof(b), o);
                rd->line = late->line;
                return aot_fail(rd, "ranks %s overlaps ranks %s at line %d", a, b, o->line);
            }
        }
    }
    return 0;
}

/* "hosts <lo>-<hi>" or "ppn <lo>-<hi>" after "ranks": 0, or -1 with the message given. */
static int aot_parse_qualifier(struct aot_reader *rd, char **tok, int ntok, int *at,
                               const char *word, int version, int *lo_out, int *hi_out)
{
    uint64_t lo, hi;

    if (*at >= ntok || strcmp(tok[*at], word) != 0)
        return 0;
    if (version < 2)
        return aot_fail(rd, "'%s' needs format version 2 (the file says 'autoopt-tuning %d')",
                        word, version);
    if (aot_parse_range(rd, tok, ntok, *at + 1, word, &lo, &hi) != 0)
        return -1;
    *lo_out = (int) lo;
    *hi_out = hi == AOT_TUNING_INF_RANKS ? AOT_TUNING_INF_RANKS : (int) hi;
    *at += 2;
    return 0;
}

static int aot_parse_lines(struct aot_tuning *t, const char *text, size_t len,
                           struct aot_reader *rd, struct aot_blocks *bl)
{
    int version = 0, kind = -1, have_ranks = 0, ranks_line = 0, block_rules = 0;
    int kind_line[AOT_COLL_NKINDS] = {0};
    int ranks_lo = 0, ranks_hi = 0, hosts_lo = 0, hosts_hi = 0, ppn_lo = 0, ppn_hi = 0;
    size_t pos = 0;
    char line[1024], msg[1024];

    while (pos < len) {
        size_t end = pos, n;
        char *tok[AOT_MAXTOK], *hash;
        int ntok;

        while (end < len && text[end] != '\n')
            end++;
        n = end - pos;
        rd->line++;
        if (memchr(text + pos, '\0', n))
            return aot_fail(rd, "a NUL byte in the line (a binary file?)");
        /* a comment may be as long as it likes: only what comes before '#' is kept */
        if ((hash = memchr(text + pos, '#', n)) != NULL)
            n = (size_t) (hash - (text + pos));
        if (n >= sizeof(line))
            return aot_fail(rd, "line longer than %zu characters before any comment",
                            sizeof(line) - 1);
        memcpy(line, text + pos, n);
        line[n] = '\0';
        pos = end + 1;
        ntok = aot_split(line, tok);
        if (ntok == 0)
            continue;
        if (!version) {
            uint64_t v;
            if (ntok != 2 || strcmp(tok[0], "autoopt-tuning") != 0
                || aot_parse_u64(tok[1], strlen(tok[1]), 0, &v) != 0)
                return aot_fail(rd, "expected 'autoopt-tuning %d' as the first line",
                                AOT_TUNING_VERSION);
            if (v < 1 || v > AOT_TUNING_VERSION)
                return aot_fail(rd, "format version %llu not supported (this autoopt reads "
                                "versions 1-%d)", (unsigned long long) v, AOT_TUNING_VERSION);
            version = (int) v;
            continue;
        }
        if (strcmp(tok[0], "collective") == 0) {
            int k;
            if (have_ranks && block_rules == 0) {
                rd->line = ranks_line;
                return aot_fail(rd, "ranks block without a 'bytes' line");
            }
            if (ntok != 2)
                return aot_fail(rd, "expected 'collective <name>'");
            k = aot_coll_find_kind(tok[1], strlen(tok[1]));
            if (k < 0)
                return aot_fail(rd, "unknown collective '%s' (known: allreduce, bcast, reduce, "
                                "allgather, allgatherv, alltoall, alltoallv, barrier)",
                                aot_rq(rd, 0, tok[1]));
            if (kind_line[k])
                return aot_fail(rd, "collective %s already given at line %d",
                                aot_coll_kind_names[k], kind_line[k]);
            kind_line[k] = rd->line;
            kind = k;
            have_ranks = 0;
            continue;
        }
        if (strcmp(tok[0], "ranks") == 0) {
            uint64_t lo, hi;
            int at = 2;
            if (kind < 0)
                return aot_fail(rd, "expected 'collective <name>' before 'ranks'");
            if (have_ranks && block_rules == 0) {
                rd->line = ranks_line;
                return aot_fail(rd, "ranks block without a 'bytes' line");
            }
            if (aot_parse_range(rd, tok, ntok, 1, "ranks", &lo, &hi) != 0)
                return -1;
            ranks_lo = (int) lo;
            ranks_hi = hi == AOT_TUNING_INF_RANKS ? AOT_TUNING_INF_RANKS : (int) hi;
            hosts_lo = hosts_hi = ppn_lo = ppn_hi = 0;
            if (aot_parse_qualifier(rd, tok, ntok, &at, "hosts", version, &hosts_lo, &hosts_hi)
                || aot_parse_qualifier(rd, tok, ntok, &at, "ppn", version, &ppn_lo, &ppn_hi))
                return -1;
            if (at < ntok)
                return aot_fail(rd, "unexpected '%s' after 'ranks %s' (%s)",
                                aot_rq(rd, 0, tok[at]), aot_rq(rd, 1, tok[1]),
                                version < 2 ? "format version 1 has no qualifiers"
                                            : "expected 'hosts <lo>-<hi>', then 'ppn <lo>-<hi>'");
            /* overlapping ranks blocks are found once the whole file is read
             * (aot_blocks_check) */
            if (bl->n == bl->cap) {
                int cap = bl->cap ? 2 * bl->cap : 16;
                void *nb = realloc(bl->b, (size_t) cap * sizeof(*bl->b));
                if (!nb)
                    return aot_fail(rd, "out of memory");
                bl->b = nb;
                bl->cap = cap;
            }
            bl->b[bl->n++] = (struct aot_tuning_rule){
                .kind = kind, .ranks_lo = ranks_lo, .ranks_hi = ranks_hi, .hosts_lo = hosts_lo,
                .hosts_hi = hosts_hi, .ppn_lo = ppn_lo, .ppn_hi = ppn_hi, .line = rd->line};
            have_ranks = 1;
            ranks_line = rd->line;
            block_rules = 0;
            continue;
        }
        if (strcmp(tok[0], "bytes") == 0) {
            struct aot_tuning_rule r;
            struct aot_coll_choice c;
            r.note = NULL;
            if (!have_ranks)
                return aot_fail(rd, "expected 'ranks <lo>-<hi>' before 'bytes'");
            if (aot_parse_range(rd, tok, ntok, 1, "bytes", &r.bytes_lo, &r.bytes_hi) != 0)
                return -1;
            if (ntok < 3)
                return aot_fail(rd, "expected an algorithm after 'bytes %s'", aot_rq(rd, 0, tok[1]));
            if (ntok > 3)
                return aot_fail(rd, "unexpected '%s' after the algorithm", aot_rq(rd, 0, tok[3]));
            if (aot_coll_parse_choice(kind, tok[2], &c, msg, sizeof(msg)) != 0)
                return aot_fail(rd, "%s %s: %s", aot_coll_kind_names[kind], aot_rq(rd, 0, tok[2]),
                                msg);
            r.kind = kind;
            r.ranks_lo = ranks_lo;
            r.ranks_hi = ranks_hi;
            r.hosts_lo = hosts_lo;
            r.hosts_hi = hosts_hi;
            r.ppn_lo = ppn_lo;
            r.ppn_hi = ppn_hi;
            r.alg = c.alg;
            r.param = c.param;
            r.line = rd->line;
            if (aot_rule_check(&r, msg, sizeof(msg)) != 0
                || aot_rule_append(t, &r, msg, sizeof(msg)) != 0)
                return aot_fail(rd, "%s", msg);
            block_rules++;
            continue;
        }
        return aot_fail(rd, "expected 'collective', 'ranks' or 'bytes', found '%s'",
                        aot_rq(rd, 0, tok[0]));
    }
    if (!version) {
        rd->line = rd->line ? rd->line : 1;
        return aot_fail(rd, "expected 'autoopt-tuning %d' as the first line", AOT_TUNING_VERSION);
    }
    if (have_ranks && block_rules == 0) {
        rd->line = ranks_line;
        return aot_fail(rd, "ranks block without a 'bytes' line");
    }
    return 0;
}

int aot_tuning_parse(struct aot_tuning *t, const char *text, size_t len, const char *name,
                     char *err, size_t errlen)
{
    struct aot_reader rd = {.name = name, .err = err, .errlen = errlen};
    struct aot_blocks bl = {NULL, 0, 0};
    char msg[256];
    int rc = aot_parse_lines(t, text, len, &rd, &bl);

    if (rc == 0)
        rc = aot_blocks_check(&bl, &rd);
    if (rc == 0 && aot_tuning_finish(t, &rd.line, msg, sizeof(msg)) != 0)
        rc = aot_fail(&rd, "%s", msg);
    free(bl.b);
    return rc;
}

int aot_tuning_slurp(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    return aot_file_slurp(path, "tuning file", AOT_TUNING_MAX_BYTES, text, len, err, errlen);
}

int aot_tuning_read(struct aot_tuning *t, const char *path, char *err, size_t errlen)
{
    char *text;
    size_t len;
    int rc;

    if (aot_tuning_slurp(path, &text, &len, err, errlen) != 0)
        return -1;
    rc = aot_tuning_parse(t, text, len, path, err, errlen);
    free(text);
    return rc;
}

/* ---------------------------------------------------------------- writer */

int aot_tuning_write(const struct aot_tuning *t, FILE *f)
{
    struct aot_tuning_rule *sorted = NULL;
    const struct aot_tuning_rule *block = NULL;
    int kind = -1, ok = 1;

    if (t->n) {
        sorted = malloc(t->n * sizeof(*sorted));
        if (!sorted)
            return -1;
        memcpy(sorted, t->rules, t->n * sizeof(*sorted));
        qsort(sorted, t->n, sizeof(*sorted), aot_rule_cmp);
    }
    ok &= fprintf(f, "# autoopt tuning file: see docs/tuning-format.md\n"
                     "autoopt-tuning %d\n", AOT_TUNING_VERSION) > 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct aot_tuning_rule *r = &sorted[i];
        struct aot_coll_choice c = {r->alg, r->param};
        char a[128], spec[256];
        if (r->kind != kind) {
            kind = r->kind;
            block = NULL;
            ok &= fprintf(f, "collective %s\n", aot_coll_kind_names[kind]) > 0;
        }
        if (!block || !aot_same_block(block, r)) {
            block = r;
            aot_fmt_block(a, sizeof(a), r);
            ok &= fprintf(f, "  ranks %s\n", a) > 0;
        }
        aot_fmt_bytes(a, sizeof(a), r->bytes_lo, r->bytes_hi);
        if (aot_coll_format_choice(&c, spec, sizeof(spec)) != 0)
            ok = 0;
        if (r->note)
            ok &= fprintf(f, "    bytes %s %s    # %s\n", a, spec, r->note) > 0;
        else
            ok &= fprintf(f, "    bytes %s %s\n", a, spec) > 0;
    }
    free(sorted);
    return ok && !ferror(f) ? 0 : -1;
}

struct aot_tuning_job {
    const struct aot_tuning *t;
    int rc;
};

static void aot_tuning_emit(FILE *f, void *arg)
{
    struct aot_tuning_job *job = arg;
    job->rc = aot_tuning_write(job->t, f);
}

/* Written whole, by the one writer of every file autoopt writes (src/files.c): a device, FIFO,
 * socket or directory at path is refused and left as it is, a symbolic link is followed. */
int aot_tuning_save(const struct aot_tuning *t, const char *path, char *err, size_t errlen)
{
    struct aot_tuning_job job = {t, 0};

    if (aot_file_replace(path, aot_tuning_emit, &job, err, errlen) != 0)
        return -1;
    if (job.rc != 0) {
        snprintf(err, errlen, "%s: cannot write the tuning file", path);
        return -1;
    }
    return 0;
}
