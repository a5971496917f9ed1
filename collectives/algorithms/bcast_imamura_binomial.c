/*
 * bcast_imamura_binomial.c: broadcast, Imamura's composition C...C.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Imamura binomial -- only Copy steps: at every level the group leader copies the
 * whole message to the leader of the upper half (a binomial tree built by halving).
 * Restrictions: none.
 * Cost = ceil(lg p)(α + nβ)   (n: bytes of the message)
 * Engine: engines/bcast_csm.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_bcast_imamura_binomial(void *buf, int count, MPI_Datatype dt, int root,
                               const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_bcast_csm(buf, count, dt, root, comm, "", 0);
}
