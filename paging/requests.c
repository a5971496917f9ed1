/*
 * requests.c: converting blocking calls, the table of pending requests, progress, lazy
 * statuses and call-site learning.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A converted send is MPI_Isend (Issend, Irsend) from the program's buffer; its pages become
 * read-only, which MPI and the peer's CMA reads do not mind.  A converted receive is MPI_Irecv
 * into a private shadow buffer (arena.c), and the program's pages become no-access; when the
 * request completes, the shadow is copied out and the guard lifted.  So neither MPI's progress
 * engine nor the kernel ever writes into a guarded page, and no guard is lifted around MPI calls
 * (docs/paging.md has the measured costs of both choices).
 *
 * Shadows: for a dense datatype (typemap order = address order, no gaps) the shadow holds the
 * bytes and a shorter message fills a prefix, which is what is copied out.  For any other
 * datatype the receive is of MPI_PACKED (which matches any type signature): the shadow is first
 * filled with MPI_Pack of the buffer, the message overwrites its prefix, and MPI_Unpack of the
 * whole shadow writes back exactly what a direct receive would have written.  The datatype is
 * duplicated for the unpack, since the program may free it once the call returned.
 *
 * What MPI may touch: the routed calls (send, receive, sendrecv) know their buffers and wait
 * only for pending requests whose bytes they overlap.  For any other progress-capable call the
 * buffers are unknown: calls that take no buffer (waits, tests, probes, barriers, communicator
 * management) change nothing; calls that only read buffers (sends of all kinds, MPI_Pack) first
 * complete the pending receives; every other call first completes everything.  Waiting later
 * than the original program would have blocked never deadlocks: every pending request comes
 * from a call the original program had already completed at that point.
 *
 * Statuses: a receive that completes within the call fills the status as MPI would.  Otherwise
 * MPI_SOURCE and MPI_TAG are filled at once (only receives with a specific source and tag, or
 * MPI_STATUS_IGNORE, are converted), MPI_ERROR is left alone (as MPICH does for single-request
 * calls), and the private count fields hold a cookie naming an entry of the lazy-status table.
 * MPI_Get_count / MPI_Get_elements (routed here) recognise the cookie, wait for the request if
 * needed and answer from the real status.  The cookie, not the address, names the entry, so a
 * copy of the status works too; the status itself is never written after the call returned (it
 * may be on a stack frame that is gone).
 */
#include <stdio.h>
#include <string.h>

#include "aot_fault.h"
#include "paging.h"

#define uthash_malloc(sz) aot_mem_alloc(sz)
#define uthash_free(ptr, sz) aot_mem_free((ptr), (sz))
#include <uthash.h>

#define AOT_PG_MAX_SLOTS 16384
#define AOT_PG_LAZY_SLOTS (1 << 20)
#define AOT_PG_LAZY_MAGIC 0x5A000000

struct aot_pg_counters aot_pg_ctr;
struct aot_pg_req *aot_pg_reqs;
MPI_Request *aot_pg_mreqs;
int aot_pg_nslots;
volatile int aot_pg_npending;
int aot_pg_on;
/* aot_paging_force: the next calls are chain members (no size threshold) */
static int aot_pg_forced;

void aot_paging_force(int on)
{
    aot_pg_forced = on;
}

/* The size below which a call is not converted. */
static inline size_t aot_pg_min_bytes(void)
{
    return aot_pg_forced ? 0 : aot_cfg.convert_min;
}
uint64_t aot_pg_epoch;

static int *aot_pg_gen;                 /* per slot, bumped when a slot is freed */
static int *aot_pg_done_idx;
static MPI_Status *aot_pg_done_st;
static int aot_pg_free_hint;

/* ---------------------------------------------------------------- call sites */

struct aot_pg_site {
    const void *key;
    int streak;               /* conversions in a row touched at once */
    int learned;
    UT_hash_handle hh;
};
static struct aot_pg_site *aot_pg_sites;

static struct aot_pg_site *aot_pg_site_get(const void *key)
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

/* ---------------------------------------------------------------- lazy statuses */

struct aot_pg_lazy {
    int gen;
    int slot;                 /* pending request, or -1 once st holds the answer */
    int slot_gen;
    MPI_Status st;
};
static struct aot_pg_lazy *aot_pg_lazy;
static int aot_pg_lazy_next, aot_pg_lazy_gen = 1;

static int aot_pg_lazy_cookie_hi(int gen)
{
    return AOT_PG_LAZY_MAGIC | ((gen & 0x7ffff) << 1);   /* bit 0 (cancelled) stays clear */
}

/* The lazy entry a status names, or NULL when it is an ordinary status. */
static struct aot_pg_lazy *aot_pg_lazy_of(const MPI_Status *status)
{
    struct aot_pg_lazy *e;
    if (!aot_pg_lazy || status == MPI_STATUS_IGNORE || status == NULL)
        return NULL;
    if ((status->count_hi_and_cancelled & 0x7f000001) != AOT_PG_LAZY_MAGIC)
        return NULL;
    if (status->count_lo < 0 || status->count_lo >= AOT_PG_LAZY_SLOTS)
        return NULL;
    e = &aot_pg_lazy[status->count_lo];
    if (aot_pg_lazy_cookie_hi(e->gen) != status->count_hi_and_cancelled)
        return NULL;
    return e;
}

/* ---------------------------------------------------------------- classification of calls */

enum { AOT_PG_CLS_ALL = 0, AOT_PG_CLS_NONE, AOT_PG_CLS_READS, AOT_PG_CLS_OURS };
static unsigned char aot_pg_fn_class[AOT_FN_COUNT];

static int aot_pg_name_in(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(name, *list) == 0)
            return 1;
    return 0;
}

