/*
 * alltoall_pair_mpi_barrier.c: alltoall, pair with MPI barrier.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Pair with MPI barrier -- p-1 steps; at step k a rank exchanges blocks with rank
 * XOR k.
 * PMPI_Barrier between every two steps keeps all ranks in the same step.
 * Restrictions: power-of-two communicator sizes (AOT_R_POF2).
 * Cost = (p-1)α + (p-1)mβ + (p-2)B
 *   (m: bytes of one block, p blocks per rank; B: one PMPI_Barrier, about ceil(lg p) small
 * messages)
 * Engine: engines/alltoall_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_alltoall_pair_mpi_barrier(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                  int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_alltoall_exchange(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 1, AOT_SYNC_MPI, 0);
}
