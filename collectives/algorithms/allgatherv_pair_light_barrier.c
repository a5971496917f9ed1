/*
 * allgatherv_pair_light_barrier.c: allgatherv, pair with light barrier.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Pair with light barrier -- p-1 steps; at step k a rank exchanges its own block
 * with rank XOR k.
 * Before every step after the first, the receiver of the step sends its sender a zero-byte
 * "ready" message, so data only flows into a rank that has finished its previous step.
 * Restrictions: power-of-two communicator sizes (AOT_R_POF2).
 * Cost = 2(p-1)α + (p-1)mβ
 *   (m: bytes of the largest block)
 * Engine: engines/allgatherv_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_allgatherv_pair_light_barrier(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                      const int *rcounts, const int *displs, MPI_Datatype rdt,
                                      const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_allgatherv_exchange(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, 1,
                                   AOT_SYNC_LIGHT, 0);
}
