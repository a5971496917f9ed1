/*
 * alltoallv_ring_light_barrier.c: alltoallv, ring with light barrier.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Ring with light barrier -- p-1 steps; at step k a rank sends its block for rank+k
 * and receives the block of rank-k.
 * Before every step after the first, the receiver of the step sends its sender a zero-byte
 * "ready" message, so data only flows into a rank that has finished its previous step.
 * Restrictions: none.
 * Cost = 2(p-1)α + (p-1)mβ
 *   (m: bytes of the largest block)
 * Engine: engines/alltoallv_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_alltoallv_ring_light_barrier(const void *sbuf, const int *scounts, const int *sdispls,
                                     MPI_Datatype sdt, void *rbuf, const int *rcounts,
                                     const int *rdispls, MPI_Datatype rdt,
                                     const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_alltoallv_exchange(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm, 0,
                                  AOT_SYNC_LIGHT, 0);
}