static void aot_pg_classify_functions(void)
{
    static const char *const ours[] = {
        "MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Recv", "MPI_Sendrecv",
        "MPI_Sendrecv_replace", NULL };
    /* no buffer of the program is read or written by these */
    static const char *const none[] = {
        "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test", "MPI_Testall",
        "MPI_Testany", "MPI_Testsome", "MPI_Barrier", "MPI_Ibarrier", "MPI_Probe", "MPI_Iprobe",
        "MPI_Improbe", "MPI_Mprobe", "MPI_Cancel", "MPI_Request_free", "MPI_Request_get_status",
        "MPI_Get_count", "MPI_Get_elements", "MPI_Get_elements_x", "MPI_Get_count_c",
        "MPI_Get_elements_c", "MPI_Status_set_elements", "MPI_Status_set_elements_x",
        "MPI_Status_set_cancelled", "MPI_Test_cancelled", "MPI_Comm_dup", "MPI_Comm_idup",
        "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_create",
        "MPI_Comm_create_group", "MPI_Comm_free", "MPI_Cart_create", "MPI_Cart_sub",
        "MPI_Graph_create", "MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent",
        "MPI_Intercomm_create", "MPI_Intercomm_merge", "MPI_Comm_disconnect", "MPI_Abort",
        "MPI_Pack_size", "MPI_Pack_external_size", "MPI_Buffer_attach", "MPI_Start",
        NULL };
    for (int fn = 0; fn < AOT_FN_COUNT; fn++) {
        const char *name = aot_function_names[fn];
        unsigned char c = AOT_PG_CLS_ALL;
        if (aot_pg_name_in(name, ours))
            c = AOT_PG_CLS_OURS;
        else if (aot_pg_name_in(name, none))
            c = AOT_PG_CLS_NONE;
        else if ((strstr(name, "send") || strstr(name, "Send") || strncmp(name, "MPI_Pack", 8) == 0)
                 && !strstr(name, "recv") && !strstr(name, "_init"))
            c = AOT_PG_CLS_READS;
        aot_pg_fn_class[fn] = c;
    }
    /* MPI_Start(all) of a persistent receive writes, of a persistent send reads: unknown */
    for (int fn = 0; fn < AOT_FN_COUNT; fn++)
        if (strncmp(aot_function_names[fn], "MPI_Start", 9) == 0)
            aot_pg_fn_class[fn] = AOT_PG_CLS_ALL;
}

/* ---------------------------------------------------------------- slots */

/* (The fault entry needs no re-check here: nobody replaces it while it is installed; the
 * program's sigaction calls set the handler it forwards to, src/signals.c.) */
static void aot_pg_arm(void)
{
    if (!(aot_hooks_armed & AOT_ARM_PAGING))
        __atomic_fetch_or(&aot_hooks_armed, AOT_ARM_PAGING, __ATOMIC_RELAXED);
}

static void aot_pg_disarm_if_idle(void)
{
    if (!aot_pg_npending && (aot_hooks_armed & AOT_ARM_PAGING))
        __atomic_fetch_and(&aot_hooks_armed, ~AOT_ARM_PAGING, __ATOMIC_RELAXED);
}

static int aot_pg_slot_new(void)
{
    for (int i = aot_pg_free_hint; i < AOT_PG_MAX_SLOTS; i++)
        if (!aot_pg_reqs[i].state) {
            struct aot_pg_req *r = &aot_pg_reqs[i];
            memset(r, 0, sizeof(*r));
            r->lazy = -1;
            r->dup = MPI_DATATYPE_NULL;
            aot_pg_free_hint = i + 1;
            if (i >= aot_pg_nslots)
                aot_pg_nslots = i + 1;
            return i;
        }
    return -1;
}

static void aot_pg_slot_release(int i)
{
    struct aot_pg_req *r = &aot_pg_reqs[i];
    aot_mem_free(r->fp, (size_t) r->nfp * sizeof(*r->fp));
    aot_mem_free(r->runs, (size_t) r->nfp * sizeof(*r->runs));
    r->fp = NULL;
    r->runs = NULL;
    r->state = 0;
    aot_pg_mreqs[i] = MPI_REQUEST_NULL;
    aot_pg_gen[i]++;
    aot_pg_npending--;
    aot_pg_gate_update();
    if (i < aot_pg_free_hint)
        aot_pg_free_hint = i;
    while (aot_pg_nslots > 0 && !aot_pg_reqs[aot_pg_nslots - 1].state)
        aot_pg_nslots--;
}

/* ---------------------------------------------------------------- retiring */

static MPI_Status *aot_pg_final_st;     /* per slot: the status of the last retired request */

static void aot_pg_retire(int i);

static void aot_pg_wait_one(int i)
{
    if (!aot_pg_reqs[i].state)
        return;
    aot_trace(AOT_TR_WAIT, aot_pg_reqs[i].fn, (uint64_t) i, 0, NULL);
    PMPI_Wait(&aot_pg_mreqs[i], &aot_pg_reqs[i].st);
    aot_pg_retire(i);
}

/* The request completed (its status is in r->st): copy out, lift the guards, free the slot. */
static void aot_pg_retire(int i)
{
    struct aot_pg_req *r = &aot_pg_reqs[i];

    if (r->kind == AOT_PG_RECV) {
        size_t bytes = 0;
        if (r->guarded)
            aot_pg_guard_remove(r->runs, r->nruns, AOT_PG_RECV);
        /* pages other requests still guard are opened just for the copy */
        for (int k = 0; k < r->nruns; k++)
            aot_pg_pages_lift(r->runs[k].p0, r->runs[k].p1);
        if (r->packed) {
            MPI_Count pos = 0;
            PMPI_Unpack_c(r->shadow, r->shadow_len, &pos, r->ubuf, r->count, r->dup, MPI_COMM_SELF);
            PMPI_Type_free(&r->dup);
            bytes = (size_t) pos;
        } else {
            /* the large-count query: MPI_Get_count(MPI_BYTE) is MPI_UNDEFINED above INT_MAX
             * bytes, and such a message would silently not be delivered */
            MPI_Count n = 0;
            PMPI_Get_count_c(&r->st, MPI_BYTE, &n);
            if (n > 0 && n != MPI_UNDEFINED) {
                memcpy(r->ubuf, r->shadow, (size_t) n);
                bytes = (size_t) n;
            }
        }
        for (int k = 0; k < r->nruns; k++)
            aot_pg_pages_restore(r->runs[k].p0, r->runs[k].p1);
        AOT_PG_COUNT(copy_bytes, bytes);
        if (r->lazy >= 0) {
            struct aot_pg_lazy *e = &aot_pg_lazy[r->lazy];
            if (e->slot == i && e->slot_gen == aot_pg_gen[i]) {
                e->st = r->st;
                e->slot = -1;
            }
        }
        aot_mem_shadow_put(r->shadow, r->shadow_cap);
    } else {
        if (r->guarded)
            aot_pg_guard_remove(r->runs, r->nruns, AOT_PG_SEND);
        if (r->shadow)
            aot_mem_shadow_put(r->shadow, r->shadow_cap);
    }
    aot_pg_final_st[i] = r->st;
    aot_pg_slot_release(i);
}

/* Testsome over the table; retires what completed. */
static void aot_pg_progress(void)
{
    int outcount = 0;

    if (!aot_pg_npending)
        return;
    PMPI_Testsome(aot_pg_nslots, aot_pg_mreqs, &outcount, aot_pg_done_idx, aot_pg_done_st);
    if (outcount == MPI_UNDEFINED)
        return;
    for (int k = 0; k < outcount; k++)
        aot_pg_reqs[aot_pg_done_idx[k]].st = aot_pg_done_st[k];
    for (int k = 0; k < outcount; k++) {
        int i = aot_pg_done_idx[k];
        if (!aot_pg_reqs[i].state)
            continue;               /* retired already (waited for meanwhile) */
        if (aot_pg_reqs[i].guarded) {
            AOT_PG_COUNT(progress_retired, 1);
            if (aot_pg_reqs[i].site)
                aot_pg_reqs[i].site->streak = 0;
        }
        aot_pg_retire(i);
    }
}

