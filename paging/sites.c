/*
 * sites.c: call-site learning.  A call site (return address, or file:line under autoopt-mpicc)
 * whose converted buffer the program touches before any other MPI call, AUTOOPT_LEARN_TOUCH
 * conversions in a row, is no longer converted (AOT_PASS_TOUCHED_AT_ONCE).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "paging.h"

#define uthash_malloc(sz) aot_mem_alloc(sz)
#define uthash_free(ptr, sz) aot_mem_free((ptr), (sz))
#include <uthash.h>

struct aot_pg_site {
    const void *key;
    int streak;               /* conversions in a row touched at once */
    int learned;
    UT_hash_handle hh;
};
static struct aot_pg_site *aot_pg_sites;

struct aot_pg_site *aot_pg_site_get(const void *key)
{
    struct aot_pg_site *s = NULL;
    HASH_FIND_PTR(aot_pg_sites, &key, s);
    if (!s) {
        s = aot_mem_zalloc(sizeof(*s));
        if (!s)
            return NULL;
        s->key = key;
        HASH_ADD_PTR(aot_pg_sites, key, s);
    }
    return s;
}

int aot_pg_site_learned(const void *site)
{
    struct aot_pg_site *s = NULL;
    if (!site || aot_cfg.learn_touch <= 0)
        return 0;
    HASH_FIND_PTR(aot_pg_sites, &site, s);
    return s && s->learned;
}

void aot_pg_site_untouched(struct aot_pg_site *s)
{
    s->streak = 0;
}

void aot_pg_note_touch(int slot)
{
    struct aot_pg_req *r = &aot_pg_reqs[slot];
    struct aot_pg_site *s = r->site;
    if (!s || aot_cfg.learn_touch <= 0)
        return;
    if (r->epoch == aot_pg_epoch) {
        if (++s->streak >= aot_cfg.learn_touch && !s->learned) {
            s->learned = 1;
            AOT_PG_COUNT(learned_sites, 1);
        }
    } else {
        s->streak = 0;
    }
}
