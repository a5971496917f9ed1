/*
 * alltoallv_simple.c: alltoallv, simple.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Simple -- every rank posts all p-1 receives and p-1 sends at once, peers in the
 * order 0, 1, ..., p-1, and waits for all of them.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ, with contention: every rank starts with the same peer
 *   (m: bytes of the largest block)
 * Engine: engines/alltoallv_posted.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_alltoallv_simple(const void *sbuf, const int *scounts, const int *sdispls,
                         MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                         MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_alltoallv_posted(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm,
                                0);
}