/* ---------------------------------------------------------------- lookups used by others */

static int aot_pg_conflicts(const struct aot_pg_req *r, intptr_t lo, intptr_t hi, int write)
{
    if (!r->state || r->hi <= lo || r->lo >= hi)
        return 0;
    if (r->kind == AOT_PG_SEND && !write)
        return 0;
    return aot_pg_ranges_meet(r->fp, r->nfp, lo, hi);
}

/* Only guarded requests own bytes for the fault handler: a request that is pending but not
 * guarded (one being posted, whose PMPI_Pack reads its own buffer on a page another receive
 * guards; a snapshot send) is not why the page faulted. */
int aot_pg_owners(intptr_t lo, intptr_t hi, int write, int *idx, int max)
{
    int n = 0;
    for (int i = 0; i < aot_pg_nslots; i++)
        if (aot_pg_reqs[i].guarded && aot_pg_conflicts(&aot_pg_reqs[i], lo, hi, write)) {
            if (n < max)
                idx[n] = i;
            n++;
        }
    return n;
}

int aot_pg_step_charge(uintptr_t page, int *idx, int max)
{
    intptr_t lo = (intptr_t) AOT_PG_ADDR(page), hi = lo + (intptr_t) aot_pg_page_size;
    int n = 0, spent = 0;

    for (int i = 0; i < aot_pg_nslots; i++) {
        struct aot_pg_req *r = &aot_pg_reqs[i];
        if (!r->state || !r->guarded || r->hi <= lo || r->lo >= hi ||
            !aot_pg_ranges_meet(r->fp, r->nfp, lo, hi))
            continue;
        if (++r->steps > AOT_PG_STEP_BUDGET)
            spent = 1;
        if (n < max)
            idx[n++] = i;
    }
    return spent ? n : 0;
}

void aot_pg_wait_slots(const int *idx, int n)
{
    for (int k = 0; k < n; k++)
        aot_pg_wait_one(idx[k]);
    aot_pg_progress();
    aot_pg_disarm_if_idle();
}

int aot_pg_complete_range(intptr_t lo, intptr_t hi, int write)
{
    int done = 0;
    for (int i = 0; i < aot_pg_nslots; i++)
        if (aot_pg_conflicts(&aot_pg_reqs[i], lo, hi, write)) {
            aot_pg_wait_one(i);
            done++;
        }
    return done;
}

int aot_pg_complete_pages(intptr_t lo, intptr_t hi)
{
    intptr_t plo, phi;
    int done = 0;

    if (hi <= lo)
        return 0;
    plo = (intptr_t) AOT_PG_ADDR(AOT_PG_PAGE(lo));
    phi = (intptr_t) AOT_PG_ADDR(AOT_PG_PAGE(hi - 1) + 1);
    for (int i = 0; i < aot_pg_nslots; i++) {
        const struct aot_pg_req *r = &aot_pg_reqs[i];
        if (r->state && r->nfp && r->lo < phi && r->hi > plo) {
            aot_pg_wait_one(i);
            done++;
        }
    }
    return done;
}

void aot_pg_wait_all(void)
{
    for (int i = 0; i < aot_pg_nslots; i++)
        aot_pg_wait_one(i);
    aot_pg_disarm_if_idle();
}

/* [lo, hi) goes to MPI or the kernel: the requests on its bytes and on its pages complete.
 * Returns how many. */
static int aot_pg_complete_span(intptr_t lo, intptr_t hi, int write)
{
    int n = aot_pg_complete_range(lo, hi, write);
    /* MPI and the kernel reach the buffer by pages, not bytes: a peer's process_vm_readv of a
     * send buffer fails on a page that a receive guard made no-access, and silently leaves
     * those bytes out (examples/ring lost the 3200 bytes of its last page that way).  So the
     * requests guarding any page of the span complete too. */
    return n + aot_pg_complete_pages(lo, hi);
}

/* ---------------------------------------------------------------- chains' interface */

int aot_paging_started(void)
{
    return aot_pg_on;
}

int aot_paging_would_convert(int scount, MPI_Datatype sdt, int rcount, MPI_Datatype rdt)
{
    MPI_Count size = 0;
    size_t bytes = 0, rbytes;

    if (!aot_cfg.convert)
        return 0;
    if (scount > 0) {
        PMPI_Type_size_x(sdt, &size);
        bytes = (size_t) size * (size_t) scount;
    }
    if (rcount > 0) {
        PMPI_Type_size_x(rdt, &size);
        rbytes = (size_t) size * (size_t) rcount;
        if (rbytes > bytes)
            bytes = rbytes;
    }
    return bytes >= aot_cfg.convert_min;
}

void aot_paging_complete(intptr_t lo, intptr_t hi, int write)
{
    if (aot_pg_on && aot_pg_npending && hi > lo)
        aot_pg_complete_span(lo, hi, write);
}

int aot_paging_guards(intptr_t lo, intptr_t hi)
{
    return aot_pg_on && aot_pg_npending && hi > lo &&
           aot_pg_guarded_meet((uintptr_t) lo, (uintptr_t) hi);
}

