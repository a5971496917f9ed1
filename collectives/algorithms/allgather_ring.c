/*
 * allgather_ring.c: allgather, ring.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Ring -- p-1 steps; at step k a rank forwards to rank+1 the block it received at
 * step k-1 and receives block rank-k from rank-1.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ
 *   (m: bytes of one block)
 * Engine: engines/allgather_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_allgather_ring(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                       MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_allgather_exchange(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 0, AOT_SYNC_NONE, 0);
}
