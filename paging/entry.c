/*
 * entry.c: the call sites' half of converting a point-to-point call: the entry points that
 * intercept/ calls for MPI_Send (Ssend, Rsend), MPI_Recv, MPI_Sendrecv and
 * MPI_Sendrecv_replace, which check a call, let its site's governor decide (sites.c), and
 * either hand it to the converting half (guarded.c) or pass it to MPI; and the questions chains
 * ask of paging about a call's size.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "aot_fault.h"
#include "paging.h"

/* ---------------------------------------------------------------- deciding */

/*
 * A call paging would convert: its site's governor decides how it runs now (sites.c).  0 to
 * convert it (c->copy set when its send goes from a copy), or the reason it runs natively:
 * AOT_PASS_SIGMASK (the program blocks the signals of a guard's fault),
 * AOT_PASS_NOT_PAYING (the governor's choice), AOT_PASS_DISABLED (AUTOOPT_P2P_MODE=native),
 * AOT_PASS_FORCED_MODE (AUTOOPT_P2P_MODE=copy on a call with nothing to send),
 * AOT_PASS_TOUCHED_AT_ONCE (guarded, at a site that touches at once: its guard note), or
 * why an earlier call of the site could not be converted (aot_pg_site_unfit).
 * Chains' guarded members do not come here (aot_guarded_start: the chain decided).
 */
static int aot_pg_govern(struct aot_pg_call *c, int copy_ok)
{
    size_t bytes = c->has_s ? c->s.bytes : 0;
    int mode, unfit;

    /* the program blocks SIGSEGV or SIGTRAP: a guard's fault would kill (src/aot_fault.h) */
    if (aot_fault_blocked())
        return AOT_PASS_SIGMASK;
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

/* The converting half (guarded.c) for a call its site's governor converts: 0 with *rc set, or
 * the reason it could not convert.  A site whose call cannot be converted runs natively from
 * then on, for that reason (aot_pg_site_unfit): its governor would otherwise measure native
 * calls as its candidates'.  Not for a lack of memory (it passes). */
static int aot_pg_convert_site(struct aot_pg_call *c, int *rc)
{
    int why = aot_pg_guarded(c, rc);

    if (why && why != AOT_PASS_GUARD_CAP)
        aot_pg_site_unfit(c->site, why);
    return why;
}

/* ---------------------------------------------------------------- the entry points */

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
             aot_pg_below_min(c.s.bytes, 0, aot_cfg.convert_min))
        why = AOT_PASS_BELOW_MIN;
    /* MPI_Ssend's return says the message was matched: never from a copy */
    if (!why)
        why = aot_pg_govern(&c, fn != AOT_FN_MPI_Ssend);
    /* only a call that converts needs the communicator check (three MPI calls) and the
     * footprint: the governor's native occurrences skip both */
    if (!why && !(why = aot_pg_convert_site(&c, &rc)))
        return rc;
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
             (aot_pg_below_min(0, c.r.bytes, aot_cfg.convert_min) || c.r.bytes == 0))
        why = AOT_PASS_BELOW_MIN;
    if (!why)
        why = aot_pg_govern(&c, 0);
    if (!why && !(why = aot_pg_convert_site(&c, &rc)))
        return rc;
    aot_pg_part_free(&c.r);
    aot_stats_pass(AOT_FN_MPI_Recv, (enum aot_pass_reason) why);
    return aot_pg_pass_recv(buf, count, dt, source, tag, comm, status);
}

/* MPI_Sendrecv and MPI_Sendrecv_replace check both parts (aot_pg_call_sizes).  A part whose
 * peer is MPI_PROC_NULL is done by MPI at once (it moves nothing) and only the other one
 * converts. */
int aot_paging_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                        void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                        MPI_Comm comm, MPI_Status *status, const void *site)
{
    struct aot_pg_call c = { .fn = AOT_FN_MPI_Sendrecv, .site = site, .comm = comm, .dest = dest,
                             .stag = stag, .source = source, .rtag = rtag, .status = status };
    int why = aot_pg_call_sizes(&c, sbuf, scount, sdt, rbuf, rcount, rdt, aot_cfg.convert_min),
        rc;

    if (!why)
        why = aot_pg_govern(&c, 1);
    if (!why && !(why = aot_pg_convert_site(&c, &rc)))
        return rc;
    aot_pg_part_free(&c.s);
    aot_pg_part_free(&c.r);
    aot_stats_pass(AOT_FN_MPI_Sendrecv, (enum aot_pass_reason) why);
    return aot_pg_pass_sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag,
                                comm, status);
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
    int why = aot_pg_call_sizes(&c, buf, count, dt, buf, count, dt, aot_cfg.convert_min), rc;

    if (!why)
        why = aot_pg_govern(&c, 0);   /* its send is a copy in any case: guarded or native */
    if (!why && !(why = aot_pg_convert_site(&c, &rc)))
        return rc;
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

    /* the checks of aot_paging_send, _recv and aot_pg_call_sizes that do not depend on
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
