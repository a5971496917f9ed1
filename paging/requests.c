/*
 * requests.c: the table of pending requests: slots, retiring, progress, and the lookups the
 * fault handler, the libc wrappers and the other files of paging/ use.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A converted request holds one slot of aot_pg_reqs and its MPI request at the same index of
 * aot_pg_mreqs, so one MPI_Testsome over that array drives progress.  A request that completed
 * is retired: a receive's shadow is copied out, the guards go, the slot is freed and its
 * generation bumped (a lazy status or a caller holding the slot index sees that it is gone).
 * While any request is pending the enter/leave hooks are armed (AOT_ARM_PAGING).
 */
#include <string.h>

#include "aot_fault.h"
#include "paging.h"

struct aot_pg_req *aot_pg_reqs;
MPI_Request *aot_pg_mreqs;
int aot_pg_nslots;
volatile int aot_pg_npending;
int *aot_pg_gen;
MPI_Status *aot_pg_final_st;

static int *aot_pg_done_idx;
static MPI_Status *aot_pg_done_st;
static int aot_pg_free_hint;

int aot_pg_requests_init(void)
{
    aot_pg_reqs = aot_mem_zalloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_reqs));
    aot_pg_mreqs = aot_mem_alloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_mreqs));
    aot_pg_gen = aot_mem_zalloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_gen));
    aot_pg_done_idx = aot_mem_alloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_done_idx));
    aot_pg_done_st = aot_mem_alloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_done_st));
    aot_pg_final_st = aot_mem_zalloc(AOT_PG_MAX_SLOTS * sizeof(*aot_pg_final_st));
    if (!aot_pg_reqs || !aot_pg_mreqs || !aot_pg_gen || !aot_pg_done_idx || !aot_pg_done_st ||
        !aot_pg_final_st)
        return -1;
    for (int i = 0; i < AOT_PG_MAX_SLOTS; i++)
        aot_pg_mreqs[i] = MPI_REQUEST_NULL;
    aot_pg_nslots = 0;
    aot_pg_npending = 0;
    return 0;
}

/* ---------------------------------------------------------------- slots */

/* (The fault entry needs no re-check here: nobody replaces it while it is installed; the
 * program's sigaction calls set the handler it forwards to, src/signals.c.) */
static void aot_pg_arm(void)
{
    if (!(aot_hooks_armed & AOT_ARM_PAGING))
        __atomic_fetch_or(&aot_hooks_armed, AOT_ARM_PAGING, __ATOMIC_RELAXED);
}

void aot_pg_disarm_if_idle(void)
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

void aot_pg_slot_release(int i)
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

/* A new slot for the part, taking over its footprint and runs. */
int aot_pg_slot_for(struct aot_pg_part *p, int kind, int fn, struct aot_guard_note *note)
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
    r->note = note;
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

/* ---------------------------------------------------------------- retiring */

static void aot_pg_retire(int i);

void aot_pg_wait_one(int i)
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
        aot_pg_lazy_retire(r->lazy, i, &r->st);
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
void aot_pg_progress(void)
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
            /* evidence that the site does not touch at once only when the program made
             * another MPI call without touching: its streak ends (the site's guard note);
             * a request that completed within its own call (before the program could touch
             * it) says nothing either way, so how fast the message came does not decide what
             * is learned */
            if (aot_pg_reqs[i].note && aot_pg_reqs[i].epoch != aot_pg_epoch)
                aot_pg_reqs[i].note->streak = 0;
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
int aot_pg_complete_span(intptr_t lo, intptr_t hi, int write)
{
    int n = aot_pg_complete_range(lo, hi, write);
    /* MPI and the kernel reach the buffer by pages, not bytes: a peer's process_vm_readv of a
     * send buffer fails on a page that a receive guard made no-access, and silently leaves
     * those bytes out (examples/ring lost the 3200 bytes of its last page that way).  So the
     * requests guarding any page of the span complete too. */
    return n + aot_pg_complete_pages(lo, hi);
}
