/*
 * topology_conf.c: reader of Slurm's topology.conf (docs/topology.md) and its resolution against
 * the hosts of one job.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   # comment
 *   SwitchName=s0 Nodes=node[0-3]
 *   SwitchName=s1 Nodes=node[4-7] LinkSpeed=100
 *   SwitchName=top Switches=s[0-1]
 *
 * One switch per line, keys case-insensitive, lines in any order.  Nodes= and Switches= are
 * Slurm host lists, expanded by Slurm's own parser from libslurm, loaded with dlopen() on the
 * first host list (libautoopt.so does not depend on libslurm at load time: every MPI process
 * would map it).  Pure C: no MPI calls, no global state.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <slurm/slurm.h>

#include "aot_config.h"
#include "aot_files.h"
#include "aot_topology_conf.h"

/* The soname of the libslurm whose header we compiled against.  In 23.11 hostlist_t stopped
 * being a pointer type and the prototypes below changed: refuse to build against another. */
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0) || \
    SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#error "collectives/topology_conf.c is written for libslurm-dev 22.05 (Debian 12): libslurm.so.38"
#endif
#define AOT_SLURM_SONAME "libslurm.so.38"
#define AOT_SLURM_PACKAGE "libslurm38"

/* The most names one host list may expand to: "node[0-999999999]" is a typing error, not a
 * cluster. */
#define AOT_TOPO_MAX_NAMES 1000000

/* Slurm's host-list functions, typed from their real prototypes. */
struct aot_slurm {
    void *handle;
    __typeof__(slurm_hostlist_create) *create;
    __typeof__(slurm_hostlist_shift) *shift;
    __typeof__(slurm_hostlist_destroy) *destroy;
};

/* The state of one parse. */
struct aot_topo_parse {
    struct aot_topology *t;
    struct aot_slurm slurm;
    struct aot_topo_node *ref; /* the Switches= entries (sw: the switch that lists them),
                                * linked once every switch is known */
    int nref, capref, capsw, capnode;
    char *err;
    size_t errlen;
};

static void aot_topo_fail(char *err, size_t errlen, const char *file, int line,
                          const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void aot_topo_fail(char *err, size_t errlen, const char *file, int line,
                          const char *fmt, ...)
{
    va_list ap;
    int n;

    if (!errlen)
        return;
    n = line > 0 ? snprintf(err, errlen, "%s:%d: ", file, line) : snprintf(err, errlen, "%s: ", file);
    if (n < 0 || (size_t)n >= errlen)
        return;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

void aot_topology_init(struct aot_topology *t)
{
    memset(t, 0, sizeof(*t));
}

void aot_topology_free(struct aot_topology *t)
{
    for (int i = 0; i < t->nsw; i++) {
        free(t->sw[i].name);
        free(t->sw[i].link_speed);
        free(t->sw[i].child);
    }
    for (int i = 0; i < t->nnode; i++)
        free(t->node[i].name);
    free(t->sw);
    free(t->node);
    free(t->file);
    aot_topology_init(t);
}

/* libslurm, loaded on the first host list.  It is never closed: libslurm is not written to be
 * unloaded, and a second dlopen() only counts a reference. */
static int aot_slurm_load(struct aot_topo_parse *p, int line)
{
    struct aot_slurm *s = &p->slurm;

    if (s->handle)
        return 0;
    s->handle = dlopen(AOT_SLURM_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!s->handle) {
        aot_topo_fail(p->err, p->errlen, p->t->file, line,
                      "cannot load %s for Slurm's host-list parser (install the Debian package "
                      "%s): %s", AOT_SLURM_SONAME, AOT_SLURM_PACKAGE, dlerror());
        return -1;
    }
    s->create = (__typeof__(s->create))dlsym(s->handle, "slurm_hostlist_create");
    s->shift = (__typeof__(s->shift))dlsym(s->handle, "slurm_hostlist_shift");
    s->destroy = (__typeof__(s->destroy))dlsym(s->handle, "slurm_hostlist_destroy");
    if (!s->create || !s->shift || !s->destroy) {
        aot_topo_fail(p->err, p->errlen, p->t->file, line,
                      "%s lacks slurm_hostlist_create/shift/destroy (install the Debian package "
                      "%s)", AOT_SLURM_SONAME, AOT_SLURM_PACKAGE);
        s->handle = NULL;
        return -1;
    }
    return 0;
}

/* A node or switch name: letters, digits, '-', '_' and '.', as in host names. */
static int aot_topo_good_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.'))
            return 0;
    }
    return 1;
}