void aot_paging_settle(void)
{
    if (aot_pg_on && aot_pg_npending) {
        AOT_PG_COUNT(conflict_waits, aot_pg_npending);
        aot_pg_wait_all();
    }
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

/* ---------------------------------------------------------------- conversion */

/* One buffer of a call: its footprint and page runs. */
struct aot_pg_part {
    const void *buf;
    int count;
    MPI_Datatype dt;
    const struct aot_pg_layout *L;
    struct aot_pg_range *fp;
    int nfp;
    struct aot_pg_run *runs;
    int nruns;
    size_t bytes;
};

static void aot_pg_part_free(struct aot_pg_part *p)
{
    aot_mem_free(p->fp, (size_t) p->nfp * sizeof(*p->fp));
    aot_mem_free(p->runs, (size_t) p->nfp * sizeof(*p->runs));
    p->fp = NULL;
    p->runs = NULL;
}

/* 0, or the reason the communicator forbids conversion. */
static int aot_pg_comm_check(MPI_Comm comm)
{
    MPI_Errhandler eh;
    int inter = 0, fatal;

    PMPI_Comm_get_errhandler(comm, &eh);
    fatal = eh == MPI_ERRORS_ARE_FATAL;
    PMPI_Errhandler_free(&eh);
    if (!fatal)
        return AOT_PASS_ERRHANDLER;
    PMPI_Comm_test_inter(comm, &inter);
    return inter ? AOT_PASS_INTERCOMM : 0;
}

/* Layout and size of one buffer; 0, or the pass-through reason. */
static int aot_pg_part_size(struct aot_pg_part *p, const void *buf, int count, MPI_Datatype dt)
{
    memset(p, 0, sizeof(*p));
    p->buf = buf;
    p->count = count;
    p->dt = dt;
    if (count < 0)
        return AOT_PASS_UNSAFE;
    p->L = aot_pg_layout_get(dt);
    if (!p->L)
        return AOT_PASS_DATATYPE;
    p->bytes = (size_t) count * (size_t) p->L->size;
    return 0;
}

/* Footprint, stack and mapping checks; 0, or the pass-through reason. */
static int aot_pg_part_prepare(struct aot_pg_part *p, int kind)
{
    if (aot_pg_footprint(p->buf, p->count, p->L, &p->fp, &p->nfp) != 0)
        return AOT_PASS_DATATYPE;
    if (!p->nfp)
        return 0;
    if (aot_on_stack((uintptr_t) p->fp[0].lo, (uintptr_t) p->fp[p->nfp - 1].hi))
        return AOT_PASS_STACK;
    p->runs = aot_mem_alloc((size_t) p->nfp * sizeof(*p->runs));
    if (!p->runs)
        return AOT_PASS_GUARD_CAP;
    p->nruns = aot_pg_page_runs(p->fp, p->nfp, p->runs);
    return aot_pg_guard_check(p->runs, p->nruns, kind);
}

/* Waits for pending requests whose bytes meet the part in a conflicting way. */
static void aot_pg_part_resolve(const struct aot_pg_part *p, int kind)
{
    for (int k = 0; k < p->nfp && aot_pg_npending; k++) {
        int n = aot_pg_complete_range(p->fp[k].lo, p->fp[k].hi, kind == AOT_PG_RECV);
        if (n)
            AOT_PG_COUNT(conflict_waits, n);
    }
}

/* Whether two sorted lists of page runs share a page. */
static int aot_pg_runs_meet(const struct aot_pg_run *a, int na, const struct aot_pg_run *b, int nb)
{
    int i = 0, j = 0;
    while (i < na && j < nb) {
        if (a[i].p1 <= b[j].p0)
            i++;
        else if (b[j].p1 <= a[i].p0)
            j++;
        else
            return 1;
    }
    return 0;
}

/* A page must never be no-access while a guarded send has bytes on it: the peer reads a send
 * buffer with process_vm_readv (CMA), which fails with EFAULT on such a page.  So before a
 * receive is guarded, earlier guarded sends sharing its pages complete (kind AOT_PG_SEND), and
 * before a send is guarded, earlier receives sharing its pages (kind AOT_PG_RECV).  Earlier
 * requests only: the original program had completed them already, so waiting cannot
 * deadlock. */
static void aot_pg_page_resolve(const struct aot_pg_part *p, int kind)
{
    int n = 0;
    for (int i = 0; i < aot_pg_nslots && p->nruns; i++) {
        const struct aot_pg_req *r = &aot_pg_reqs[i];
        if (r->state && r->kind == kind && r->guarded &&
            aot_pg_runs_meet(r->runs, r->nruns, p->runs, p->nruns)) {
            aot_pg_wait_one(i);
            n++;
        }
    }
    if (n)
        AOT_PG_COUNT(conflict_waits, n);
}

/* Before a call passes through while requests are pending: complete those whose bytes lie in
 * the span the buffer may touch (its true extent, count times). */
static void aot_pg_pass_resolve(const void *buf, int count, MPI_Datatype dt, int write)
{
    MPI_Aint tlb, text, lb, ext;
    intptr_t lo, hi;
    int n;

    if (!aot_pg_npending || count <= 0 || dt == MPI_DATATYPE_NULL)
        return;
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    PMPI_Type_get_extent(dt, &lb, &ext);
    lo = (intptr_t) buf + tlb;
    hi = lo + text;
    if (ext >= 0)
        hi += (intptr_t) (count - 1) * ext;
    else
        lo += (intptr_t) (count - 1) * ext;
    n = aot_pg_complete_span(lo, hi, write);
    if (n)
        AOT_PG_COUNT(conflict_waits, n);
}

/* A new slot for the part, taking over its footprint and runs. */
static int aot_pg_slot_for(struct aot_pg_part *p, int kind, int fn, const void *site)
{
    int i = aot_pg_slot_new();
    struct aot_pg_req *r;
    if (i < 0)
        return -1;
    r = &aot_pg_reqs[i];
    r->kind = kind;
    r->fn = fn;
    r->fp = p->fp;
    r->nfp = p->nfp;
    r->runs = p->runs;
    r->nruns = p->nruns;
    r->lo = p->nfp ? p->fp[0].lo : 0;
    r->hi = p->nfp ? p->fp[p->nfp - 1].hi : 0;
    r->site = site ? aot_pg_site_get(site) : NULL;
    r->epoch = aot_pg_epoch;
    r->ubuf = (void *) p->buf;
    r->count = p->count;
    r->state = 1;
    p->fp = NULL;
    p->runs = NULL;
    aot_pg_mreqs[i] = MPI_REQUEST_NULL;
    aot_pg_npending++;
    aot_pg_gate_update();
    aot_pg_arm();
    return i;
}

/* Sends up to this size are copied into a private snapshot and sent from there: the copy
 * costs less than guarding (docs/paging.md), the program may write the buffer at once, and the
 * send never shares a page with a receive guard. */
#define AOT_PG_SNAPSHOT_MAX ((size_t) 16 << 10)

/* Copies the part into a snapshot; returns 0, or -1 without memory. */
static int aot_pg_snapshot(struct aot_pg_req *r, struct aot_pg_part *p)
{
    size_t want = p->bytes;
    MPI_Count psize = 0, pos = 0;
    int lifted = r->nfp && aot_pg_guarded_meet((uintptr_t) r->lo, (uintptr_t) r->hi);

    if (!p->L->dense) {
        if (PMPI_Pack_size_c(p->count, p->dt, MPI_COMM_SELF, &psize) != MPI_SUCCESS)
            return -1;
        want = (size_t) psize;
    }
    r->shadow = aot_mem_shadow_get(want ? want : 1, &r->shadow_cap);
    if (!r->shadow)
        return -1;
    /* other requests' guards on these pages (false sharing) are opened for the copy */
    if (lifted)
        aot_pg_pages_lift(AOT_PG_PAGE(r->lo), AOT_PG_PAGE(r->hi - 1) + 1);
    if (p->L->dense) {
        if (p->bytes)
            memcpy(r->shadow, p->buf, p->bytes);
        r->packed = 0;
    } else {
        PMPI_Pack_c(p->buf, p->count, p->dt, r->shadow, psize, &pos, MPI_COMM_SELF);
        r->shadow_len = pos;
        r->packed = 1;
    }
    if (lifted)
        aot_pg_pages_restore(AOT_PG_PAGE(r->lo), AOT_PG_PAGE(r->hi - 1) + 1);
    /* a snapshot owns no bytes of the program */
    aot_mem_free(r->fp, (size_t) r->nfp * sizeof(*r->fp));
    aot_mem_free(r->runs, (size_t) r->nfp * sizeof(*r->runs));
    r->fp = NULL;
    r->runs = NULL;
    r->nfp = r->nruns = 0;
    r->lo = r->hi = 0;
    return 0;
}

static int aot_pg_post_send(int fn, struct aot_pg_part *p, int dest, int tag, MPI_Comm comm,
                            const void *site, int snapshot, int *slot)
{
    int i = aot_pg_slot_for(p, AOT_PG_SEND, fn, site);
    struct aot_pg_req *r;
    MPI_Request *req;
    const void *buf = p->buf;
    MPI_Count count = p->count;
    MPI_Datatype dt = p->dt;

    *slot = i;
    if (i < 0)
        return MPI_SUCCESS;
    r = &aot_pg_reqs[i];
    req = &aot_pg_mreqs[i];
    if (snapshot) {
        if (aot_pg_snapshot(r, p) != 0) {
            p->fp = r->fp;            /* give the footprint back: the caller passes through */
            p->runs = r->runs;
            r->fp = NULL;
            r->runs = NULL;
            aot_pg_slot_release(i);
            *slot = -1;
            return MPI_SUCCESS;
        }
        buf = r->shadow;
        if (r->packed) {
            count = r->shadow_len;
            dt = MPI_PACKED;
        }
    }
    AOT_PG_COUNT(converted, 1);
    aot_trace(AOT_TR_CONVERT, fn, p->bytes, (uint64_t) i, NULL);
    /* large-count calls: a packed snapshot can pass INT_MAX bytes */
    if (fn == AOT_FN_MPI_Ssend)
        return PMPI_Issend_c(buf, count, dt, dest, tag, comm, req);
    if (fn == AOT_FN_MPI_Rsend)
        return PMPI_Irsend_c(buf, count, dt, dest, tag, comm, req);
    return PMPI_Isend_c(buf, count, dt, dest, tag, comm, req);
}

static int aot_pg_post_recv(int fn, struct aot_pg_part *p, int source, int tag, MPI_Comm comm,
                            const void *site, int *slot)
{
    struct aot_pg_req *r;
    size_t want;
    MPI_Count psize = 0, pos = 0;
    int i;

    *slot = -1;
    if (p->L->dense) {
        want = p->bytes;
    } else {
        if (PMPI_Pack_size_c(p->count, p->dt, MPI_COMM_SELF, &psize) != MPI_SUCCESS)
            return MPI_SUCCESS;
        want = (size_t) psize;
    }
    i = aot_pg_slot_for(p, AOT_PG_RECV, fn, site);
    if (i < 0)
        return MPI_SUCCESS;
    r = &aot_pg_reqs[i];
    r->shadow = aot_mem_shadow_get(want ? want : 1, &r->shadow_cap);
    if (!r->shadow) {
        p->fp = r->fp;            /* give the footprint back: the caller passes through */
        p->runs = r->runs;
        r->fp = NULL;
        r->runs = NULL;
        aot_pg_slot_release(i);
        return MPI_SUCCESS;
    }
    *slot = i;
    AOT_PG_COUNT(converted, 1);
    aot_trace(AOT_TR_CONVERT, fn, p->bytes, (uint64_t) i, NULL);
    if (p->L->dense) {
        r->packed = 0;
        return PMPI_Irecv(r->shadow, p->count, p->dt, source, tag, comm, &aot_pg_mreqs[i]);
    }
    r->packed = 1;
    PMPI_Type_dup(p->dt, &r->dup);
    /* the bytes the message does not overwrite must come back unchanged */
    PMPI_Pack_c(p->buf, p->count, p->dt, r->shadow, psize, &pos, MPI_COMM_SELF);
    r->shadow_len = pos;
    return PMPI_Irecv_c(r->shadow, pos, MPI_PACKED, source, tag, comm, &aot_pg_mreqs[i]);
}

/* Guards a request that is still pending after progress.  One that cannot be guarded (mprotect
 * failed) is waited for at once, as if it had passed through. */
static void aot_pg_guard_slot(int i)
{
    struct aot_pg_req *r = &aot_pg_reqs[i];
    if (!r->nruns)
        return;                   /* a snapshot, or no bytes: nothing to guard */
    if (aot_pg_guard_add(r->runs, r->nruns, r->kind) != 0) {
        AOT_LOG(1, "guarding %d page runs failed: request completed at once", r->nruns);
        aot_pg_wait_one(i);
        return;
    }
    r->guarded = 1;
    AOT_PG_COUNT(guarded, 1);
    aot_trace(AOT_TR_GUARD, r->fn, (uint64_t) r->nruns, (uint64_t) i, NULL);
}

/* The status of a converted receive: filled as MPI_Recv would when it completed (MPI_ERROR is
 * left alone, as MPICH does), else public fields now and the count through a lazy entry. */
static void aot_pg_status_set(MPI_Status *status, int i, int gen, int source, int tag)
{
    struct aot_pg_lazy *e;
    int idx;

    if (status == MPI_STATUS_IGNORE)
        return;
    if (aot_pg_gen[i] != gen) {
        const MPI_Status *st = &aot_pg_final_st[i];
        status->count_lo = st->count_lo;
        status->count_hi_and_cancelled = st->count_hi_and_cancelled;
        status->MPI_SOURCE = st->MPI_SOURCE;
        status->MPI_TAG = st->MPI_TAG;
        return;
    }
    idx = aot_pg_lazy_next;
    aot_pg_lazy_next = (aot_pg_lazy_next + 1) % AOT_PG_LAZY_SLOTS;
    if (aot_pg_lazy_next == 0)
        aot_pg_lazy_gen++;
    e = &aot_pg_lazy[idx];
    e->gen = aot_pg_lazy_gen;
    e->slot = i;
    e->slot_gen = gen;
    aot_pg_reqs[i].lazy = idx;
    status->count_lo = idx;
    status->count_hi_and_cancelled = aot_pg_lazy_cookie_hi(e->gen);
    status->MPI_SOURCE = source;
    status->MPI_TAG = tag;
    AOT_PG_COUNT(lazy_statuses, 1);
}

/* Up to one send and one receive of one call, both checked already. */
struct aot_pg_call {
    int fn;
    const void *site;
    MPI_Comm comm;
    int dest, stag, source, rtag;
    MPI_Status *status;
    struct aot_pg_part s, r;
    int has_s, has_r;
    int replace;              /* sendrecv_replace: the receive waits for the send */
};

/* Posts, drives progress, guards what is pending.  Returns the MPI code, or -1 when nothing
 * was started (the caller passes the call through). */
static int aot_pg_convert_inner(struct aot_pg_call *c);

/* The conversion makes MPI calls (posting, Testsome, waits): it brackets them. */
static int aot_pg_convert(struct aot_pg_call *c)
{
    int saved = aot_pg_mpi_window, rc;
    aot_pg_mpi_window = 1;
    rc = aot_pg_convert_inner(c);
    if (!saved) {
        aot_pg_lifted_restore();
        aot_pg_mpi_window = 0;
    }
    return rc;
}

static int aot_pg_convert_inner(struct aot_pg_call *c)
{
    int si = -1, ri = -1, sgen = 0, rgen = 0, rc = MPI_SUCCESS, rc2;

    int snapshot = 0;

    if (c->has_s)
        aot_pg_part_resolve(&c->s, AOT_PG_SEND);
    if (c->has_r)
        aot_pg_part_resolve(&c->r, AOT_PG_RECV);
    if (c->has_s) {
        /* a send is copied when small, for MPI_Sendrecv_replace, and when its pages meet the
         * receive of the same call; a guarded send waits for earlier receives on its pages */
        snapshot = c->s.bytes <= AOT_PG_SNAPSHOT_MAX || c->replace ||
                   (c->has_r && aot_pg_runs_meet(c->s.runs, c->s.nruns, c->r.runs, c->r.nruns));
        if (!snapshot)
            aot_pg_page_resolve(&c->s, AOT_PG_RECV);
    }
    if (c->has_r)
        aot_pg_page_resolve(&c->r, AOT_PG_SEND);
    if (c->has_r && aot_pg_nslots >= AOT_PG_MAX_SLOTS - 2)
        return -1;
    if (c->has_s) {
        rc = aot_pg_post_send(c->fn, &c->s, c->dest, c->stag, c->comm, c->site, snapshot, &si);
        if (si < 0)
            return -1;
        sgen = aot_pg_gen[si];
    }
    if (c->has_r) {
        rc2 = aot_pg_post_recv(c->fn, &c->r, c->source, c->rtag, c->comm, c->site, &ri);
        if (ri < 0) {
            /* no shadow: finish the send part, then the receive passes through */
            if (si >= 0)
                aot_pg_wait_one(si);
            aot_pg_disarm_if_idle();
            return si >= 0 ? -2 : -1;
        }
        if (rc == MPI_SUCCESS)
            rc = rc2;
        rgen = aot_pg_gen[ri];
    }

    aot_pg_progress();
    if (si >= 0) {
        if (aot_pg_gen[si] == sgen)
            aot_pg_guard_slot(si);
        else
            AOT_PG_COUNT(immediate, 1);
    }
    if (ri >= 0) {
        if (aot_pg_gen[ri] == rgen)
            aot_pg_guard_slot(ri);
        else
            AOT_PG_COUNT(immediate, 1);
        aot_pg_status_set(c->status, ri, rgen, c->source, c->rtag);
    }
    aot_pg_disarm_if_idle();
    aot_stats_optimized(c->fn);
    return rc;
}

/* ---------------------------------------------------------------- the entry points */

static int aot_pg_site_learned(const void *site)
{
    struct aot_pg_site *s = NULL;
    if (!site || aot_cfg.learn_touch <= 0)
        return 0;
    HASH_FIND_PTR(aot_pg_sites, &site, s);
    return s && s->learned;
}

static int aot_pg_pass_send(int fn, const void *buf, int count, MPI_Datatype dt, int dest,
                            int tag, MPI_Comm comm)
{
    aot_pg_pass_resolve(buf, count, dt, 0);
    if (fn == AOT_FN_MPI_Ssend)
        return PMPI_Ssend(buf, count, dt, dest, tag, comm);
    if (fn == AOT_FN_MPI_Rsend)
        return PMPI_Rsend(buf, count, dt, dest, tag, comm);
    return PMPI_Send(buf, count, dt, dest, tag, comm);
}

int aot_paging_send(int fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm, const void *site)
{
    struct aot_pg_call c = { .fn = fn, .site = site, .comm = comm, .dest = dest, .stag = tag,
                             .status = MPI_STATUS_IGNORE, .has_s = 1 };
    int why = 0, rc;

    if (fn == AOT_FN_MPI_Rsend && aot_pg_on && aot_pg_npending) {
        /* the matching receive must be posted: the program may know that only because a
         * receive completed, so pending receives complete first */
        int n = 0;
        for (int i = 0; i < aot_pg_nslots; i++)
            if (aot_pg_reqs[i].state && aot_pg_reqs[i].kind == AOT_PG_RECV) {
                aot_pg_wait_one(i);
                n++;
            }
        if (n)
            AOT_PG_COUNT(conflict_waits, n);
        aot_pg_disarm_if_idle();
    }
    if (!aot_pg_on)
        why = AOT_PASS_DISABLED;
    else if (dest == MPI_PROC_NULL)
        why = AOT_PASS_PROC_NULL;
    else if (aot_pg_site_learned(site))
        why = AOT_PASS_TOUCHED_AT_ONCE;
    else if (!(why = aot_pg_part_size(&c.s, buf, count, dt))) {
        /* size first: it is one cached lookup, the communicator check three MPI calls */
        if (c.s.bytes < aot_pg_min_bytes())
            why = AOT_PASS_BELOW_MIN;
        else if (!(why = aot_pg_comm_check(comm)))
            why = aot_pg_part_prepare(&c.s, AOT_PG_SEND);
    }
    if (!why) {
        rc = aot_pg_convert(&c);
        aot_pg_part_free(&c.s);
        if (rc != -1)
            return rc;
        why = AOT_PASS_GUARD_CAP;
    }
    aot_pg_part_free(&c.s);
    aot_stats_pass(fn, (enum aot_pass_reason) why);
    return aot_pg_pass_send(fn, buf, count, dt, dest, tag, comm);
}

int aot_paging_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                    MPI_Status *status, const void *site)
{
    struct aot_pg_call c = { .fn = AOT_FN_MPI_Recv, .site = site, .comm = comm,
                             .source = source, .rtag = tag, .status = status, .has_r = 1 };
    int why = 0, rc;

    if (!aot_pg_on)
        why = AOT_PASS_DISABLED;
    else if (source == MPI_PROC_NULL)
        why = AOT_PASS_PROC_NULL;
    else if (status != MPI_STATUS_IGNORE && (source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG))
        why = AOT_PASS_WILDCARD_STATUS;
    else if (aot_pg_site_learned(site))
        why = AOT_PASS_TOUCHED_AT_ONCE;
    else if (!(why = aot_pg_part_size(&c.r, buf, count, dt))) {
        /* a message without data only synchronizes: its completion is its whole effect */
        if (c.r.bytes < aot_pg_min_bytes() || c.r.bytes == 0)
            why = AOT_PASS_BELOW_MIN;
        else if (!(why = aot_pg_comm_check(comm)))
            why = aot_pg_part_prepare(&c.r, AOT_PG_RECV);
    }
    if (!why) {
        rc = aot_pg_convert(&c);
        aot_pg_part_free(&c.r);
        if (rc != -1)
            return rc;
        why = AOT_PASS_GUARD_CAP;
    }
    aot_pg_part_free(&c.r);
    aot_stats_pass(AOT_FN_MPI_Recv, (enum aot_pass_reason) why);
    aot_pg_pass_resolve(buf, count, dt, 1);
    return PMPI_Recv(buf, count, dt, source, tag, comm, status);
}

