/*
 * alltoallv_spreading_simple.c: alltoallv, spreading simple.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Spreading simple -- like simple, but rank r posts its messages in the order
 * r+1, r+2, ..., r-1, so that at any moment the ranks target different peers.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ
 *   (m: bytes of the largest block)
 * Engine: engines/alltoallv_posted.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_alltoallv_spreading_simple(const void *sbuf, const int *scounts, const int *sdispls,
                                   MPI_Datatype sdt, void *rbuf, const int *rcounts,
                                   const int *rdispls, MPI_Datatype rdt,
                                   const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_alltoallv_posted(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm,
                                1);
}
