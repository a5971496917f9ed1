/*
 * guard.c: the page table and the protections.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The table is a sorted array of segments: runs of pages with the same owner counts (how many
 * pending sends and receives have bytes on each page), the protection the pages had before
 * autoopt, and the protection in force.  A page under a receive is PROT_NONE, under sends only
 * read-only, otherwise back to its original protection.  Adding or removing a request's page
 * runs is one linear merge of the table with the runs, then one mprotect per maximal stretch of
 * adjacent pages whose protection changes, then neighbours with equal state are merged again.
 * So two requests on one page cost one mprotect, and a request whose pages continue a guarded
 * stretch extends it.
 *
 * Two arrays are kept and swapped, so the fault handler always reads a complete table (it runs
 * only when the program touches a guarded page, never while this file rebuilds the table: this
 * file touches only paging's own memory).
 *
 * The original protection of a page comes from the mapping query of src/maps.c (a cache of the
 * mappings, asked of the kernel when an address is not in it, and forgotten when a wrapped
 * munmap, mremap, mprotect or fixed mmap changes the mappings; guards do not change it).
 * Shared mappings are never guarded (another process, or an MPI shared-memory window, sees the
 * memory without faulting in this process).
 *
 * The cap: the kernel splits a mapping at every protection change, and mprotect fails with
 * ENOMEM past vm.max_map_count.  The table never holds more than aot_cfg.max_guards segments;
 * a request that would need more passes through.
 */
#include <errno.h>
#include <string.h>

#include "paging.h"

uintptr_t aot_pg_page_size = 4096;
unsigned aot_pg_page_shift = 12;
int aot_pg_nseg;

static struct aot_pg_seg *aot_pg_segs, *aot_pg_segs_spare;
static int aot_pg_seg_cap, aot_pg_max_segs;

int aot_pg_guard_init(int max_guards)
{
    long ps = sysconf(_SC_PAGESIZE);

    if (ps > 0) {
        aot_pg_page_size = (uintptr_t) ps;
        aot_pg_page_shift = 0;
        while (((uintptr_t) 1 << aot_pg_page_shift) < aot_pg_page_size)
            aot_pg_page_shift++;
    }
    aot_pg_max_segs = max_guards;
    aot_pg_seg_cap = 2 * max_guards + 64;
    aot_pg_segs = aot_mem_alloc((size_t) aot_pg_seg_cap * sizeof(*aot_pg_segs));
    aot_pg_segs_spare = aot_mem_alloc((size_t) aot_pg_seg_cap * sizeof(*aot_pg_segs));
    aot_pg_nseg = 0;
    return aot_pg_segs && aot_pg_segs_spare ? 0 : -1;
}

/* The mapping holding page (src/maps.c), in pages: 0, or -1 when it is not mapped. */
static int aot_pg_map_of(uintptr_t page, uintptr_t *p1, int *prot)
{
    struct aot_map m;
    if (aot_maps_find(AOT_PG_ADDR(page), &m) != 0)
        return -1;
    *p1 = AOT_PG_PAGE(m.hi);
    *prot = m.prot;
    return 0;
}

/* ---------------------------------------------------------------- pure helpers */

int aot_pg_page_runs(const struct aot_pg_range *r, int n, struct aot_pg_run *runs)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        uintptr_t p0, p1;
        if (r[i].hi <= r[i].lo)
            continue;
        p0 = AOT_PG_PAGE(r[i].lo);
        p1 = AOT_PG_PAGE(r[i].hi - 1) + 1;
        if (m && p0 <= runs[m - 1].p1) {
            if (p1 > runs[m - 1].p1)
                runs[m - 1].p1 = p1;
        } else {
            runs[m].p0 = p0;
            runs[m].p1 = p1;
            m++;
        }
    }
    return m;
}

/* ---------------------------------------------------------------- lookup (signal-safe) */

static int aot_pg_seg_index(uintptr_t page)
{
    const struct aot_pg_seg *s = aot_pg_segs;
    int a = 0, b = aot_pg_nseg;
    while (a < b) {
        int mid = a + (b - a) / 2;
        if (s[mid].p1 <= page)
            a = mid + 1;
        else
            b = mid;
    }
    return a;          /* first segment ending after page */
}

const struct aot_pg_seg *aot_pg_seg_find(uintptr_t page)
{
    int i = aot_pg_seg_index(page);
    return i < aot_pg_nseg && aot_pg_segs[i].p0 <= page ? &aot_pg_segs[i] : NULL;
}

int aot_pg_page_cur(uintptr_t page)
{
    const struct aot_pg_seg *s = aot_pg_seg_find(page);
    return s ? s->cur : -1;
}