static int aot_topo_grow(void **array, int *cap, int n, size_t elem)
{
    void *a;
    int c;

    if (n < *cap)
        return 0;
    c = *cap ? 2 * *cap : 16;
    a = realloc(*array, (size_t)c * elem);
    if (!a)
        return -1;
    *array = a;
    *cap = c;
    return 0;
}

/* Expands the host list value of key on line into names, calling add(p, name, line, arg) for
 * each; add takes the string.  0 or -1 (err set). */
static int aot_topo_expand(struct aot_topo_parse *p, const char *key, const char *value, int line,
                           int (*add)(struct aot_topo_parse *, char *, int, int), int arg)
{
    hostlist_t hl;
    char *name, qv[AOT_QUOTE_LEN], qn[AOT_QUOTE_LEN];
    int n = 0, rc = 0;

    aot_quote_str(value, qv, sizeof(qv));

    if (aot_slurm_load(p, line) != 0)
        return -1;
    hl = p->slurm.create(value);
    if (!hl) {
        aot_topo_fail(p->err, p->errlen, p->t->file, line,
                      "%s=%s: Slurm's host-list parser rejects it", key, qv);
        return -1;
    }
    while ((name = p->slurm.shift(hl)) != NULL) {
        if (rc == 0 && !aot_topo_good_name(name)) {
            aot_topo_fail(p->err, p->errlen, p->t->file, line,
                          "%s=%s: bad name '%s' (expected letters, digits, '-', '_', '.', and "
                          "ranges like node[0-3,7])", key, qv,
                          aot_quote_str(name, qn, sizeof(qn)));
            rc = -1;
        } else if (rc == 0 && ++n > AOT_TOPO_MAX_NAMES) {
            aot_topo_fail(p->err, p->errlen, p->t->file, line,
                          "%s=%s: more than %d names", key, qv, AOT_TOPO_MAX_NAMES);
            rc = -1;
        }
        if (rc == 0) {
            rc = add(p, name, line, arg);
        } else {
            free(name);         /* drain the list; Slurm allocated it with malloc */
        }
    }
    p->slurm.destroy(hl);
    if (rc == 0 && n == 0) {
        aot_topo_fail(p->err, p->errlen, p->t->file, line, "%s=%s names nothing", key, qv);
        rc = -1;
    }
    return rc;
}

static int aot_topo_oom(struct aot_topo_parse *p, int line)
{
    aot_topo_fail(p->err, p->errlen, p->t->file, line, "out of memory");
    return -1;
}

/* Appends (name, sw, line) to a list of names; the list takes the string. */
static int aot_topo_push(struct aot_topo_parse *p, struct aot_topo_node **a, int *n, int *cap,
                         char *name, int line, int sw)
{
    if (aot_topo_grow((void **)a, cap, *n, sizeof(**a)) != 0) {
        free(name);
        return aot_topo_oom(p, line);
    }
    (*a)[*n].name = name;
    (*a)[*n].sw = sw;
    (*a)[*n].line = line;
    (*n)++;
    return 0;
}

static int aot_topo_add_node(struct aot_topo_parse *p, char *name, int line, int sw)
{
    return aot_topo_push(p, &p->t->node, &p->t->nnode, &p->capnode, name, line, sw);
}

static int aot_topo_add_ref(struct aot_topo_parse *p, char *name, int line, int parent)
{
    return aot_topo_push(p, &p->ref, &p->nref, &p->capref, name, line, parent);
}

static int aot_topo_find_switch(const struct aot_topology *t, const char *name)
{
    for (int i = 0; i < t->nsw; i++)
        if (!strcmp(t->sw[i].name, name))
            return i;
    return -1;
}