/* Shared by MPI_Sendrecv and MPI_Sendrecv_replace: the checks of both parts.  A part whose peer
 * is MPI_PROC_NULL is done by MPI at once (it moves nothing) and only the other one converts. */
static int aot_pg_sendrecv_check(struct aot_pg_call *c, const void *sbuf, int scount,
                                 MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt)
{
    int why;
    size_t bytes = 0;

    if (!aot_pg_on)
        return AOT_PASS_DISABLED;
    c->has_s = c->dest != MPI_PROC_NULL;
    c->has_r = c->source != MPI_PROC_NULL;
    if (!c->has_s && !c->has_r)
        return AOT_PASS_PROC_NULL;
    if (c->has_r && c->status != MPI_STATUS_IGNORE &&
        (c->source == MPI_ANY_SOURCE || c->rtag == MPI_ANY_TAG))
        return AOT_PASS_WILDCARD_STATUS;
    if (aot_pg_site_learned(c->site))
        return AOT_PASS_TOUCHED_AT_ONCE;
    if (c->has_s) {
        if ((why = aot_pg_part_size(&c->s, sbuf, scount, sdt)))
            return why;
        bytes = c->s.bytes;
    }
    if (c->has_r) {
        if ((why = aot_pg_part_size(&c->r, rbuf, rcount, rdt)))
            return why;
        if (c->r.bytes == 0)
            return AOT_PASS_BELOW_MIN;      /* a pure synchronization */
        if (c->r.bytes > bytes)
            bytes = c->r.bytes;
    }
    if (bytes < aot_pg_min_bytes())
        return AOT_PASS_BELOW_MIN;
    if ((why = aot_pg_comm_check(c->comm)))
        return why;
    if (c->has_s && (why = aot_pg_part_prepare(&c->s, AOT_PG_SEND)))
        return why;
    if (c->has_r && (why = aot_pg_part_prepare(&c->r, AOT_PG_RECV)))
        return why;
    if (c->has_s && c->has_r && !c->replace && c->s.nfp && c->r.nfp &&
        c->s.fp[0].lo < c->r.fp[c->r.nfp - 1].hi && c->r.fp[0].lo < c->s.fp[c->s.nfp - 1].hi) {
        /* send and receive buffers of one MPI_Sendrecv overlap: erroneous, MPI decides */
        for (int k = 0; k < c->s.nfp; k++)
            if (aot_pg_ranges_meet(c->r.fp, c->r.nfp, c->s.fp[k].lo, c->s.fp[k].hi))
                return AOT_PASS_UNSAFE;
    }
    return 0;
}