int aot_pg_guarded_meet(uintptr_t lo, uintptr_t hi)
{
    uintptr_t p0, p1;
    if (hi <= lo || !aot_pg_nseg)
        return 0;
    p0 = AOT_PG_PAGE(lo);
    p1 = AOT_PG_PAGE(hi - 1) + 1;
    for (int i = aot_pg_seg_index(p0); i < aot_pg_nseg && aot_pg_segs[i].p0 < p1; i++)
        if (aot_pg_segs[i].cur != aot_pg_segs[i].orig)
            return 1;
    return 0;
}

static void aot_pg_pages_set(uintptr_t p0, uintptr_t p1, int lift)
{
    for (int i = aot_pg_seg_index(p0); i < aot_pg_nseg && aot_pg_segs[i].p0 < p1; i++) {
        const struct aot_pg_seg *s = &aot_pg_segs[i];
        uintptr_t a = s->p0 > p0 ? s->p0 : p0, b = s->p1 < p1 ? s->p1 : p1;
        if (s->cur != s->orig)
            aot_sys_mprotect(AOT_PG_ADDR(a), AOT_PG_ADDR(b - a), lift ? s->orig : s->cur);
    }
}

void aot_pg_pages_lift(uintptr_t p0, uintptr_t p1)
{
    aot_pg_pages_set(p0, p1, 1);
}

void aot_pg_pages_restore(uintptr_t p0, uintptr_t p1)
{
    aot_pg_pages_set(p0, p1, 0);
}

/* ---------------------------------------------------------------- checks */

int aot_pg_guard_check(const struct aot_pg_run *runs, int n, int kind)
{
    if (aot_pg_nseg + 2 * n + 2 > aot_pg_max_segs)
        return AOT_PASS_GUARD_CAP;
    /* not mapped, shared, not readable, or not writable for a receive */
    int need = kind == AOT_PG_RECV ? PROT_READ | PROT_WRITE : PROT_READ;
    for (int j = 0; j < n; j++)
        if (aot_maps_check(AOT_PG_ADDR(runs[j].p0), AOT_PG_ADDR(runs[j].p1), need) != AOT_MAPS_OK)
            return AOT_PASS_UNSAFE;
    return 0;
}

/* ---------------------------------------------------------------- table updates */

struct aot_pg_out {
    struct aot_pg_seg *s;
    int n, cap, overflow;
};

static void aot_pg_emit(struct aot_pg_out *o, uintptr_t p0, uintptr_t p1, int nsend, int nrecv,
                        int orig, int cur)
{
    if (p1 <= p0)
        return;
    if (o->n == o->cap) {
        o->overflow = 1;
        return;
    }
    o->s[o->n++] = (struct aot_pg_seg) { p0, p1, nsend, nrecv, orig, cur };
}

/* New segments for pages nobody guarded yet, split where the mappings change. */
static void aot_pg_emit_new(struct aot_pg_out *o, uintptr_t p0, uintptr_t p1, int kind)
{
    while (p0 < p1 && !o->overflow) {
        uintptr_t end;
        int prot;
        if (aot_pg_map_of(p0, &end, &prot) != 0) {
            o->overflow = 1;
            return;
        }
        if (end > p1)
            end = p1;
        aot_pg_emit(o, p0, end, kind == AOT_PG_SEND, kind == AOT_PG_RECV, prot, prot);
        p0 = end;
    }
}

/* The table overlaid with runs, one owner of kind added (delta 1) or removed (-1), into o. */
static void aot_pg_overlay(const struct aot_pg_run *runs, int n, int kind, int delta,
                           struct aot_pg_out *o)
{
    int i = 0, j = 0;
    uintptr_t sp = aot_pg_nseg ? aot_pg_segs[0].p0 : 0, rp = n ? runs[0].p0 : 0;

