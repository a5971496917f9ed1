/*
 * sites.c: call sites.  Each call site (return address, or file:line under autoopt-mpicc) that
 * paging would convert has a benefit governor (src/govern.c, docs/govern.md; set up, asked and
 * shown through struct aot_p2p_run, src/p2p_run.c, as safe chains' are) that chooses, from
 * the period between the site's calls, whether its calls run natively, with copied sends or as
 * guarded requests; AUTOOPT_P2P_MODE forces one.  A guarded site whose converted buffer the
 * program touches before any other MPI call, AUTOOPT_LEARN_TOUCH conversions in a row, is no
 * longer guarded (AOT_PASS_TOUCHED_AT_ONCE; its governor rules guarded out).  What the program
 * did with the buffers is the site's guard note (src/aot_p2p.h), which the site's requests
 * and the fault handler write (requests.c, handler.c: they never call this file), and which
 * this file reads at the site's next call (aot_pg_site_fold).  A site one of
 * whose calls could not be converted (stack, datatype, communicator: aot_pg_site_unfit) runs
 * natively from then on.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "aot_cache.h"
#include "aot_calib.h"
#include "aot_p2p_run.h"
#include "paging.h"

#define uthash_malloc(sz) aot_mem_alloc(sz)
#define uthash_free(ptr, sz) aot_mem_free((ptr), (sz))
#include <uthash.h>

struct aot_pg_site {
    const void *key;
    struct aot_guard_note note;  /* written by its requests and the fault handler */
    int learned;              /* from the note: it touches at once (aot_pg_site_fold) */
    int fn;                   /* the function first called here */
    struct aot_p2p_run run;   /* its governor, its calls per mode, its unfit reason */
    struct aot_pg_site *next; /* in order of creation, for the statistics */
    UT_hash_handle hh;
};
static struct aot_pg_site *aot_pg_sites, *aot_pg_site_list;
static int aot_pg_site_forced = -1;   /* AUTOOPT_P2P_MODE (enum aot_p2p_mode); -1: auto */

static struct aot_pg_site *aot_pg_site_get(const void *key)
{
    struct aot_pg_site *s = NULL;
    HASH_FIND_PTR(aot_pg_sites, &key, s);
    if (!s) {
        s = aot_mem_zalloc(sizeof(*s));
        if (!s)
            return NULL;
        s->key = key;
        s->fn = -1;
        HASH_ADD_PTR(aot_pg_sites, key, s);
        s->next = aot_pg_site_list;
        aot_pg_site_list = s;
    }
    return s;
}

struct aot_guard_note *aot_pg_site_note(const void *key)
{
    struct aot_pg_site *s = key ? aot_pg_site_get(key) : NULL;
    return s ? &s->note : NULL;
}

/* What the site's guard note says, learned: the site touches at once from the moment
 * AUTOOPT_LEARN_TOUCH of its conversions in a row were touched at once (the note's longest
 * streak), counted once.  Read before every use of s->learned, and at the end. */
static int aot_pg_site_fold(struct aot_pg_site *s)
{
    if (!s->learned && aot_cfg.learn_touch > 0 && s->note.peak >= aot_cfg.learn_touch) {
        s->learned = 1;
        AOT_PG_COUNT(learned_sites, 1);
    }
    return s->learned;
}

int aot_pg_site_learned(const void *site)
{
    struct aot_pg_site *s = NULL;
    if (!site || aot_cfg.learn_touch <= 0)
        return 0;
    HASH_FIND_PTR(aot_pg_sites, &site, s);
    return s && aot_pg_site_fold(s);
}

/* ---------------------------------------------------------------- the governor */

void aot_pg_sites_init(void)
{
    aot_pg_site_forced = aot_p2p_forced_mode(aot_cfg.p2p_mode);
}

/* The site's governor at its first call: copied sends excluded when the call has nothing to
 * copy, one guard of the call's pages as guarded mode's prior. */
static void aot_pg_site_govern_init(struct aot_pg_site *s, int fn, int copy_ok, size_t bytes,
                                    MPI_Comm comm)
{
    int64_t what[2] = {fn, (int64_t) bytes};

    aot_run_init(&s->run, copy_ok ? 0u : 1u << AOT_MODE_COPY, 1, aot_calib_span_pages(bytes));
    /* the site's verdict of an earlier run is its starting point (docs/govern.md, "The cache
     * of decisions"): the site (object and offset of its return address, or of its file:line
     * text), the function and the first call's bytes */
    aot_run_seed(&s->run, comm,
                 aot_cache_hash_bytes(aot_cache_hash_code(AOT_CACHE_FNV_BASIS, s->key), what,
                                      sizeof(what)));
    s->fn = fn;
}

