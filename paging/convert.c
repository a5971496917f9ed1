/*
 * convert.c: converting one blocking call: the parts (buffers) of a call, posting the
 * nonblocking requests, snapshots and shadows, guarding what is still pending.
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
 */
#include <string.h>

#include "aot_calib.h"
#include "paging.h"

/* ---------------------------------------------------------------- the parts of a call */

void aot_pg_part_free(struct aot_pg_part *p)
{
    aot_mem_free(p->fp, (size_t) p->nfp * sizeof(*p->fp));
    aot_mem_free(p->runs, (size_t) p->nfp * sizeof(*p->runs));
    p->fp = NULL;
    p->runs = NULL;
}

/* Layout and size of one buffer; 0, or the pass-through reason. */
int aot_pg_part_size(struct aot_pg_part *p, const void *buf, int count, MPI_Datatype dt)
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
int aot_pg_part_prepare(struct aot_pg_part *p, int kind)
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

/* ---------------------------------------------------------------- earlier requests on its bytes and pages */

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
/* Whether slot i holds a pending guarded request of this kind with bytes on p's pages. */
static int aot_pg_slot_on_pages(int i, const struct aot_pg_part *p, int kind)
{
    const struct aot_pg_req *r = &aot_pg_reqs[i];

    return r->state && r->kind == kind && r->guarded &&
           aot_pg_runs_meet(r->runs, r->nruns, p->runs, p->nruns);
}

static void aot_pg_page_resolve(const struct aot_pg_part *p, int kind)
{
    int n = 0;
    for (int i = 0; i < aot_pg_nslots && p->nruns; i++) {
        if (aot_pg_slot_on_pages(i, p, kind)) {
            aot_pg_wait_one(i);
            n++;
        }
    }
    if (n)
        AOT_PG_COUNT(conflict_waits, n);
}


/* Whether a pending guarded request of this kind owns bytes on p's pages. */
static int aot_pg_page_busy(const struct aot_pg_part *p, int kind)
{
    for (int i = 0; i < aot_pg_nslots && p->nruns; i++)
        if (aot_pg_slot_on_pages(i, p, kind))
            return 1;
    return 0;
}


/* ---------------------------------------------------------------- posting */

/* Sends up to this size are copied into a private snapshot and sent from there: the copy
 * costs less than guarding (docs/paging.md), the program may write the buffer at once, and the
 * send never shares a page with a receive guard. */
#define AOT_PG_SNAPSHOT_MAX ((size_t) 16 << 10)
/* Larger sends are copied too, up to this size, where the calibration says a copy costs less
 * than guarding their pages (aot_calib_copy_beats_guard: on these machines at every size), and
 * where their pages meet a pending guarded receive, instead of waiting for that receive: a halo
 * exchange's rows share pages with the ghost rows the same exchange receives (sor: the row
 * sent down shares a page with the row received from below), and waiting serialised the
 * exchange as blocking calls would. */
#define AOT_PG_SNAPSHOT_BIG ((size_t) 4 << 20)

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

/* A slot aot_pg_slot_for took whose request cannot start: the footprint goes back to the
 * part (the caller passes the call through) and the slot is free again. */
static void aot_pg_slot_give_back(struct aot_pg_part *p, int i)
{
    struct aot_pg_req *r = &aot_pg_reqs[i];

    p->fp = r->fp;
    p->runs = r->runs;
    r->fp = NULL;
    r->runs = NULL;
    aot_pg_slot_release(i);
}

static int aot_pg_post_send(int fn, struct aot_pg_part *p, int dest, int tag, MPI_Comm comm,
                            struct aot_guard_note *note, int snapshot, int *slot)
{
    int i = aot_pg_slot_for(p, AOT_PG_SEND, fn, note);
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
            aot_pg_slot_give_back(p, i);
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
                            struct aot_guard_note *note, int *slot)
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
    i = aot_pg_slot_for(p, AOT_PG_RECV, fn, note);
    if (i < 0)
        return MPI_SUCCESS;
    r = &aot_pg_reqs[i];
    r->shadow = aot_mem_shadow_get(want ? want : 1, &r->shadow_cap);
    if (!r->shadow) {
        aot_pg_slot_give_back(p, i);
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

/* ---------------------------------------------------------------- one call */

/* Posts, drives progress, guards what is pending.  Returns the MPI code, or -1 when nothing
 * was started (the caller passes the call through). */
static int aot_pg_convert_inner(struct aot_pg_call *c);

/* The conversion makes MPI calls (posting, Testsome, waits): it brackets them. */
int aot_pg_convert(struct aot_pg_call *c)
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
         * receive of the same call; up to AOT_PG_SNAPSHOT_BIG, when a copy is cheaper than a
         * guard and when its pages meet a pending guarded receive; a guarded send waits for
         * earlier receives on its pages */
        snapshot = c->s.bytes <= AOT_PG_SNAPSHOT_MAX || c->replace || c->copy ||
                   (c->has_r && aot_pg_runs_meet(c->s.runs, c->s.nruns, c->r.runs, c->r.nruns)) ||
                   (c->s.bytes <= AOT_PG_SNAPSHOT_BIG &&
                    (aot_calib_copy_beats_guard(c->s.bytes) ||
                     aot_pg_page_busy(&c->s, AOT_PG_RECV)));
        if (!snapshot)
            aot_pg_page_resolve(&c->s, AOT_PG_RECV);
    }
    if (c->has_r)
        aot_pg_page_resolve(&c->r, AOT_PG_SEND);
    if (c->has_r && aot_pg_nslots >= AOT_PG_MAX_SLOTS - 2)
        return -1;
    if (c->has_s) {
        rc = aot_pg_post_send(c->fn, &c->s, c->dest, c->stag, c->comm, c->note, snapshot, &si);
        if (si < 0)
            return -1;
        sgen = aot_pg_gen[si];
    }
    if (c->has_r) {
        rc2 = aot_pg_post_recv(c->fn, &c->r, c->source, c->rtag, c->comm, c->note, &ri);
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
        if (aot_pg_gen[si] != sgen)
            AOT_PG_COUNT(immediate, 1);
        else if (!c->waited)
            aot_pg_guard_slot(si);
    }
    if (ri >= 0) {
        if (aot_pg_gen[ri] != rgen)
            AOT_PG_COUNT(immediate, 1);
        else if (!c->waited)
            aot_pg_guard_slot(ri);
        aot_pg_status_set(c->status, ri, rgen, c->source, c->rtag);
    }
    aot_pg_disarm_if_idle();
    aot_stats_optimized(c->fn);
    return rc;
}
