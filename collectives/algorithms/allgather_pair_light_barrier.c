/*
 * allgather_pair_light_barrier.c: allgather, pair with light barrier.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Pair with light barrier -- p-1 steps; at step k a rank exchanges its own block
 * with rank XOR k.
 * Before every step after the first, the receiver of the step sends its sender a zero-byte
 * "ready" message, so data only flows into a rank that has finished its previous step.
 * Restrictions: power-of-two communicator sizes (AOT_R_POF2).
 * Cost = 2(p-1)α + (p-1)mβ
 *   (m: bytes of one block)
 * Engine: engines/allgather_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_allgather_pair_light_barrier(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                     int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_allgather_exchange(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 1, AOT_SYNC_LIGHT, 0);
}
