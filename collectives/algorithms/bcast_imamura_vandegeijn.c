/*
 * bcast_imamura_vandegeijn.c: broadcast, Imamura's composition S...S M...M.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Imamura van de Geijn -- only Split steps (a scatter by recursive halving), then
 * the Merges in reverse order (an allgather by recursive doubling).
 * Restrictions: none.
 * Cost = 2ceil(lg p)α + 2((p-1)/p)nβ   (n: bytes of the message; p a power of two,
 *   about one extra α + (n/p)β per level otherwise)
 * Engine: engines/bcast_csm.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_bcast_imamura_vandegeijn(void *buf, int count, MPI_Datatype dt, int root,
                                 const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_bcast_csm(buf, count, dt, root, comm, "SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS", 32);
}
