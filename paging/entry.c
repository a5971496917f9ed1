/*
 * entry.c: what intercept/ and chains/ call to have a point-to-point call converted: the
 * entry points for MPI_Send (Ssend, Rsend), MPI_Recv, MPI_Sendrecv and MPI_Sendrecv_replace,
 * which check a call and either convert it (convert.c) or pass it to MPI, and the questions
 * chains ask of paging.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "aot_fault.h"
#include "paging.h"

/* ---------------------------------------------------------------- checks */

/* aot_paging_force: the next calls are chain members (no size threshold); AOT_PG_FORCE_WAITED:
 * the chain completes their requests before the call returns */
static int aot_pg_forced;

void aot_paging_force(int how)
{
    aot_pg_forced = how;
}

/* The size below which a call is not converted. */
static inline size_t aot_pg_min_bytes(void)
{
    return aot_pg_forced ? 0 : aot_cfg.convert_min;
}

/* The size rule, for the entry points and for what chains ask: a call is too small to convert
 * when the larger of its sides (bytes; 0 for a side it lacks or whose peer is MPI_PROC_NULL)
 * holds fewer than min bytes. */
static int aot_pg_below_min(size_t sbytes, size_t rbytes, size_t min)
{
    return (sbytes > rbytes ? sbytes : rbytes) < min;
}

/*
 * A call paging would convert: its site's governor decides how it runs now (sites.c).  0 to
 * convert it (c->copy set when its send goes from a copy; c->waited when chains complete
 * the call's requests before it returns), or the reason it runs natively:
 * AOT_PASS_NOT_PAYING (the governor's choice), AOT_PASS_DISABLED (AUTOOPT_P2P_MODE=native),
 * AOT_PASS_FORCED_MODE (AUTOOPT_P2P_MODE=copy on a call with nothing to send),
 * AOT_PASS_TOUCHED_AT_ONCE (guarded, at a site that touches at once: aot_pg_note_touch), or
 * why an earlier call of the site could not be converted (aot_pg_site_unfit).
 * Chains' guarded members (aot_paging_force) are converted as chains ask.
 */
