/*
 * allgather_topo_ring.c: allgather, topology-ordered logical ring (Faraj & Yuan).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Topology ring -- the ring of allgather ring, but over the ranks in topology order
 * (struct aot_coll_hier: switches in depth-first order of the switch tree, then hosts, then
 * ranks).  Consecutive ranks of the ring share a host or a switch wherever they can, and the
 * ring leaves and re-enters every subtree of the switch tree once, so each uplink carries
 * exactly one flow per direction in every step: no two messages of a step share a link.
 * Without a topology (AUTOOPT_TOPOLOGY unset) the ranks of one host are consecutive, so only
 * one flow per direction leaves each host.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ, contention-free on a tree of switches
 *   (m: bytes of one block), plus the hierarchy once per communicator (aot_coll_hier).
 * Engine: engines/allgather_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_allgather_topo_ring(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    const struct aot_coll_hier *h;
    int rc = aot_coll_hier(ctx, &h);

    if (rc != MPI_SUCCESS)
        return rc;
    return aot_allgather_exchange_ordered(sbuf, scount, sdt, rbuf, rcount, rdt, ctx->comm, 0,
                                          AOT_SYNC_NONE, 0, h->order, h->place);
}
