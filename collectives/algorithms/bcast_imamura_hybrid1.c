/*
 * bcast_imamura_hybrid1.c: broadcast, Imamura's Hybrid1 composition S^j C...C M^j.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Hybrid1 with split depth j (parameter) -- the first j levels Split the message
 * (the root's group ends up holding 2^j pieces spread over 2^j sub-groups), the remaining
 * levels Copy each piece down its sub-group binomially, and j Merges put the pieces together.
 * j = 0 is the binomial tree, j >= ceil(lg p) van de Geijn.
 * Restrictions: none.
 * Cost = jα + (1 - 2^-j)nβ + (ceil(lg p) - j)(α + 2^-j·nβ) + jα + (1 - 2^-j)nβ
 *   (n: bytes of the message)
 * Engine: engines/bcast_csm.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_bcast_imamura_hybrid1(void *buf, int count, MPI_Datatype dt, int root,
                              const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    long param = ctx->param;
    char ops[32];
    int j = param < 0 ? 0 : param > 31 ? 31 : (int) param;

    for (int i = 0; i < j; i++)
        ops[i] = 'S';
    return aot_bcast_csm(buf, count, dt, root, comm, ops, j);
}
