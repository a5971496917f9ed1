/*
 * alltoall_ring_light_barrier.c: alltoall, ring with light barrier.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Ring with light barrier -- p-1 steps; at step k a rank sends its block for rank+k
 * and receives the block of rank-k.
 * Before every step after the first, the receiver of the step sends its sender a zero-byte
 * "ready" message, so data only flows into a rank that has finished its previous step.
 * Restrictions: none.
 * Cost = 2(p-1)α + (p-1)mβ
 *   (m: bytes of one block, p blocks per rank)
 * Engine: engines/alltoall_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_alltoall_ring_light_barrier(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                    int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_alltoall_exchange(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 0, AOT_SYNC_LIGHT, 0);
}