/* A receive from MPI_PROC_NULL: MPI fills the status exactly as it would. */
static void aot_pg_proc_null_status(MPI_Comm comm, MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE)
        PMPI_Recv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, comm, status);
}

int aot_paging_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                        void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                        MPI_Comm comm, MPI_Status *status, const void *site)
{
    struct aot_pg_call c = { .fn = AOT_FN_MPI_Sendrecv, .site = site, .comm = comm, .dest = dest,
                             .stag = stag, .source = source, .rtag = rtag, .status = status };
    int why = aot_pg_sendrecv_check(&c, sbuf, scount, sdt, rbuf, rcount, rdt), rc;

    if (!why) {
        rc = aot_pg_convert(&c);
        if (rc != -1 && !c.has_r)
            aot_pg_proc_null_status(comm, status);
        if (rc == -2) {               /* the send went; the receive could not be converted */
            aot_pg_part_free(&c.s);
            aot_pg_part_free(&c.r);
            aot_pg_pass_resolve(rbuf, rcount, rdt, 1);
            return PMPI_Recv(rbuf, rcount, rdt, source, rtag, comm, status);
        }
        aot_pg_part_free(&c.s);
        aot_pg_part_free(&c.r);
        if (rc != -1)
            return rc;
        why = AOT_PASS_GUARD_CAP;
    }
    aot_pg_part_free(&c.s);
    aot_pg_part_free(&c.r);
    aot_stats_pass(AOT_FN_MPI_Sendrecv, (enum aot_pass_reason) why);
    aot_pg_pass_resolve(sbuf, scount, sdt, 0);
    aot_pg_pass_resolve(rbuf, rcount, rdt, 1);
    return PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, comm,
                         status);
}

