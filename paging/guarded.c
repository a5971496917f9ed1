/*
 * guarded.c: paging's mechanism entry, the converting half of a point-to-point call: whether a
 * call that is to convert can (its communicator, its footprints and mapping, the overlap of an
 * MPI_Sendrecv's buffers), converting it (convert.c), and the calls that finish natively when
 * only a part of it went.  It decides nothing: the call sites' governor (entry.c) and safe
 * chains (aot_guarded_start) chose the mode already, and get back the reason a call could not
 * convert.  Also the request interface chains use (complete, guards, settle).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "aot_fault.h"
#include "paging.h"

/* ---------------------------------------------------------------- checks */

int aot_pg_call_sizes(struct aot_pg_call *c, const void *sbuf, int scount, MPI_Datatype sdt,
                      void *rbuf, int rcount, MPI_Datatype rdt, size_t min)
{
    int why;

    if (!aot_pg_on)
        return AOT_PASS_DISABLED;
    c->has_s = c->dest != MPI_PROC_NULL;
    c->has_r = c->source != MPI_PROC_NULL;
    if (!c->has_s && !c->has_r)
        return AOT_PASS_PROC_NULL;
    if (c->has_r && c->status != MPI_STATUS_IGNORE &&
        (c->source == MPI_ANY_SOURCE || c->rtag == MPI_ANY_TAG))
        return AOT_PASS_WILDCARD_STATUS;
    if (c->has_s && (why = aot_pg_part_size(&c->s, sbuf, scount, sdt)))
        return why;
    if (c->has_r) {
        if ((why = aot_pg_part_size(&c->r, rbuf, rcount, rdt)))
            return why;
        if (c->r.bytes == 0)
            return AOT_PASS_BELOW_MIN;      /* a pure synchronization */
    }
    if (aot_pg_below_min(c->has_s ? c->s.bytes : 0, c->has_r ? c->r.bytes : 0, min))
        return AOT_PASS_BELOW_MIN;
    return 0;
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

/* What a call to convert needs besides its sizes: the communicator check (three MPI calls),
 * its footprints, and for MPI_Sendrecv buffers that do not overlap.  The governor's native
 * occurrences never get here. */
static int aot_pg_call_check(struct aot_pg_call *c)
{
    int why;

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

/* ---------------------------------------------------------------- converting */

void aot_pg_pass_resolve(const void *buf, int count, MPI_Datatype dt, int write)
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

int aot_pg_pass_send(int fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm)
{
    aot_pg_pass_resolve(buf, count, dt, 0);
    if (fn == AOT_FN_MPI_Ssend)
        return PMPI_Ssend(buf, count, dt, dest, tag, comm);
    if (fn == AOT_FN_MPI_Rsend)
        return PMPI_Rsend(buf, count, dt, dest, tag, comm);
    return PMPI_Send(buf, count, dt, dest, tag, comm);
}

int aot_pg_pass_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                     MPI_Status *status)
{
    aot_pg_pass_resolve(buf, count, dt, 1);
    return PMPI_Recv(buf, count, dt, source, tag, comm, status);
}

int aot_pg_pass_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                         void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                         MPI_Comm comm, MPI_Status *status)
{
    aot_pg_pass_resolve(sbuf, scount, sdt, 0);
    aot_pg_pass_resolve(rbuf, rcount, rdt, 1);
    return PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag, comm,
                         status);
}

/* The receive part of c as the program made it, through MPI (the pending requests on its
 * bytes complete first). */
static int aot_pg_pass_recv_part(const struct aot_pg_call *c)
{
    return aot_pg_pass_recv((void *) c->r.buf, c->r.count, c->r.dt, c->source, c->rtag, c->comm,
                            c->status);
}

static void aot_pg_parts_free(struct aot_pg_call *c)
{
    aot_pg_part_free(&c->s);
    aot_pg_part_free(&c->r);
}

int aot_pg_guarded(struct aot_pg_call *c, int *rc)
{
    int why = aot_pg_call_check(c), r;

    if (!why) {
        /* a call that converts takes its site's guard note down to its requests (sites.c
         * learns from it) */
        c->note = aot_pg_site_note(c->site);
        if (c->copy && c->has_r) {
            /* copied sends: the send goes from a copy, the receive runs as the program made
             * it */
            c->has_r = 0;
            r = aot_pg_convert(c);
            aot_pg_parts_free(c);
            if (r != -1) {
                int r2 = aot_pg_pass_recv_part(c);
                *rc = r == MPI_SUCCESS ? r2 : r;
                return 0;
            }
        } else {
            r = aot_pg_convert(c);
            if (r != -1 && !c->has_r && c->status != MPI_STATUS_IGNORE)
                /* a receive from MPI_PROC_NULL: MPI fills the status exactly as it would */
                PMPI_Recv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, c->comm, c->status);
            aot_pg_parts_free(c);
            if (r == -2) {
                /* the send went (for MPI_Sendrecv_replace: the send of the old contents
                 * completed); the receive could not be converted and is what is left */
                *rc = aot_pg_pass_recv_part(c);
                return 0;
            }
            if (r != -1) {
                *rc = r;
                return 0;
            }
        }
        why = AOT_PASS_GUARD_CAP;
    }
    aot_pg_parts_free(c);
    return why;
}

/* ---------------------------------------------------------------- safe chains' members */

int aot_guarded_start(int fn, const void *sbuf, int scount, MPI_Datatype sdt, int dest,
                      int stag, void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                      MPI_Comm comm, int how, const void *site, int *rc)
{
    const int has_s = fn != AOT_FN_MPI_Recv, has_r = fn == AOT_FN_MPI_Recv ||
                                                     fn == AOT_FN_MPI_Sendrecv;
    struct aot_pg_call c = { .fn = fn, .site = site, .comm = comm,
                             .dest = has_s ? dest : MPI_PROC_NULL, .stag = stag,
                             .source = has_r ? source : MPI_PROC_NULL, .rtag = rtag,
                             .status = MPI_STATUS_IGNORE, .waited = how == AOT_GUARDED_WAITED };
    /* the checks of the call sites' entry points (entry.c) in their order, without the size
     * threshold */
    int why = aot_pg_call_sizes(&c, sbuf, scount, sdt, rbuf, rcount, rdt, 0);

    /* the program blocks SIGSEGV or SIGTRAP: a guard's fault would kill (src/aot_fault.h); a
     * member whose requests complete before it returns takes no guard */
    if (!why && aot_fault_blocked() && how != AOT_GUARDED_WAITED)
        why = AOT_PASS_SIGMASK;
    /* a member at a site that touches at once runs natively */
    if (!why && aot_pg_site_learned(site))
        why = AOT_PASS_TOUCHED_AT_ONCE;
    if (!why && !(why = aot_pg_guarded(&c, rc)))
        return 0;
    aot_pg_parts_free(&c);
    aot_stats_pass(fn, (enum aot_pass_reason) why);
    if (fn == AOT_FN_MPI_Recv)
        *rc = aot_pg_pass_recv(rbuf, rcount, rdt, source, rtag, comm, MPI_STATUS_IGNORE);
    else if (fn == AOT_FN_MPI_Sendrecv)
        *rc = aot_pg_pass_sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source,
                                   rtag, comm, MPI_STATUS_IGNORE);
    else
        *rc = aot_pg_pass_send(fn, sbuf, scount, sdt, dest, stag, comm);
    return why;
}

/* ---------------------------------------------------------------- chains' request interface */

int aot_paging_started(void)
{
    return aot_pg_on;
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