enum { AOT_TK_SWITCHNAME, AOT_TK_SWITCHES, AOT_TK_NODES, AOT_TK_LINKSPEED, AOT_TK_N };
static const char *const aot_topo_keys[AOT_TK_N] = {"SwitchName", "Switches", "Nodes",
                                                    "LinkSpeed"};

/* One line, comment already cut off, as a NUL-terminated writable string. */
static int aot_topo_line(struct aot_topo_parse *p, char *s, int line)
{
    struct aot_topology *t = p->t;
    char *val[AOT_TK_N] = {NULL, NULL, NULL, NULL};
    char *tok, *save = NULL;
    struct aot_topo_switch *sw;
    char q[AOT_QUOTE_LEN];
    int k, idx;

    for (tok = strtok_r(s, " \t\r\v\f", &save); tok; tok = strtok_r(NULL, " \t\r\v\f", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            aot_topo_fail(p->err, p->errlen, t->file, line,
                          "syntax error at '%s' (expected KEY=VALUE, e.g. SwitchName=s0 "
                          "Nodes=node[0-3])", aot_quote_str(tok, q, sizeof(q)));
            return -1;
        }
        *eq = '\0';
        for (k = 0; k < AOT_TK_N && strcasecmp(tok, aot_topo_keys[k]); k++)
            ;
        if (k == AOT_TK_N) {
            aot_topo_fail(p->err, p->errlen, t->file, line,
                          "unknown key '%s' (expected SwitchName, Switches, Nodes or LinkSpeed)",
                          aot_quote_str(tok, q, sizeof(q)));
            return -1;
        }
        if (val[k]) {
            aot_topo_fail(p->err, p->errlen, t->file, line, "%s= given twice",
                          aot_topo_keys[k]);
            return -1;
        }
        if (!eq[1]) {
            aot_topo_fail(p->err, p->errlen, t->file, line, "%s= has no value",
                          aot_topo_keys[k]);
            return -1;
        }
        val[k] = eq + 1;
    }
    if (!val[AOT_TK_SWITCHNAME]) {
        for (k = 0; k < AOT_TK_N && !val[k]; k++)
            ;
        if (k == AOT_TK_N)
            return 0;           /* blank */
        aot_topo_fail(p->err, p->errlen, t->file, line,
                      "%s= without SwitchName= (each line describes one switch)",
                      aot_topo_keys[k]);
        return -1;
    }
    if (!aot_topo_good_name(val[AOT_TK_SWITCHNAME])) {
        aot_topo_fail(p->err, p->errlen, t->file, line,
                      "bad switch name '%s' (expected letters, digits, '-', '_' and '.')",
                      aot_quote_str(val[AOT_TK_SWITCHNAME], q, sizeof(q)));
        return -1;
    }
    idx = aot_topo_find_switch(t, val[AOT_TK_SWITCHNAME]);
    if (idx >= 0) {
        aot_topo_fail(p->err, p->errlen, t->file, line,
                      "switch %s is defined twice (first on line %d)", t->sw[idx].name,
                      t->sw[idx].line);
        return -1;
    }
    if (aot_topo_grow((void **)&t->sw, &p->capsw, t->nsw, sizeof(*t->sw)) != 0)
        return aot_topo_oom(p, line);
    idx = t->nsw++;
    sw = &t->sw[idx];
    memset(sw, 0, sizeof(*sw));
    sw->parent = -1;
    sw->line = line;
    sw->name = strdup(val[AOT_TK_SWITCHNAME]);
    if (val[AOT_TK_LINKSPEED])
        sw->link_speed = strdup(val[AOT_TK_LINKSPEED]);
    if (!sw->name || (val[AOT_TK_LINKSPEED] && !sw->link_speed))
        return aot_topo_oom(p, line);
    if (val[AOT_TK_NODES] &&
        aot_topo_expand(p, "Nodes", val[AOT_TK_NODES], line, aot_topo_add_node, idx) != 0)
        return -1;
    if (val[AOT_TK_SWITCHES] &&
        aot_topo_expand(p, "Switches", val[AOT_TK_SWITCHES], line, aot_topo_add_ref, idx) != 0)
        return -1;
    return 0;
}

