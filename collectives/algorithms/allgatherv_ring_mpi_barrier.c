/*
 * allgatherv_ring_mpi_barrier.c: allgatherv, ring with MPI barrier.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Ring with MPI barrier -- p-1 steps; at step k a rank forwards to rank+1 the block
 * it received at step k-1 and receives block rank-k from rank-1.
 * PMPI_Barrier between every two steps keeps all ranks in the same step.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ + (p-2)B
 *   (m: bytes of the largest block; B: one PMPI_Barrier, about ceil(lg p) small messages)
 * Engine: engines/allgatherv_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_allgatherv_ring_mpi_barrier(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                    const int *rcounts, const int *displs, MPI_Datatype rdt,
                                    const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_allgatherv_exchange(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, 0,
                                   AOT_SYNC_MPI, 0);
}