/*
 * MPI_Sendrecv_replace is converted as a send from the buffer and a receive into a shadow
 * whose copy-out first waits for that send (MPI must read the old contents before the new ones
 * are written); the buffer is no-access meanwhile.  It is safe whenever the two parts are, so
 * it passes through only for the reasons any receive would.
 */
int aot_paging_sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag,
                                int source, int rtag, MPI_Comm comm, MPI_Status *status,
                                const void *site)
{
    struct aot_pg_call c = { .fn = AOT_FN_MPI_Sendrecv_replace, .site = site, .comm = comm,
                             .dest = dest, .stag = stag, .source = source, .rtag = rtag,
                             .status = status, .replace = 1 };
    int why = aot_pg_sendrecv_check(&c, buf, count, dt, buf, count, dt), rc;

    if (!why) {
        rc = aot_pg_convert(&c);
        if (rc != -1 && !c.has_r)
            aot_pg_proc_null_status(comm, status);
        aot_pg_part_free(&c.s);
        aot_pg_part_free(&c.r);
        if (rc == -2) {
            /* the send of the old contents completed: the receive alone is what is left */
            aot_pg_pass_resolve(buf, count, dt, 1);
            return PMPI_Recv(buf, count, dt, source, rtag, comm, status);
        }
        if (rc != -1)
            return rc;
        why = AOT_PASS_GUARD_CAP;
    }
    aot_pg_part_free(&c.s);
    aot_pg_part_free(&c.r);
    aot_stats_pass(AOT_FN_MPI_Sendrecv_replace, (enum aot_pass_reason) why);
    aot_pg_pass_resolve(buf, count, dt, 1);
    return PMPI_Sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, status);
}

/* ---------------------------------------------------------------- lazy statuses: queries */

/* The real status behind a status the program holds (waiting for its request if needed). */
static const MPI_Status *aot_pg_status_resolve(const MPI_Status *status)
{
    struct aot_pg_lazy *e = aot_pg_lazy_of(status);
    if (!e)
        return status;
    if (e->slot >= 0 && aot_pg_gen[e->slot] == e->slot_gen)
        aot_pg_wait_one(e->slot);
    aot_pg_disarm_if_idle();
    AOT_PG_COUNT(lazy_resolved, 1);
    return &e->st;
}