static int aot_topo_node_cmp(const void *a, const void *b)
{
    const struct aot_topo_node *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    if (c)
        return c;
    return (x->line > y->line) - (x->line < y->line);
}

/* Nodes sorted by name; a name listed twice is an error at its second listing. */
static int aot_topo_check_nodes(struct aot_topo_parse *p)
{
    struct aot_topology *t = p->t;
    int bad = -1;

    qsort(t->node, (size_t)t->nnode, sizeof(*t->node), aot_topo_node_cmp);
    for (int i = 1; i < t->nnode; i++)
        if (!strcmp(t->node[i].name, t->node[i - 1].name) &&
            (bad < 0 || t->node[i].line < t->node[bad].line))
            bad = i;
    if (bad >= 0) {
        int first = bad;
        while (first > 0 && !strcmp(t->node[first - 1].name, t->node[bad].name))
            first--;
        aot_topo_fail(p->err, p->errlen, t->file, t->node[bad].line,
                      "node %s is listed twice (first on line %d, under switch %s)",
                      t->node[bad].name, t->node[first].line, t->sw[t->node[first].sw].name);
        return -1;
    }
    return 0;
}

/* Links every Switches= entry to its switch, in the order of the file. */
static int aot_topo_link(struct aot_topo_parse *p)
{
    struct aot_topology *t = p->t;

    for (int i = 0; i < p->nref; i++) {
        const struct aot_topo_node *r = &p->ref[i];
        int c = aot_topo_find_switch(t, r->name);
        struct aot_topo_switch *sw;
        int *child;

        if (c < 0) {
            aot_topo_fail(p->err, p->errlen, t->file, r->line,
                          "unknown switch '%s' in Switches= of %s (no SwitchName=%s line)",
                          r->name, t->sw[r->sw].name, r->name);
            return -1;
        }
        sw = &t->sw[c];
        if (sw->parent >= 0) {
            aot_topo_fail(p->err, p->errlen, t->file, r->line,
                          "switch %s is listed under two parents: %s (line %d) and %s",
                          sw->name, t->sw[sw->parent].name, sw->parent_line,
                          t->sw[r->sw].name);
            return -1;
        }
        sw->parent = r->sw;
        sw->parent_line = r->line;
        child = realloc(t->sw[r->sw].child, (size_t)(t->sw[r->sw].nchild + 1) * sizeof(*child));
        if (!child)
            return aot_topo_oom(p, r->line);
        child[t->sw[r->sw].nchild++] = c;
        t->sw[r->sw].child = child;
    }
    return 0;
}

/* Depth of every switch; a cycle is an error at the last line that closes it. */
static int aot_topo_depths(struct aot_topo_parse *p)
{
    struct aot_topology *t = p->t;

    for (int i = 0; i < t->nsw; i++) {
        int s = i, d = 0;
        while (t->sw[s].parent >= 0 && d <= t->nsw) {
            s = t->sw[s].parent;
            d++;
        }
        if (d > t->nsw) {
            /* s is on the cycle.  Its last link read (largest line) is the error; the cycle
             * is named from there downwards, parent -> child, as Switches= lists it. */
            int *cyc = malloc((size_t)t->nsw * sizeof(*cyc));
            int len = 0, last = s, c = s, at;
            char path[512];
            size_t n = 0;
            if (!cyc)
                return aot_topo_oom(p, 0);
            do {
                if (t->sw[c].parent_line > t->sw[last].parent_line)
                    last = c;
                c = t->sw[c].parent;
            } while (c != s);
            c = last;           /* up from last: last, its parent, ... back to last */
            do {
                cyc[len++] = c;
                c = t->sw[c].parent;
            } while (c != last);
            /* print parent of last first, then downwards to last */
            for (at = len; at >= 0 && n < sizeof(path); at--) {
                int w = snprintf(path + n, sizeof(path) - n, at ? "%s -> " : "%s",
                                 t->sw[cyc[at % len]].name);
                if (w < 0)
                    break;
                n += (size_t)w;
            }
            free(cyc);
            aot_topo_fail(p->err, p->errlen, t->file, t->sw[last].parent_line,
                          "switch cycle: %s", path);
            return -1;
        }
        t->sw[i].depth = d;
    }
    return 0;
}