static int aot_pg_govern(struct aot_pg_call *c, int copy_ok)
{
    size_t bytes = c->has_s ? c->s.bytes : 0;
    int mode, unfit;

    /* the program blocks SIGSEGV or SIGTRAP: a guard's fault would kill (src/aot_fault.h);
     * a chain's member whose requests complete before it returns takes no guard */
    if (aot_fault_blocked() && aot_pg_forced != AOT_PG_FORCE_WAITED)
        return AOT_PASS_SIGMASK;
    if (aot_pg_forced) {
        /* a chain's guarded member at a site that touches at once runs natively */
        if (aot_pg_site_learned(c->site))
            return AOT_PASS_TOUCHED_AT_ONCE;
        c->waited = aot_pg_forced == AOT_PG_FORCE_WAITED;
        return 0;
    }
    if (c->has_r && c->r.bytes > bytes)
        bytes = c->r.bytes;
    mode = aot_pg_site_mode(c->site, c->fn, copy_ok && c->has_s, bytes, c->comm, &unfit);
    if (mode == AOT_MODE_NATIVE)
        return aot_cfg.p2p_mode == AOT_P2P_NATIVE ? AOT_PASS_DISABLED
               : unfit                            ? unfit
                                                  : AOT_PASS_NOT_PAYING;
    c->copy = mode == AOT_MODE_COPY;
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

/* What a call the governor converts needs besides its sizes: the communicator check (three
 * MPI calls), its footprints, and for MPI_Sendrecv buffers that do not overlap.  The
 * governor's native occurrences skip all of it. */
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

/* aot_pg_call_check for a call to convert.  A site whose call cannot be converted runs
 * natively from then on, for that reason (aot_pg_site_unfit): its governor would otherwise
 * measure native calls as its candidates'.  Not for a chain's member (the chain decides) nor
 * for a lack of memory (it passes).  A call that converts takes its site's guard note down to
 * its requests (sites.c learns from it). */
static int aot_pg_prepare(struct aot_pg_call *c)
{
    int why = aot_pg_call_check(c);

    if (why && why != AOT_PASS_GUARD_CAP && !aot_pg_forced)
        aot_pg_site_unfit(c->site, why);
    else if (!why)
        c->note = aot_pg_site_note(c->site);
    return why;
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

/* ---------------------------------------------------------------- the entry points */

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
    else if (!(why = aot_pg_part_size(&c.s, buf, count, dt)) &&
             aot_pg_below_min(c.s.bytes, 0, aot_pg_min_bytes()))
        why = AOT_PASS_BELOW_MIN;
    /* MPI_Ssend's return says the message was matched: never from a copy */
    if (!why)
        why = aot_pg_govern(&c, fn != AOT_FN_MPI_Ssend);
    /* only a call that converts needs the communicator check (three MPI calls) and the
     * footprint: the governor's native occurrences skip both */
    if (!why)
        why = aot_pg_prepare(&c);
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
    else if (!(why = aot_pg_part_size(&c.r, buf, count, dt)) &&
             /* a message without data only synchronizes: its completion is its whole effect */
             (aot_pg_below_min(0, c.r.bytes, aot_pg_min_bytes()) || c.r.bytes == 0))
        why = AOT_PASS_BELOW_MIN;
    if (!why)
        why = aot_pg_govern(&c, 0);
    if (!why)
        why = aot_pg_prepare(&c);
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
    if (aot_pg_below_min(c->has_s ? c->s.bytes : 0, c->has_r ? c->r.bytes : 0,
                         aot_pg_min_bytes()))
        return AOT_PASS_BELOW_MIN;
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

    if (!why)
        why = aot_pg_govern(&c, 1);
    if (!why)
        why = aot_pg_prepare(&c);
    if (!why && c.copy && c.has_r) {
        /* copied sends: the send goes from a copy, the receive runs as the program made it */
        c.has_r = 0;
        rc = aot_pg_convert(&c);
        aot_pg_part_free(&c.s);
        aot_pg_part_free(&c.r);
        if (rc != -1) {
            int rc2;
            aot_pg_pass_resolve(rbuf, rcount, rdt, 1);
            rc2 = PMPI_Recv(rbuf, rcount, rdt, source, rtag, comm, status);
            return rc == MPI_SUCCESS ? rc2 : rc;
        }
        why = AOT_PASS_GUARD_CAP;
    }
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

    if (!why)
        why = aot_pg_govern(&c, 0);   /* its send is a copy in any case: guarded or native */
    if (!why)
        why = aot_pg_prepare(&c);
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

/* ---------------------------------------------------------------- chains' interface */

int aot_paging_pass_reason(int fn, int scount, MPI_Datatype sdt, int dest, int rcount,
                           MPI_Datatype rdt, int source, int rtag, int status_ignore)
{
    const int has_s = fn != AOT_FN_MPI_Recv, has_r = fn == AOT_FN_MPI_Recv ||
                                                     fn == AOT_FN_MPI_Sendrecv;
    struct aot_pg_part p;
    size_t sbytes = 0, rbytes = 0;
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
        sbytes = p.bytes;
    }
    if (live_r) {
        if ((why = aot_pg_part_size(&p, NULL, rcount, rdt)))
            return why;
        if (p.bytes == 0)
            return AOT_PASS_BELOW_MIN;
        rbytes = p.bytes;
    }
    return aot_pg_below_min(sbytes, rbytes, aot_cfg.convert_min) ? AOT_PASS_BELOW_MIN : 0;
}

int aot_paging_started(void)
{
    return aot_pg_on;
}

int aot_paging_would_convert(int scount, MPI_Datatype sdt, int rcount, MPI_Datatype rdt)
{
    MPI_Count size = 0;
    size_t sbytes = 0, rbytes = 0;

    if (!aot_cfg.convert)
        return 0;
    if (scount > 0) {
        PMPI_Type_size_x(sdt, &size);
        sbytes = (size_t) size * (size_t) scount;
    }
    if (rcount > 0) {
        PMPI_Type_size_x(rdt, &size);
        rbytes = (size_t) size * (size_t) rcount;
    }
    return !aot_pg_below_min(sbytes, rbytes, aot_cfg.convert_min);
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
