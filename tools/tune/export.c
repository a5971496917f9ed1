/*
 * export.c: "autoopt-tune export": a tuning file turned into the MPI libraries' own selection
 * files, for programs that cannot preload autoopt (docs/tuning.md, "Export to MPICH and
 * Open MPI").
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   autoopt-tune export --mpich out.json --ompi out.conf cluster.tune
 *
 * Only rules whose algorithm exists in the target library are exported (the table xmap
 * below, documented in docs/tuning.md); everything else keeps the library's own choice.
 *
 * MPICH 4.0.2 (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): a tree of nested JSON objects whose
 * keys are tests, tried in order; a test that fails moves to its next sibling, and a subtree
 * whose tests all fail selects nothing (MPICH then asserts).  The user's file replaces the
 * built-in tree whole, so the export starts from that tree -- read from the installed
 * libmpich, where it is compiled in as a string, or from --mpich-base -- and, for each
 * collective with exported rules, puts in front of its intra-communicator subtree D:
 *
 *   "comm_size<=LO-1": D            (sizes below the first tuned one, if any)
 *   "comm_size<=HI": {               (one tuned communicator-size range)
 *       "avg_msg_size<=B1": GUARDS(algorithm, D),
 *       "avg_msg_size<=B2": D,       (a native rule: MPICH's own choice)
 *       "avg_msg_size=any": D }
 *   "comm_size=any": D
 *
 * GUARDS wraps the leaf in the tests MPICH's algorithm needs (a power-of-two communicator,
 * a built-in operation with a count of at least the power of two below the
 * communicator size, no MPI_IN_PLACE send buffer), each failing to D; on this path MPICH
 * checks none of them itself.  Only "<=", "=pow2" and "=any" are used: in 4.0.2
 * "comm_size<N" is evaluated as "<=".
 *
 * Open MPI 4.1 (coll_tuned_dynamic_rules_filename): integers.  The number of collectives;
 * per collective its id, the number of communicator sizes; per size the size and the number
 * of rules; per rule "msgsize algorithm faninout segsize".  A rule holds from its message
 * size up to the next rule's, a communicator-size entry from its size up to the next entry's,
 * and algorithm 0 means Open MPI's fixed decision.  Every size entry starts at message size 0
 * (otherwise Open MPI silently discards the whole file).
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"
#include "aot_files.h"
#include "aot_tools.h"
#include "aot_tuning_file.h"
#include "tune_export.h"

/* ---------------------------------------------------------------- the mapping table */

enum {
    G_POF2 = 1u << 0,        /* only on power-of-two communicator sizes */
    G_NOT_POF2 = 1u << 1,    /* only on other sizes (a power-of-two twin is mapped apart) */
    G_BUILTIN_COUNT = 1u << 2, /* only for built-in operations and count >= pof2(p) */
    G_NOT_INPLACE = 1u << 3, /* only when the send buffer is not MPI_IN_PLACE */
};

/* autoopt's algorithm and the library algorithm that runs the same communication pattern.
 * mpich NULL / ompi 0: none there (the rule keeps the library's own choice). */
struct xmap {
    int kind;
    const char *alg;
    const char *mpich;
    unsigned mpich_guards;
    int ompi;                   /* coll_tuned_<coll>_algorithm value */
    unsigned ompi_guards;
    int ompi_segsize;           /* the rule's parameter is Open MPI's segment size */
};