int aot_pg_site_mode(const void *key, int fn, int copy_ok, size_t bytes, MPI_Comm comm,
                     int *unfit)
{
    struct aot_pg_site *s;
    int mode;

    *unfit = 0;
    if (aot_pg_site_forced >= 0) {
        mode = aot_pg_site_forced;
        if (mode == AOT_MODE_COPY && !copy_ok) {
            *unfit = AOT_PASS_FORCED_MODE;     /* no governor ran: the setting decided */
            mode = AOT_MODE_NATIVE;
        }
        s = key ? aot_pg_site_get(key) : NULL;
        if (s && aot_pg_site_fold(s) && mode == AOT_MODE_GUARDED) {
            *unfit = AOT_PASS_TOUCHED_AT_ONCE;
            mode = AOT_MODE_NATIVE;
        }
        if (s) {
            s->fn = s->fn < 0 ? fn : s->fn;
            aot_run_next(&s->run, mode, s);     /* counted, no governor */
        }
        return mode;
    }
    /* a call with no site cannot be measured: it runs as the program made it */
    if (!key || !(s = aot_pg_site_get(key)))
        return AOT_MODE_NATIVE;
    if (!s->run.governed)
        aot_pg_site_govern_init(s, fn, copy_ok, bytes, comm);
    /* an unfit site's governor still counts its occurrences (its votes keep the ranks in
     * step), with every candidate excluded */
    mode = aot_run_next(&s->run, -1, s);
    if (mode == AOT_MODE_COPY && !copy_ok)
        mode = AOT_MODE_NATIVE;        /* this call has nothing to copy */
    /* A site that touches at once (its guard note) still counts its occurrences and votes,
     * as every rank's governor of this site must to stay in step with the others (a site
     * whose calls stopped reaching its governor left the other ranks waiting for its votes,
     * and then every governor of the rank decided alone).  Guarded cannot pay there: it is
     * ruled out as soon as the governor is between explorations, and until then its
     * occurrences run natively. */
    if (aot_pg_site_fold(s)) {
        /* does nothing once guarded is excluded */
        aot_run_rule_out(&s->run, AOT_MODE_GUARDED, "the program touched the buffer at once "
                                                    "(AUTOOPT_LEARN_TOUCH conversions in a row)");
        if (mode == AOT_MODE_GUARDED) {
            *unfit = AOT_PASS_TOUCHED_AT_ONCE;
            mode = AOT_MODE_NATIVE;
        }
    }
    if (s->run.unfit) {
        *unfit = s->run.unfit;
        mode = AOT_MODE_NATIVE;
    }
    aot_run_instead(&s->run, mode);
    return mode;
}

void aot_pg_site_unfit(const void *key, int why)
{
    struct aot_pg_site *s = NULL;

    if (aot_pg_site_forced >= 0 || !key)
        return;
    HASH_FIND_PTR(aot_pg_sites, &key, s);
    if (!s || s->run.unfit || !s->run.governed)
        return;
    aot_run_unfit(&s->run, why);
}

static void aot_pg_site_where(const struct aot_pg_site *s, char *buf, size_t len)
{
    Dl_info di;

    if (dladdr(s->key, &di) && di.dli_fname) {
        const char *base = strrchr(di.dli_fname, '/');
        if (di.dli_sname)
            snprintf(buf, len, "%s+0x%lx (%s)", di.dli_sname,
                     (unsigned long) ((uintptr_t) s->key - (uintptr_t) di.dli_saddr),
                     base ? base + 1 : di.dli_fname);
        else
            snprintf(buf, len, "%s+0x%lx", base ? base + 1 : di.dli_fname,
                     (unsigned long) ((uintptr_t) s->key - (uintptr_t) di.dli_fbase));
    } else {
        snprintf(buf, len, "%p", s->key);
    }
}

static void aot_pg_sites_text(FILE *f)
{
    int shown = 0;

    for (const struct aot_pg_site *s = aot_pg_site_list; s && shown < 20; s = s->next) {
        char where[256];
        if (s->fn < 0)
            continue;
        aot_pg_site_where(s, where, sizeof(where));
        if (!shown++)
            fprintf(f, "  converting call sites of rank 0 (mode: calls native/copied/guarded; "
                       "why):\n");
        fprintf(f, "    %s at %s: ", aot_function_names[s->fn], where);
        aot_run_text_row(f, &s->run, aot_pg_site_forced);
    }
}

static void aot_pg_sites_json(FILE *f)
{
    int first = 1;

    fprintf(f, "[");
    for (const struct aot_pg_site *s = aot_pg_site_list; s; s = s->next) {
        char where[256];
        if (s->fn < 0)
            continue;
        aot_pg_site_where(s, where, sizeof(where));
        fprintf(f, "%s\n    {\"function\": \"%s\", \"site\": ", first ? "" : ",",
                aot_function_names[s->fn]);
        aot_stats_json_string(f, where);
        fputs(", ", f);
        aot_run_json_row(f, &s->run, aot_pg_site_forced, "calls");
        fputc('}', f);
        first = 0;
    }
    fprintf(f, "%s]", first ? "" : "\n  ");
}

void aot_pg_sites_stats(void)
{
    aot_stats_section("paging_sites", aot_pg_sites_text, aot_pg_sites_json);
}

void aot_pg_sites_keep(void)
{
    /* the touches since each site's last call count too (learned_sites) */
    for (struct aot_pg_site *s = aot_pg_site_list; s; s = s->next)
        aot_pg_site_fold(s);
    for (const struct aot_pg_site *s = aot_pg_site_list; aot_pg_site_forced < 0 && s; s = s->next)
        aot_run_keep(&s->run);
}