int aot_paging_get_count(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    return PMPI_Get_count(aot_pg_status_resolve(status), dt, count);
}

int aot_paging_get_elements(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    return PMPI_Get_elements(aot_pg_status_resolve(status), dt, count);
}

int aot_paging_get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    return PMPI_Get_elements_x(aot_pg_status_resolve(status), dt, count);
}

int aot_paging_get_count_c(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    return PMPI_Get_count_c(aot_pg_status_resolve(status), dt, count);
}

/* ---------------------------------------------------------------- enter / leave */

void aot_paging_enter(int fn)
{
    int cls;

    if (!aot_pg_on)
        return;
    aot_pg_mpi_window = 1;
    aot_pg_epoch++;
    if (!aot_pg_npending || fn < 0 || fn >= AOT_FN_COUNT)
        return;
    cls = aot_pg_fn_class[fn];
    if (cls == AOT_PG_CLS_ALL || cls == AOT_PG_CLS_READS) {
        int n = 0;
        for (int i = 0; i < aot_pg_nslots; i++)
            if (aot_pg_reqs[i].state && (cls == AOT_PG_CLS_ALL || aot_pg_reqs[i].kind == AOT_PG_RECV)) {
                aot_pg_wait_one(i);
                n++;
            }
        if (n)
            AOT_PG_COUNT(enter_waits, n);
    }
}

void aot_paging_leave(int fn)
{
    (void) fn;
    if (!aot_pg_on)
        return;
    aot_pg_progress();
    aot_pg_lifted_restore();
    aot_pg_mpi_window = 0;
    aot_pg_disarm_if_idle();
}

/* ---------------------------------------------------------------- init / finalize */

static int aot_pg_fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "asynchronous conversion: %s", what);
    return -1;
}

int aot_paging_init(char *err, size_t errlen)
{
#define AOT_X(name) aot_pg_ctr.name = aot_stats_register("paging", #name);
    AOT_PG_COUNTERS(AOT_X)
#undef AOT_X
    if (aot_pg_guard_init(aot_cfg.max_guards) != 0)
        return aot_pg_fail(err, errlen, "cannot map the page table");
    aot_pg_reqs = aot_mem_zalloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_reqs));
    aot_pg_mreqs = aot_mem_alloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_mreqs));
    aot_pg_gen = aot_mem_zalloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_gen));
    aot_pg_done_idx = aot_mem_alloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_done_idx));
    aot_pg_done_st = aot_mem_alloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_done_st));
    aot_pg_final_st = aot_mem_zalloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_final_st));
    aot_pg_lazy = aot_mem_zalloc((size_t) AOT_PG_LAZY_SLOTS * sizeof(*aot_pg_lazy));
    if (!aot_pg_reqs || !aot_pg_mreqs || !aot_pg_gen || !aot_pg_done_idx || !aot_pg_done_st ||
        !aot_pg_final_st || !aot_pg_lazy)
        return aot_pg_fail(err, errlen, "cannot map the request tables");
    for (int i = 0; i < AOT_PG_MAX_SLOTS; i++)
        aot_pg_mreqs[i] = MPI_REQUEST_NULL;
    aot_pg_nslots = 0;
    aot_pg_npending = 0;
    aot_stack_main_init();
    aot_pg_classify_functions();
    aot_pg_layout_init();
    if (aot_pg_handler_install(err, errlen) != 0)
        return -1;
    aot_pg_syscalls_init();
    aot_pg_on = 1;
    AOT_LOG(1, "asynchronous conversion on: min %zu B, at most %d guarded ranges, learn after %d",
            aot_cfg.convert_min, aot_cfg.max_guards, aot_cfg.learn_touch);
    return 0;
}

void aot_paging_finalize(void)
{
    int depth = aot_tls.depth;

    if (!aot_pg_on)
        return;
    aot_tls.depth = depth ? depth : 1;
    aot_pg_mpi_window = 1;
    aot_pg_wait_all();
    aot_pg_lifted_restore();
    aot_pg_mpi_window = 0;
    aot_pg_guard_reset();
    aot_pg_on = 0;
    aot_pg_handler_uninstall();
    __atomic_fetch_and(&aot_hooks_armed, ~AOT_ARM_PAGING, __ATOMIC_RELAXED);
    aot_tls.depth = depth;
}

/* After fork, in the child: no guards and no requests (the child cannot complete MPI
 * requests; the parent completed them all before forking). */
void aot_pg_child_reset(void)
{
    aot_pg_lifted_forget();
    aot_pg_mpi_window = 0;
    aot_pg_guard_reset();
    for (int i = 0; i < aot_pg_nslots; i++)
        if (aot_pg_reqs[i].state) {
            aot_pg_reqs[i].state = 0;
            aot_pg_mreqs[i] = MPI_REQUEST_NULL;
        }
    aot_pg_nslots = 0;
    aot_pg_npending = 0;
    aot_pg_gate_update();
    aot_pg_on = 0;
    __atomic_fetch_and(&aot_hooks_armed, ~AOT_ARM_PAGING, __ATOMIC_RELAXED);
}

int aot_paging_pass_reason(int fn, int scount, MPI_Datatype sdt, int dest, int rcount,
                           MPI_Datatype rdt, int source, int rtag, int status_ignore)
{
    const int has_s = fn != AOT_FN_MPI_Recv, has_r = fn == AOT_FN_MPI_Recv ||
                                                     fn == AOT_FN_MPI_Sendrecv;
    struct aot_pg_part p;
    size_t bytes = 0;
    int why, live_s = has_s && dest != MPI_PROC_NULL, live_r = has_r && source != MPI_PROC_NULL;

    /* the checks of aot_paging_send, _recv and aot_pg_sendrecv_check that do not depend on
     * the buffer, the communicator, the call site or what is pending, in their order */
    if (!aot_cfg.convert || !aot_pg_on)
        return AOT_PASS_DISABLED;
    if (!live_s && !live_r)
        return AOT_PASS_PROC_NULL;
    if (has_s && !has_r && !live_s)
        return AOT_PASS_PROC_NULL;
    if (live_r && !status_ignore && (source == MPI_ANY_SOURCE || rtag == MPI_ANY_TAG))
        return AOT_PASS_WILDCARD_STATUS;
    if (live_s) {
        if ((why = aot_pg_part_size(&p, NULL, scount, sdt)))
            return why;
        bytes = p.bytes;
    }
    if (live_r) {
        if ((why = aot_pg_part_size(&p, NULL, rcount, rdt)))
            return why;
        if (p.bytes == 0)
            return AOT_PASS_BELOW_MIN;
        if (p.bytes > bytes)
            bytes = p.bytes;
    }
    return bytes < aot_cfg.convert_min ? AOT_PASS_BELOW_MIN : 0;
}