static const struct xmap xmap[] = {
    {AOT_COLL_ALLREDUCE, "recursive_doubling", "MPIR_Allreduce_intra_recursive_doubling", 0, 3, 0, 0},
    {AOT_COLL_ALLREDUCE, "rabenseifner", "MPIR_Allreduce_intra_reduce_scatter_allgather", G_BUILTIN_COUNT, 0, 0, 0},
    /* MPICH 4.0.2 has MPIR_Allreduce_intra_ring, but its selection file cannot name it */
    {AOT_COLL_ALLREDUCE, "reduce_bcast", NULL, 0, 2, 0, 0},
    {AOT_COLL_BCAST, "linear", NULL, 0, 1, 0, 0},
    {AOT_COLL_BCAST, "binomial", "MPIR_Bcast_intra_binomial", 0, 6, 0, 0},
    {AOT_COLL_BCAST, "binary", NULL, 0, 5, 0, 0},
    {AOT_COLL_BCAST, "split_binary", NULL, 0, 4, 0, 0},
    {AOT_COLL_BCAST, "chain", NULL, 0, 3, 0, 1},
    {AOT_COLL_BCAST, "scatter_allgather", "MPIR_Bcast_intra_scatter_ring_allgather", 0, 9, 0, 0},
    {AOT_COLL_REDUCE, "linear", NULL, 0, 1, 0, 0},
    {AOT_COLL_REDUCE, "binomial", "MPIR_Reduce_intra_binomial", 0, 0, 0, 0},
    {AOT_COLL_REDUCE, "binary", NULL, 0, 6, 0, 0},
    {AOT_COLL_REDUCE, "rabenseifner", "MPIR_Reduce_intra_reduce_scatter_gather", G_BUILTIN_COUNT, 0, 0, 0},
    {AOT_COLL_ALLGATHER, "bruck", "MPIR_Allgather_intra_brucks", 0, 2, 0, 0},
    {AOT_COLL_ALLGATHER, "recursive_doubling", "MPIR_Allgather_intra_recursive_doubling", G_POF2, 3, G_POF2, 0},
    {AOT_COLL_ALLGATHER, "ring", "MPIR_Allgather_intra_ring", 0, 4, 0, 0},
    {AOT_COLL_ALLGATHERV, "recursive_doubling", "MPIR_Allgatherv_intra_recursive_doubling", G_POF2, 0, 0, 0},
    {AOT_COLL_ALLGATHERV, "ring", "MPIR_Allgatherv_intra_ring", 0, 3, 0, 0},
    {AOT_COLL_ALLTOALL, "simple", "MPIR_Alltoall_intra_scattered", G_NOT_INPLACE, 1, 0, 0},
    {AOT_COLL_ALLTOALL, "bruck", "MPIR_Alltoall_intra_brucks", G_NOT_INPLACE, 3, 0, 0},
    {AOT_COLL_ALLTOALL, "pair", "MPIR_Alltoall_intra_pairwise", G_POF2 | G_NOT_INPLACE, 0, 0, 0},
    {AOT_COLL_ALLTOALL, "ring", "MPIR_Alltoall_intra_pairwise", G_NOT_POF2 | G_NOT_INPLACE, 2, 0, 0},
    {AOT_COLL_ALLTOALLV, "simple", "MPIR_Alltoallv_intra_scattered", G_NOT_INPLACE, 1, 0, 0},
    {AOT_COLL_ALLTOALLV, "ring", NULL, 0, 2, 0, 0},
    {AOT_COLL_BARRIER, "linear", NULL, 0, 1, 0, 0},
    {AOT_COLL_BARRIER, "dissemination", "MPIR_Barrier_intra_dissemination", 0, 4, 0, 0},
    {AOT_COLL_BARRIER, "recursive_doubling", NULL, 0, 3, 0, 0},
};

/* Open MPI's collective ids (coll_base_functions.h) by enum aot_coll_kind. */
static const int ompi_ids[AOT_COLL_NKINDS] = {
    [AOT_COLL_ALLGATHER] = 0, [AOT_COLL_ALLGATHERV] = 1, [AOT_COLL_ALLREDUCE] = 2,
    [AOT_COLL_ALLTOALL] = 3, [AOT_COLL_ALLTOALLV] = 4, [AOT_COLL_BARRIER] = 6,
    [AOT_COLL_BCAST] = 7, [AOT_COLL_REDUCE] = 11,
};

/* Whether the MPICH library read for the export accepts "algorithm=NAME" in its selection
 * file (its parser compares with a string of its own for each name); 1 when the tree came
 * from --mpich-base and there is no library to ask. */
static const char *mpich_lib_text;
static size_t mpich_lib_len;

static int mpich_accepts(const char *name)
{
    char key[160];
    if (!mpich_lib_text)
        return 1;
    int n = snprintf(key, sizeof(key), "algorithm=%s", name);
    return memmem(mpich_lib_text, mpich_lib_len, key, (size_t)n + 1) != NULL;
}

static const struct xmap *xmap_find(int alg)
{
    for (size_t i = 0; i < sizeof(xmap) / sizeof(xmap[0]); i++)
        if (xmap[i].kind == aot_tools_alg_kind(alg) &&
            strcmp(xmap[i].alg, aot_tools_alg_name(alg)) == 0)
            return &xmap[i];
    return NULL;
}