int aot_topology_parse(struct aot_topology *t, const char *text, size_t len, const char *file,
                       char *err, size_t errlen)
{
    struct aot_topo_parse p;
    size_t at = 0;
    int line = 0, rc = 0;
    char *buf = NULL;

    memset(&p, 0, sizeof(p));
    p.t = t;
    p.err = err;
    p.errlen = errlen;
    aot_topology_init(t);
    t->file = strdup(file);
    if (!t->file) {
        aot_topo_fail(err, errlen, file, 0, "out of memory");
        return -1;
    }
    while (rc == 0 && at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len, n = end - at;
        char *hash, *b;

        line++;
        b = realloc(buf, n + 1);
        if (!b) {
            rc = aot_topo_oom(&p, line);
            break;
        }
        buf = b;
        memcpy(buf, text + at, n);
        buf[n] = '\0';
        if (strlen(buf) != n) {
            aot_topo_fail(err, errlen, t->file, line, "a NUL byte (not a text file)");
            rc = -1;
            break;
        }
        hash = strchr(buf, '#');
        if (hash)
            *hash = '\0';
        rc = aot_topo_line(&p, buf, line);
        at = end + 1;
    }
    free(buf);
    if (rc == 0 && t->nsw == 0) {
        aot_topo_fail(err, errlen, t->file, 0,
                      "no switches (expected lines like 'SwitchName=s0 Nodes=node[0-3]')");
        rc = -1;
    }
    if (rc == 0)
        rc = aot_topo_check_nodes(&p);
    if (rc == 0)
        rc = aot_topo_link(&p);
    if (rc == 0)
        rc = aot_topo_depths(&p);
    for (int i = 0; i < p.nref; i++)
        free(p.ref[i].name);
    free(p.ref);
    if (rc != 0)
        aot_topology_free(t);
    return rc;
}

int aot_topology_read(struct aot_topology *t, const char *path, char *err, size_t errlen)
{
    char *text;
    size_t len;
    int rc;

    aot_topology_init(t);
    if (aot_file_slurp(path, "topology file", AOT_TOPOLOGY_MAX_BYTES, &text, &len, err,
                       errlen) != 0)
        return -1;
    rc = aot_topology_parse(t, text, len, path, err, errlen);
    free(text);
    return rc;
}

