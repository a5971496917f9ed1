/*
 * native_inline.h: the native mechanism's fast-path half (mech/native.c has the rest).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Static inline, and the two the wrappers' fast path runs always inline: a chain member taken
 * there costs what it did when this code sat in chains.c (intercept/route.c flattens the fast
 * path with LTO; docs/chains.md, "Cost per call, counted").  Included by the policy (chains/)
 * and by the mechanisms of mech/, never by paging/ or src/.
 *
 * The table holds the requests started without a guard (aot_native_post) and by copied sends
 * (copy.c): the policy completes them all at once (aot_native_complete) at the end of a chain,
 * at a break and at MPI_Finalize.  Entries of held are flags that a pending request keeps set
 * (a copy's busy): completing the table clears them.
 */
#ifndef AOT_NATIVE_INLINE_H_INCLUDED
#define AOT_NATIVE_INLINE_H_INCLUDED

#include <mpi.h>

#include "aot_functions.h"
#include "aot_mech.h"
#include "aot_stats.h"

/* Two requests per member of the longest chain (AOT_CH_MAX_MEMBERS, 64), and two more. */
#define AOT_NATIVE_MAX_REQS (2 * 64 + 2)

extern MPI_Request aot_native_reqs[AOT_NATIVE_MAX_REQS];
extern int aot_native_nreqs;
extern int *aot_native_held[AOT_NATIVE_MAX_REQS];
extern int aot_native_nheld;
/* Counter ids (aot_native_init). */
extern struct aot_native_counters {
    int unguarded_requests, status_waits;
} aot_native_ctr;

/* Requests in the table, and flags held by them: one load each. */
static inline int aot_native_pending(void)
{
    return aot_native_nreqs;
}

static inline int aot_native_holding(void)
{
    return aot_native_nheld;
}

/* A call through PMPI, as the program made it (fn: MPI_Ssend, MPI_Send, MPI_Recv, else
 * MPI_Sendrecv). */
static inline __attribute__((always_inline)) int
aot_native_pmpi(int fn, const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag, MPI_Comm comm,
                MPI_Status *status)
{
    switch (fn) {
    case AOT_FN_MPI_Ssend:
        return PMPI_Ssend(sbuf, scount, sdt, dest, stag, comm);
    case AOT_FN_MPI_Send:
        return PMPI_Send(sbuf, scount, sdt, dest, stag, comm);
    case AOT_FN_MPI_Recv:
        return PMPI_Recv(rbuf, rcount, rdt, source, rtag, comm, status);
    default:
        return PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag,
                             comm, status);
    }
}

/* aot_native_pmpi of a call. */
static inline __attribute__((always_inline)) int aot_native_call(const struct aot_mech_call *c)
{
    return aot_native_pmpi(c->fn, c->sbuf, c->scount, c->sdt, c->dest, c->stag, c->rbuf,
                           c->rcount, c->rdt, c->source, c->rtag, c->comm, c->status);
}

/*
 * Starts a call's requests on the program's buffers, no guard: the receive when go & 2, the
 * send when go & 1; they complete with the table (aot_native_complete).  A receive whose status
 * the program reads when the call returns is waited for here, exactly as MPI fills it in, but
 * only once the send is under way: the peer may be waiting for that send in the same way (two
 * ranks exchanging with MPI_Sendrecv and statuses).  Always inlined: the fast path passes
 * constants for the status.
 */
static inline __attribute__((always_inline)) int
aot_native_post(int fn, const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                const void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                MPI_Comm comm, int go, MPI_Status *status)
{
    MPI_Request rreq = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS, rc2;

    if (aot_native_nreqs + 2 > AOT_NATIVE_MAX_REQS)
        aot_native_complete();
    if (go & 2)
        rc = PMPI_Irecv((void *) rbuf, rcount, rdt, source, rtag, comm, &rreq);
    if (go & 1) {
        MPI_Request *req = &aot_native_reqs[aot_native_nreqs];
        if (fn == AOT_FN_MPI_Ssend)
            rc2 = PMPI_Issend(sbuf, scount, sdt, dest, stag, comm, req);
        else
            rc2 = PMPI_Isend(sbuf, scount, sdt, dest, stag, comm, req);
        if (rc2 == MPI_SUCCESS)
            aot_native_nreqs++;
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    if (rreq != MPI_REQUEST_NULL) {
        if (status != MPI_STATUS_IGNORE) {
            rc2 = PMPI_Wait(&rreq, status);
            aot_stats_add_caller(aot_native_ctr.status_waits, 1);
            if (rc == MPI_SUCCESS)
                rc = rc2;
        } else {
            aot_native_reqs[aot_native_nreqs++] = rreq;
        }
    }
    aot_stats_add_caller(aot_native_ctr.unguarded_requests, (uint64_t) ((go & 1) + (go >> 1)));
    aot_stats_optimized(fn);
    return rc;
}

#endif /* AOT_NATIVE_INLINE_H_INCLUDED */
