/*
 * alltoall_simple.c: alltoall, simple.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Simple -- every rank posts all p-1 receives and p-1 sends at once, peers in the
 * order 0, 1, ..., p-1, and waits for all of them.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ, with contention: every rank starts with the same peer
 *   (m: bytes of one block)
 * Engine: engines/alltoall_posted.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_alltoall_simple(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    return aot_alltoall_posted(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 0);
}