const struct aot_topo_node *aot_topology_node(const struct aot_topology *t, const char *name)
{
    int lo = 0, hi = t->nnode - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(name, t->node[mid].name);
        if (!c)
            return &t->node[mid];
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* ---------------------------------------------------------------- one job */

void aot_topo_job_free(struct aot_topo_job *j)
{
    free(j->host_switch);
    free(j->parent);
    free(j->depth);
    free(j->file_switch);
    free(j->order);
    memset(j, 0, sizeof(*j));
}

static int aot_topo_root(const struct aot_topology *t, int s)
{
    while (t->sw[s].parent >= 0)
        s = t->sw[s].parent;
    return s;
}

int aot_topology_resolve(const struct aot_topology *t, int nhosts, const char *const *hosts,
                         struct aot_topo_job *j, char *err, size_t errlen)
{
    int *leaf = NULL, *newidx = NULL, *stack = NULL, *count = NULL, *seen = NULL;
    int root = -1, top, rc = -1;
    char q[AOT_QUOTE_LEN], q2[AOT_QUOTE_LEN];

    memset(j, 0, sizeof(*j));
    if (nhosts < 1 || t->nsw < 1) {
        aot_topo_fail(err, errlen, t->file ? t->file : "topology", 0, "no hosts or no switches");
        return -1;
    }
    leaf = malloc((size_t)nhosts * sizeof(*leaf));
    newidx = malloc((size_t)t->nsw * sizeof(*newidx));
    stack = malloc((size_t)t->nsw * sizeof(*stack));
    seen = malloc((size_t)(t->nnode > 0 ? t->nnode : 1) * sizeof(*seen));
    j->host_switch = malloc((size_t)nhosts * sizeof(int));
    j->order = malloc((size_t)nhosts * sizeof(int));
    if (!leaf || !newidx || !stack || !seen || !j->host_switch || !j->order) {
        aot_topo_fail(err, errlen, t->file, 0, "out of memory");
        goto out;
    }
    /* Every host's switch, all under one root; seen[node] is the host that named it. */
    for (int i = 0; i < t->nnode; i++)
        seen[i] = -1;
    for (int h = 0; h < nhosts; h++) {
        const struct aot_topo_node *nd = aot_topology_node(t, hosts[h]);
        int r;
        if (!nd) {
            aot_topo_fail(err, errlen, t->file, 0, "host %s of this job is not in %s",
                          aot_quote_str(hosts[h], q, sizeof(q)), t->file);
            goto out;
        }
        if (seen[nd - t->node] >= 0) {
            aot_topo_fail(err, errlen, t->file, 0,
                          "host %s is given twice for this job (hosts %d and %d)",
                          aot_quote_str(hosts[h], q, sizeof(q)), seen[nd - t->node], h);
            goto out;
        }
        seen[nd - t->node] = h;
        leaf[h] = nd->sw;
        r = aot_topo_root(t, nd->sw);
        if (root < 0) {
            root = r;
        } else if (r != root) {
            aot_topo_fail(err, errlen, t->file, 0,
                          "hosts %s and %s of this job are in separate trees (switches %s and "
                          "%s have no common parent)", aot_quote_str(hosts[0], q, sizeof(q)),
                          aot_quote_str(hosts[h], q2, sizeof(q2)), t->sw[root].name,
                          t->sw[r].name);
            goto out;
        }
    }
    /* Mark the switches on the way up from each host (newidx -2), then number them in
     * depth-first order from the root. */
    for (int s = 0; s < t->nsw; s++)
        newidx[s] = -1;
    for (int h = 0; h < nhosts; h++)
        for (int s = leaf[h]; s >= 0 && newidx[s] == -1; s = t->sw[s].parent)
            newidx[s] = -2;
    j->nsw = 0;
    top = 0;
    stack[top++] = root;
    while (top > 0) {
        int s = stack[--top];
        newidx[s] = j->nsw++;
        for (int c = t->sw[s].nchild - 1; c >= 0; c--)
            if (newidx[t->sw[s].child[c]] == -2)
                stack[top++] = t->sw[s].child[c];
    }
    j->parent = malloc((size_t)j->nsw * sizeof(int));
    j->depth = malloc((size_t)j->nsw * sizeof(int));
    j->file_switch = malloc((size_t)j->nsw * sizeof(int));
    count = calloc((size_t)j->nsw + 1, sizeof(*count));
    if (!j->parent || !j->depth || !j->file_switch || !count) {
        aot_topo_fail(err, errlen, t->file, 0, "out of memory");
        goto out;
    }
    for (int s = 0; s < t->nsw; s++) {
        if (newidx[s] < 0)
            continue;
        j->file_switch[newidx[s]] = s;
        j->parent[newidx[s]] = t->sw[s].parent >= 0 ? newidx[t->sw[s].parent] : -1;
        j->depth[newidx[s]] = t->sw[s].depth;
    }
    j->nhosts = nhosts;
    for (int h = 0; h < nhosts; h++) {
        j->host_switch[h] = newidx[leaf[h]];
        count[j->host_switch[h] + 1]++;
    }
    /* Hosts by switch (a stable counting sort): the depth-first order. */
    for (int s = 0; s < j->nsw; s++)
        count[s + 1] += count[s];
    for (int h = 0; h < nhosts; h++)
        j->order[count[j->host_switch[h]]++] = h;
    rc = 0;
out:
    free(leaf);
    free(newidx);
    free(stack);
    free(seen);
    free(count);
    if (rc != 0)
        aot_topo_job_free(j);
    return rc;
}

int aot_topo_distance(const struct aot_topo_job *j, int a, int b)
{
    int x = j->host_switch[a], y = j->host_switch[b], d = 0;

    while (x != y) {
        if (j->depth[x] >= j->depth[y])
            x = j->parent[x];
        else
            y = j->parent[y];
        d++;
    }
    return d;
}
