/*
 * alltoall_topo_pair.c: alltoall, pairwise exchange in contention-free phases on the switch
 * tree.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Topology pair -- the phases of engines/topo_sched.c: in each phase every rank
 * exchanges blocks with at most one partner (one PMPI_Sendrecv) and every link -- a host's
 * link to its switch, a switch's uplink -- carries at most one exchange, so at most one flow
 * per direction; the uplinks, which carry the most exchanges, are scheduled first.  Two
 * switches of a and b hosts take max(p-1, a·b) phases, the least any schedule with one flow
 * per uplink direction can take.  Without a topology only host links count: the ranks of one
 * host take turns with traffic leaving the host.  Phases are not separated by barriers: each
 * rank goes through its own partners in phase order, skipping the phases it sits out.
 * Restrictions: none (any size, odd sizes, uneven switches, no topology).
 * Cost = F(α + mβ), F = max(p-1 (p even) or p (odd), the largest link load), against
 *   (p-1)(α + mβ) + γ_l for the topology-blind ring (m: bytes of one block), plus the
 *   hierarchy and the schedule (O(p²·F) local work) once per communicator.
 * Engine: engines/topo_sched.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_alltoall_topo_pair(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    const struct aot_topo_sched *s;
    MPI_Aint lb, sext, rext;
    int me = ctx->rank, rc = aot_coll_topo_sched(ctx, &s);

    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Type_get_extent(sdt, &lb, &sext);
    PMPI_Type_get_extent(rdt, &lb, &rext);
    rc = aot_coll_copy(AOT_AT(sbuf, (MPI_Aint) me * scount, sext), scount, sdt,
                       AOT_AT(rbuf, (MPI_Aint) me * rcount, rext), rcount, rdt);
    for (int f = 0; f < s->nphases && rc == MPI_SUCCESS; f++) {
        int q = s->partner[f];
        if (q >= 0)
            rc = PMPI_Sendrecv(AOT_AT(sbuf, (MPI_Aint) q * scount, sext), scount, sdt, q,
                               AOT_TAG_ALLTOALL, AOT_AT(rbuf, (MPI_Aint) q * rcount, rext),
                               rcount, rdt, q, AOT_TAG_ALLTOALL, ctx->comm, MPI_STATUS_IGNORE);
    }
    return rc;
}
