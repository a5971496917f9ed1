/*
 * allgatherv_pair.c: allgatherv, pair.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Pair -- p-1 steps; at step k a rank exchanges its own block with rank XOR k.
 * Restrictions: power-of-two communicator sizes (AOT_R_POF2).
 * Cost = (p-1)α + (p-1)mβ
 *   (m: bytes of the largest block)
 * Engine: engines/allgatherv_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_allgatherv_pair(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                        const int *rcounts, const int *displs, MPI_Datatype rdt,
                        const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_allgatherv_exchange(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm, 1,
                                   AOT_SYNC_NONE, 0);
}
