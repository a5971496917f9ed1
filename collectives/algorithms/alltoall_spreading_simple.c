/*
 * alltoall_spreading_simple.c: alltoall, spreading simple.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Spreading simple -- like simple, but rank r posts its messages in the order
 * r+1, r+2, ..., r-1, so that at any moment the ranks target different peers.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ
 *   (m: bytes of one block)
 * Engine: engines/alltoall_posted.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_alltoall_spreading_simple(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                  int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_alltoall_posted(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 1);
}
