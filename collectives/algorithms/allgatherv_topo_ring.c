/*
 * allgatherv_topo_ring.c: allgatherv, topology-ordered logical ring (Faraj & Yuan).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Topology ring -- allgatherv ring over the ranks in topology order (switches in
 * depth-first order, then hosts, then ranks; see allgather_topo_ring.c): each uplink carries
 * one flow per direction in every step.  Without a topology, ranks of one host are consecutive.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ, contention-free on a tree of switches
 *   (m: bytes of the largest block), plus the hierarchy once per communicator.
 * Engine: engines/allgatherv_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_allgatherv_topo_ring(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             const int *rcounts, const int *displs, MPI_Datatype rdt,
                             const struct aot_coll_ctx *ctx)
{
    const struct aot_coll_hier *h;
    int rc = aot_coll_hier(ctx, &h);

    if (rc != MPI_SUCCESS)
        return rc;
    return aot_allgatherv_exchange_ordered(sbuf, scount, sdt, rbuf, rcounts, displs, rdt,
                                           ctx->comm, 0, AOT_SYNC_NONE, 0, h->order, h->place);
}