    while ((i < aot_pg_nseg || j < n) && !o->overflow) {
        const struct aot_pg_seg *s = i < aot_pg_nseg ? &aot_pg_segs[i] : NULL;
        if (s && sp < s->p0)
            sp = s->p0;
        if (j < n && rp < runs[j].p0)
            rp = runs[j].p0;
        if (!s || (j < n && runs[j].p1 <= sp)) {
            /* the run (rest) lies before the next segment */
            uintptr_t end = s && s->p0 < runs[j].p1 ? s->p0 : runs[j].p1;
            if (delta > 0)
                aot_pg_emit_new(o, rp, end, kind);
            rp = end;
            if (rp >= runs[j].p1)
                j++;
            continue;
        }
        if (j >= n || s->p1 <= rp) {
            aot_pg_emit(o, sp, s->p1, s->nsend, s->nrecv, s->orig, s->cur);
            i++;
            continue;
        }
        /* they overlap */
        if (sp < rp) {
            aot_pg_emit(o, sp, rp, s->nsend, s->nrecv, s->orig, s->cur);
            sp = rp;
        } else if (rp < sp) {
            if (delta > 0)
                aot_pg_emit_new(o, rp, sp, kind);
            rp = sp;
        } else {
            uintptr_t end = s->p1 < runs[j].p1 ? s->p1 : runs[j].p1;
            int ns = s->nsend + (kind == AOT_PG_SEND ? delta : 0);
            int nr = s->nrecv + (kind == AOT_PG_RECV ? delta : 0);
            aot_pg_emit(o, sp, end, ns < 0 ? 0 : ns, nr < 0 ? 0 : nr, s->orig, s->cur);
            sp = rp = end;
            if (sp >= s->p1)
                i++;
            if (rp >= runs[j].p1)
                j++;
        }
    }
}

/* Merges neighbours with equal state; drops pages that are back to normal. */
static int aot_pg_compact(struct aot_pg_seg *s, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!s[i].nsend && !s[i].nrecv && s[i].cur == s[i].orig)
            continue;
        if (m && s[m - 1].p1 == s[i].p0 && s[m - 1].nsend == s[i].nsend &&
            s[m - 1].nrecv == s[i].nrecv && s[m - 1].orig == s[i].orig &&
            s[m - 1].cur == s[i].cur)
            s[m - 1].p1 = s[i].p1;
        else
            s[m++] = s[i];
    }
    return m;
}

/* One mprotect per stretch of adjacent pages that need the same new protection. */
static int aot_pg_apply(void)
{
    int rc = 0;
    for (int i = 0; i < aot_pg_nseg;) {
        struct aot_pg_seg *s = &aot_pg_segs[i];
        int want = aot_pg_want(s), k = i + 1;
        if (want == s->cur) {
            i++;
            continue;
        }
        while (k < aot_pg_nseg && aot_pg_segs[k].p0 == aot_pg_segs[k - 1].p1 &&
               aot_pg_want(&aot_pg_segs[k]) == want && aot_pg_segs[k].cur != want)
            k++;
        AOT_PG_COUNT(mprotect_calls, 1);
        if (aot_sys_mprotect(AOT_PG_ADDR(s->p0), AOT_PG_ADDR(aot_pg_segs[k - 1].p1 - s->p0),
                                want) == 0) {
            for (int t = i; t < k; t++)
                aot_pg_segs[t].cur = want;
        } else {
            AOT_LOG(1, "mprotect(%p, %zu, %d): %s", (void *) AOT_PG_ADDR(s->p0),
                    (size_t) AOT_PG_ADDR(aot_pg_segs[k - 1].p1 - s->p0), want, strerror(errno));
            rc = -1;
        }
        i = k;
    }
    return rc;
}

static int aot_pg_update(const struct aot_pg_run *runs, int n, int kind, int delta)
{
    struct aot_pg_out o = { aot_pg_segs_spare, 0, aot_pg_seg_cap, 0 };
    struct aot_pg_seg *t;

    aot_pg_overlay(runs, n, kind, delta, &o);
    if (o.overflow)
        return -1;
    o.n = aot_pg_compact(o.s, o.n);
    /* counts changed but protections not yet applied: still complete and consistent */
    if (delta > 0 && o.n > aot_pg_max_segs)
        return -1;
    t = aot_pg_segs;
    aot_pg_segs = o.s;
    aot_pg_segs_spare = t;
    aot_pg_nseg = o.n;
    if (aot_pg_apply() != 0 && delta > 0) {
        aot_pg_update(runs, n, kind, -1);
        return -1;
    }
    aot_pg_nseg = aot_pg_compact(aot_pg_segs, aot_pg_nseg);
    return 0;
}

int aot_pg_guard_add(const struct aot_pg_run *runs, int n, int kind)
{
    return n ? aot_pg_update(runs, n, kind, 1) : 0;
}

void aot_pg_guard_remove(const struct aot_pg_run *runs, int n, int kind)
{
    if (n)
        aot_pg_update(runs, n, kind, -1);
}

void aot_pg_guard_reset(void)
{
    for (int i = 0; i < aot_pg_nseg; i++)
        if (aot_pg_segs[i].cur != aot_pg_segs[i].orig)
            aot_sys_mprotect(AOT_PG_ADDR(aot_pg_segs[i].p0),
                                AOT_PG_ADDR(aot_pg_segs[i].p1 - aot_pg_segs[i].p0),
                                aot_pg_segs[i].orig);
    aot_pg_nseg = 0;
}