/* How a library measures a rule's message size, against autoopt's bytes (docs/tuning-format.md):
 * allgather and allgatherv over all ranks (bytes x p, so only for one communicator size);
 * the others as autoopt does; alltoallv and barrier not at all. */
static int scaled_by_p(int kind, int ompi)
{
    if (kind == AOT_COLL_ALLGATHER || kind == AOT_COLL_ALLGATHERV)
        return 1;
    return ompi && kind == AOT_COLL_ALLTOALL;
}

static int sizeless(int kind)
{
    return kind == AOT_COLL_ALLTOALLV || kind == AOT_COLL_BARRIER;
}

/* ---------------------------------------------------------------- errors */

static void fail(const char *fmt, ...)
{
    va_list ap;
    fputs("autoopt-tune export: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* ---------------------------------------------------------------- a JSON tree of objects */

/* MPICH's selection file is JSON restricted to objects whose values are objects: a node is
 * a key and the ordered list of its children.  Nodes are never freed one by one: they live
 * in one pool, released at the end. */
struct jnode {
    char *key;
    struct jnode **kids;
    int n, cap;
};

static void **pool;
static size_t npool, cappool;

static void *pooled(void *p)
{
    if (!p)
        fail("out of memory");
    if (npool == cappool) {
        cappool = cappool ? 2 * cappool : 256;
        void **np = realloc(pool, cappool * sizeof(*pool));
        if (!np)
            fail("out of memory");
        pool = np;
    }
    pool[npool++] = p;
    return p;
}

static void pool_free(void)
{
    for (size_t i = 0; i < npool; i++)
        free(pool[i]);
    free(pool);
    pool = NULL;
    npool = cappool = 0;
}

static struct jnode *jnew(const char *key)
{
    struct jnode *j = pooled(calloc(1, sizeof(*j)));
    j->key = key ? pooled(strdup(key)) : NULL;
    return j;
}

static void jadd(struct jnode *parent, struct jnode *kid)
{
    if (parent->n == parent->cap) {
        int cap = parent->cap ? 2 * parent->cap : 4;
        struct jnode **k = pooled(malloc(cap * sizeof(*k)));
        if (parent->n)
            memcpy(k, parent->kids, parent->n * sizeof(*k));
        parent->kids = k;       /* the old array stays in the pool */
        parent->cap = cap;
    }
    parent->kids[parent->n++] = kid;
}

/* A node named key whose children are those of `like` (shared, not copied: the tree is only
 * written out). */
static struct jnode *jalias(const char *key, const struct jnode *like)
{
    struct jnode *j = jnew(key);
    j->kids = like->kids;
    j->n = j->cap = like->n;    /* full: a later jadd copies first */
    return j;
}

static struct jnode *jchild(const struct jnode *j, const char *key)
{
    for (int i = 0; i < j->n; i++)
        if (strcmp(j->kids[i]->key, key) == 0)
            return j->kids[i];
    return NULL;
}

struct jparse {
    const char *s, *end, *start, *name;
};

static void jskip(struct jparse *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
}

static void jexpect(struct jparse *p, char c, const char *what)
{
    jskip(p);
    if (p->s >= p->end || *p->s != c)
        fail("%s: byte %td: expected %s", p->name, p->s - p->start, what);
    p->s++;
}

static void jobject(struct jparse *p, struct jnode *into, int depth)
{
    if (depth > 64)
        fail("%s: objects nested more than 64 deep", p->name);
    jexpect(p, '{', "'{'");
    jskip(p);
    if (p->s < p->end && *p->s == '}') {
        p->s++;
        return;
    }
    for (;;) {
        jexpect(p, '"', "a quoted key");
        const char *k = p->s;
        while (p->s < p->end && *p->s != '"' && *p->s != '\\')
            p->s++;
        if (p->s >= p->end || *p->s != '"')
            fail("%s: a key that does not end (or has an escape, which MPICH's keys never do)",
                 p->name);
        char *key = pooled(strndup(k, (size_t)(p->s - k)));
        p->s++;
        jexpect(p, ':', "':'");
        struct jnode *kid = jnew(NULL);
        kid->key = key;
        jobject(p, kid, depth + 1);
        jadd(into, kid);
        jskip(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        jexpect(p, '}', "',' or '}'");
        return;
    }
}

static struct jnode *jparse_text(const char *text, size_t len, const char *name)
{
    struct jparse p = {text, text + len, text, name};
    struct jnode *root = jnew(NULL);
    jobject(&p, root, 0);
    jskip(&p);
    if (p.s != p.end)
        fail("%s: text after the top-level object", name);
    return root;
}

static void jwrite(FILE *f, const struct jnode *j, int indent)
{
    if (j->n == 0) {
        fputs("{}", f);
        return;
    }
    fputs("{\n", f);
    for (int i = 0; i < j->n; i++) {
        fprintf(f, "%*s\"%s\": ", indent + 2, "", j->kids[i]->key);
        jwrite(f, j->kids[i], indent + 2);
        fputs(i + 1 < j->n ? ",\n" : "\n", f);
    }
    fprintf(f, "%*s}", indent, "");
}

/* ---------------------------------------------------------------- MPICH's built-in tree */

/* MPICH compiles its default selection tree into libmpich as one string; of the strings that
 * start like a selection tree, it is the one whose leaves are MPIR_ algorithms (the others
 * are the ch4 device's and its shared-memory module's). */
static char *mpich_builtin(const char *lib, size_t *len)
{
    char *text, err[512];
    size_t n;
    if (aot_file_slurp(lib, "cannot read the MPICH library", (size_t)512 << 20, &text, &n, err,
                       sizeof(err)) != 0)
        fail("%s", err);
    static const char start[] = "{\"collective=";
    char *found = NULL;
    int nfound = 0;
    for (char *s = text; (s = memmem(s, n - (size_t)(s - text), start, sizeof(start) - 1));) {
        size_t l = strnlen(s, n - (size_t)(s - text));
        char save = s[l];
        s[l] = '\0';
        if (strstr(s, "\"algorithm=MPIR_") && strstr(s, "comm_type=intra")) {
            found = s;
            nfound++;
        }
        s[l] = save;
        s += l;
    }
    if (nfound != 1)
        fail("%s: found %d built-in selection trees, expected 1; give MPICH's tree with "
             "--mpich-base FILE (maint/tuning/coll/mpir/generic.json in MPICH's source)",
             lib, nfound);
    *len = strlen(found);
    mpich_lib_text = pooled(text);
    mpich_lib_len = n;
    return found;
}

static const char *mpich_library_path(void)
{
    Dl_info info;
    if (!dladdr((void *)PMPI_Init, &info) || !info.dli_fname)
        fail("cannot tell which MPI library this program uses; give MPICH's tree with "
             "--mpich-base FILE");
    return info.dli_fname;
}

/* ---------------------------------------------------------------- rules by group */

/* The rules of one collective that share a communicator-size range, in bytes order. */
struct group {
    int kind, ranks_lo, ranks_hi;
    const struct aot_tuning_rule **r;
    int n;
};

static int cmp_rule(const void *a, const void *b)
{
    const struct aot_tuning_rule *x = *(const struct aot_tuning_rule *const *)a;
    const struct aot_tuning_rule *y = *(const struct aot_tuning_rule *const *)b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->ranks_lo != y->ranks_lo)
        return x->ranks_lo < y->ranks_lo ? -1 : 1;
    return x->bytes_lo < y->bytes_lo ? -1 : x->bytes_lo > y->bytes_lo;
}

static int make_groups(const struct aot_tuning *t, struct group **out)
{
    const struct aot_tuning_rule **v = pooled(malloc((t->n ? t->n : 1) * sizeof(*v)));
    struct group *g = pooled(calloc(t->n ? t->n : 1, sizeof(*g)));
    size_t n = 0;
    int ng = 0;
    /* Neither library's selection file knows how ranks sit on hosts: rules qualified by the
     * host shape (format version 2) stay autoopt's, and the library keeps its own choice. */
    for (size_t i = 0; i < t->n; i++)
        if (!aot_tuning_rule_shaped(&t->rules[i]))
            v[n++] = &t->rules[i];
    if (n < t->n)
        printf("%zu rule%s qualified by hosts or ppn not exported (the MPI libraries' files "
               "cannot express the host shape)\n", t->n - n, t->n - n == 1 ? "" : "s");
    qsort(v, n, sizeof(*v), cmp_rule);
    for (size_t i = 0; i < n; i++) {
        if (ng == 0 || g[ng - 1].kind != v[i]->kind || g[ng - 1].ranks_lo != v[i]->ranks_lo)
            g[ng++] = (struct group){v[i]->kind, v[i]->ranks_lo, v[i]->ranks_hi, &v[i], 0};
        g[ng - 1].n++;
    }
    *out = g;
    return ng;
}

/* What the export does with one rule of a group, and why not when it does not. */
static const struct xmap *exported(const struct group *g, const struct aot_tuning_rule *r,
                                   int ompi, const char **why)
{
    const struct xmap *x = r->alg == r->kind ? NULL : xmap_find(r->alg);
    struct aot_tools_param pa;
    *why = NULL;
    if (r->alg == r->kind)
        return NULL;            /* native: the library's own choice, nothing to say */
    if (!x || !(ompi ? x->ompi : x->mpich != NULL)) {
        *why = ompi ? "Open MPI has no such algorithm" : "MPICH has no such algorithm";
        return NULL;
    }
    if (!ompi && !mpich_accepts(x->mpich)) {
        *why = "this MPICH's selection file cannot name its version";
        return NULL;
    }
    if (ompi && aot_tools_alg_param(r->alg, &pa) && !x->ompi_segsize &&
        r->param != pa.dflt) {
        *why = "Open MPI's algorithm has no such parameter";
        return NULL;
    }
    if (scaled_by_p(g->kind, ompi) && g->ranks_lo != g->ranks_hi) {
        *why = "the library counts bytes over all ranks: needs a rule for one communicator size";
        return NULL;
    }
    if (ompi && (x->ompi_guards & G_POF2)) {
        for (int p = g->ranks_lo; p <= g->ranks_hi; p++)
            if (p & (p - 1)) {
                *why = "Open MPI's algorithm needs a power-of-two size, and its rules file "
                       "cannot test for one";
                return NULL;
            }
    }
    return x;
}

/* ---------------------------------------------------------------- MPICH */

static const char *mpich_size_key(int kind)
{
    return scaled_by_p(kind, 0) ? "total_msg_size" : "avg_msg_size";
}

/* {pass: then, fail: D} in that order, or {fail: D, pass: then} (the order matters when
 * the pass test is "=any"). */
static struct jnode *guard(struct jnode *then, const struct jnode *D, const char *pass,
                           const char *fail_key, int pass_first)
{
    struct jnode *w = jnew("x");
    jadd(w, pass_first ? jalias(pass, then) : jalias(fail_key, D));
    jadd(w, pass_first ? jalias(fail_key, D) : jalias(pass, then));
    return w;
}

/* The algorithm's leaf behind the tests it needs; D where a test fails. */
static struct jnode *mpich_leaf(const struct xmap *x, const struct jnode *D, const char *key)
{
    char buf[160];
    struct jnode *leaf = jnew("x");
    snprintf(buf, sizeof(buf), "algorithm=%s", x->mpich);
    jadd(leaf, jnew(buf));
    if (x->mpich_guards & G_BUILTIN_COUNT)
        leaf = guard(guard(leaf, D, "count=any", "count<pow2", 0), D, "is_op_built_in=yes",
                     "is_op_built_in=no", 1);
    if (x->mpich_guards & G_POF2)
        leaf = guard(leaf, D, "comm_size=pow2", "comm_size=any", 1);
    if (x->mpich_guards & G_NOT_POF2)
        leaf = guard(leaf, D, "comm_size=any", "comm_size=pow2", 0);
    if (x->mpich_guards & G_NOT_INPLACE)
        leaf = guard(leaf, D, "is_sendbuf_inplace=no", "is_sendbuf_inplace=yes", 0);
    return jalias(key, leaf);
}

/* The rules of one group as size tests, each falling back to D. */
static struct jnode *mpich_group(const struct group *g, const struct jnode *D, int *nexp)
{
    struct jnode *sub = jnew("x");
    const char *sk = mpich_size_key(g->kind);
    int p = g->ranks_lo;
    char key[96];
    uint64_t next = 0;

    for (int i = 0; i < g->n; i++) {
        const struct aot_tuning_rule *r = g->r[i];
        const char *why;
        const struct xmap *x = exported(g, r, 0, &why);
        if (!x)
            continue;
        (*nexp)++;
        if (sizeless(g->kind)) {
            jadd(sub, mpich_leaf(x, D, "comm_size=any"));
            return sub;
        }
        /* autoopt's bytes b against MPICH's size: b itself, or the total b * p for
         * allgather(v), where b = floor(total / p) <= hi exactly when total <= hi*p + p-1 */
        uint64_t m = scaled_by_p(g->kind, 0) ? (uint64_t)p : 1;
        if (r->bytes_lo > next) {
            snprintf(key, sizeof(key), "%s<=%" PRIu64, sk, r->bytes_lo * m - 1);
            jadd(sub, jalias(key, D));
        }
        if (r->bytes_hi >= (UINT64_MAX - m) / m) {
            snprintf(key, sizeof(key), "%s=any", sk);
            jadd(sub, mpich_leaf(x, D, key));
            return sub;
        }
        snprintf(key, sizeof(key), "%s<=%" PRIu64, sk, r->bytes_hi * m + m - 1);
        jadd(sub, mpich_leaf(x, D, key));
        next = r->bytes_hi + 1;
    }
    snprintf(key, sizeof(key), "%s=any", sizeless(g->kind) ? "comm_size" : sk);
    jadd(sub, jalias(key, D));
    return sub;
}

static struct jnode *mpich_tree(const struct jnode *base, struct group *g, int ng, int *nexp)
{
    struct jnode *root = jnew(NULL);
    for (int i = 0; i < base->n; i++) {
        const struct jnode *coll = base->kids[i];
        int kind = -1;
        if (strncmp(coll->key, "collective=", 11) == 0)
            kind = aot_tools_find_kind(coll->key + 11, strlen(coll->key + 11));
        const struct jnode *D = kind >= 0 ? jchild(coll, "comm_type=intra") : NULL;
        struct jnode *intra = jnew("comm_type=intra");
        int prev_hi = 0, any = 0;
        for (int k = 0; D && k < ng; k++) {
            if (g[k].kind != kind)
                continue;
            int before = *nexp;
            struct jnode *sub = mpich_group(&g[k], D, nexp);
            if (*nexp == before)
                continue;       /* nothing of this group is exported */
            char key[64];
            if (g[k].ranks_lo > prev_hi + 1) {
                snprintf(key, sizeof(key), "comm_size<=%d", g[k].ranks_lo - 1);
                jadd(intra, jalias(key, D));
            }
            snprintf(key, sizeof(key), "comm_size<=%d", g[k].ranks_hi);
            jadd(intra, jalias(key, sub));
            prev_hi = g[k].ranks_hi;
            any = 1;
        }
        if (!any) {
            jadd(root, (struct jnode *)coll);
            continue;
        }
        jadd(intra, jalias("comm_size=any", D));
        struct jnode *c = jnew(coll->key);
        for (int j = 0; j < coll->n; j++)
            jadd(c, strcmp(coll->kids[j]->key, "comm_type=intra") == 0 ? intra : coll->kids[j]);
        jadd(root, c);
    }
    return root;
}

/* ---------------------------------------------------------------- Open MPI */

struct ompi_rule {
    uint64_t msg;
    int alg, fan, seg;
};

/* One group's rules as Open MPI rules from message size 0 on, equal neighbours merged. */
static int ompi_group(const struct group *g, struct ompi_rule *out, int *nexp)
{
    int n = 0;
    uint64_t next = 0, m = scaled_by_p(g->kind, 1) ? (uint64_t)g->ranks_lo : 1;
#define PUT(msg_, alg_, seg_)                                                                  \
    do {                                                                                       \
        struct ompi_rule r_ = {(msg_), (alg_), 0, (seg_)};                                     \
        if (n > 0 && out[n - 1].alg == r_.alg && out[n - 1].seg == r_.seg)                     \
            break;                                                                             \
        if (n > 0 && out[n - 1].msg == r_.msg)                                                 \
            n--;                                                                               \
        out[n++] = r_;                                                                         \
    } while (0)
    for (int i = 0; i < g->n; i++) {
        const struct aot_tuning_rule *r = g->r[i];
        const char *why;
        const struct xmap *x = exported(g, r, 1, &why);
        if (!sizeless(g->kind) && r->bytes_lo > next)
            PUT(next * m, 0, 0);
        if (x) {
            (*nexp)++;
            PUT(sizeless(g->kind) ? 0 : r->bytes_lo * m, x->ompi,
                x->ompi_segsize ? (int)r->param : 0);
        } else {
            PUT(sizeless(g->kind) ? 0 : r->bytes_lo * m, 0, 0);
        }
        if (sizeless(g->kind) || r->bytes_hi >= (UINT64_MAX - m) / m)
            return n;
        next = r->bytes_hi + 1;
    }
    PUT(next * m, 0, 0);
#undef PUT
    if (n == 0 || out[0].msg != 0)
        fail("internal error: an Open MPI size entry that does not start at message size 0");
    return n;
}

static void emit_json(FILE *f, void *arg)
{
    jwrite(f, arg, 0);
    fputc('\n', f);
}

static void ompi_file(struct group *g, int ng, const char *path, int *nexp)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    char err[512];
    if (!f)
        fail("out of memory");
    struct ompi_rule *rules = pooled(malloc(sizeof(*rules) * 4 * 1024));
    int ncoll = 0;
    for (int kind = 0; kind < AOT_COLL_NKINDS; kind++)
        for (int k = 0; k < ng; k++)
            if (g[k].kind == kind) {
                ncoll++;
                break;
            }
    fprintf(f, "%d\n", ncoll);
    for (int kind = 0; kind < AOT_COLL_NKINDS; kind++) {
        int nsizes = 0, prev_hi = 0;
        char *body = NULL;
        size_t blen = 0;
        FILE *b = open_memstream(&body, &blen);
        if (!b)
            fail("out of memory");
        for (int k = 0; k < ng; k++) {
            if (g[k].kind != kind)
                continue;
            if (g[k].n > 1024)
                fail("%d rules for one communicator size: at most 1024", g[k].n);
            if (g[k].ranks_lo > prev_hi + 1 && nsizes == 0) {
                fprintf(b, "1 1\n0 0 0 0\n");
                nsizes++;
            } else if (g[k].ranks_lo > prev_hi + 1) {
                fprintf(b, "%d 1\n0 0 0 0\n", prev_hi + 1);
                nsizes++;
            }
            int n = ompi_group(&g[k], rules, nexp);
            fprintf(b, "%d %d\n", g[k].ranks_lo, n);
            for (int i = 0; i < n; i++)
                fprintf(b, "%" PRIu64 " %d %d %d\n", rules[i].msg, rules[i].alg, rules[i].fan,
                        rules[i].seg);
            nsizes++;
            prev_hi = g[k].ranks_hi;
        }
        if (nsizes && prev_hi < 1 << 30) {
            fprintf(b, "%d 1\n0 0 0 0\n", prev_hi + 1);
            nsizes++;
        }
        fclose(b);
        if (nsizes)
            fprintf(f, "%d\n%d\n%.*s", ompi_ids[kind], nsizes, (int)blen, body);
        free(body);
    }
    if (fclose(f) != 0)
        fail("out of memory");
    if (aot_file_replace_text(path, text, len, err, sizeof(err)) != 0)
        fail("%s", err);
    free(text);
}

/* ---------------------------------------------------------------- the command */

static void usage(FILE *f)
{
    fputs(
"NAME\n"
"    autoopt-tune export - turn a tuning file into MPICH's or Open MPI's own selection file\n"
"\n"
"SYNOPSIS\n"
"    autoopt-tune export [--mpich OUT.json] [--mpich-base FILE] [--ompi OUT.conf] TUNING\n"
"\n"
"DESCRIPTION\n"
"    For programs that cannot preload autoopt: the rules of TUNING (written by autoopt-tune)\n"
"    whose algorithm also exists in the MPI library are written in that library's own\n"
"    format; every other size keeps the library's own choice.  The mapping of algorithms and\n"
"    the tests each needs are listed in docs/tuning.md (\"Export to MPICH and Open MPI\").\n"
"    A line per rule on stdout says what was exported and why a rule was not.  Runs without\n"
"    mpiexec.\n"
"\n"
"OPTIONS\n"
"    --mpich OUT.json     MPICH 4.0 collective selection file.  Use it with\n"
"                         MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=OUT.json; within one host\n"
"                         also MPIR_CVAR_DEVICE_COLLECTIVES=none (else MPICH's shared-memory\n"
"                         collectives decide first)\n"
"    --mpich-base FILE    MPICH's built-in selection tree, which the file must contain whole\n"
"                         (default: read from the MPICH library this program is linked with)\n"
"    --ompi OUT.conf      Open MPI 4.1 coll/tuned rules file.  Use it with --mca\n"
"                         coll_tuned_use_dynamic_rules 1 --mca\n"
"                         coll_tuned_dynamic_rules_filename OUT.conf\n"
"    -h, --help           this text\n"
"\n"
"EXAMPLE\n"
"    autoopt-tune export --mpich cluster.json --ompi cluster.conf cluster.tune\n"
"    MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$PWD/cluster.json mpiexec.mpich -n 8 ./app\n",
          f);
}

static void report(struct group *g, int ng, int ompi)
{
    for (int k = 0; k < ng; k++)
        for (int i = 0; i < g[k].n; i++) {
            const struct aot_tuning_rule *r = g[k].r[i];
            const char *why;
            const struct xmap *x = exported(&g[k], r, ompi, &why);
            if (r->alg == r->kind)
                continue;
            printf("%s: %s ranks %d-%d bytes %" PRIu64 "-%" PRIu64 " %s", ompi ? "ompi" : "mpich",
                   aot_tools_kind_name(r->kind), r->ranks_lo, r->ranks_hi, r->bytes_lo,
                   r->bytes_hi, aot_tools_alg_name(r->alg));
            if (x && ompi)
                printf(" -> algorithm %d%s\n", x->ompi, x->ompi_segsize ? " with its segment" : "");
            else if (x)
                printf(" -> %s\n", x->mpich);
            else
                printf(": not exported (%s)\n", why);
        }
}

int aot_tune_export(int argc, char **argv)
{
    const char *mpich = NULL, *base = NULL, *ompi = NULL, *in = NULL;
    char err[512];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = strcmp(a, "--mpich") == 0        ? &mpich
                           : strcmp(a, "--mpich-base") == 0 ? &base
                           : strcmp(a, "--ompi") == 0       ? &ompi
                                                            : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (dst) {
            if (i + 1 >= argc) {
                fprintf(stderr, "autoopt-tune export: %s needs a file name (see --help)\n", a);
                return 2;
            }
            *dst = argv[++i];
        } else if (a[0] == '-') {
            fprintf(stderr, "autoopt-tune export: unknown option '%s' (see --help)\n", a);
            return 2;
        } else if (in) {
            fprintf(stderr, "autoopt-tune export: one tuning file only ('%s', then '%s')\n", in, a);
            return 2;
        } else {
            in = a;
        }
    }
    if (!in || (!mpich && !ompi)) {
        fprintf(stderr, "autoopt-tune export: give a tuning file and --mpich or --ompi (see --help)\n");
        return 2;
    }
    if (base && !mpich) {
        fprintf(stderr, "autoopt-tune export: --mpich-base without --mpich\n");
        return 2;
    }
    /* the files written, checked before any work (src/files.c) */
    if (mpich && aot_file_check_writable(mpich, err, sizeof(err)) != 0)
        fail("--mpich %s", err);
    if (ompi && aot_file_check_writable(ompi, err, sizeof(err)) != 0)
        fail("--ompi %s", err);

    struct aot_tuning t;
    aot_tuning_init(&t);
    if (aot_tuning_read(&t, in, err, sizeof(err)) != 0)
        fail("%s", err);
    struct group *g;
    int ng = make_groups(&t, &g);

    if (mpich) {
        size_t len;
        char *text;
        if (base) {
            if (aot_file_slurp(base, "cannot read MPICH's selection tree", (size_t)64 << 20,
                               &text, &len, err, sizeof(err)) != 0)
                fail("%s", err);
            pooled(text);
        } else {
            base = mpich_library_path();
            text = mpich_builtin(base, &len);
        }
        struct jnode *tree = jparse_text(text, len, base);
        int nexp = 0;
        struct jnode *out = mpich_tree(tree, g, ng, &nexp);
        if (aot_file_replace(mpich, emit_json, out, err, sizeof(err)) != 0)
            fail("%s", err);
        report(g, ng, 0);
        printf("mpich: %s: %d rules exported into MPICH's tree from %s\n", mpich, nexp, base);
    }
    if (ompi) {
        int nexp = 0;
        ompi_file(g, ng, ompi, &nexp);
        report(g, ng, 1);
        printf("ompi: %s: %d rules exported\n", ompi, nexp);
    }
    aot_tuning_free(&t);
    pool_free();
    return 0;
}
