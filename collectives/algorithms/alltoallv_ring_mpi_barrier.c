/*
 * alltoallv_ring_mpi_barrier.c: alltoallv, ring with MPI barrier.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Ring with MPI barrier -- p-1 steps; at step k a rank sends its block for rank+k
 * and receives the block of rank-k.
 * PMPI_Barrier between every two steps keeps all ranks in the same step.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ + (p-2)B
 *   (m: bytes of the largest block; B: one PMPI_Barrier, about ceil(lg p) small messages)
 * Engine: engines/alltoallv_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_alltoallv_ring_mpi_barrier(const void *sbuf, const int *scounts, const int *sdispls,
                                   MPI_Datatype sdt, void *rbuf, const int *rcounts,
                                   const int *rdispls, MPI_Datatype rdt,
                                   const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_alltoallv_exchange(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm, 0,
                                  AOT_SYNC_MPI, 0);
}
