/*
 * allreduce_reduce_bcast.c: allreduce, reduce then broadcast.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Reduce-bcast -- binomial reduce to rank 0 (reduce_binomial.c), then binomial
 * broadcast from rank 0 (bcast_binomial.c).
 * Restrictions: none (the binomial reduce keeps rank order with root 0; the order of
 * operations is fixed for a given size).
 * Cost = 2ceil(lg p)α + 2ceil(lg p)nβ + ceil(lg p)nγ   (n: bytes of the vector)
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"

int aot_allreduce_reduce_bcast(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                               MPI_Op op, const struct aot_coll_ctx *ctx)
{
    const struct aot_coll_ctx sub = aot_coll_ctx_with(ctx, 0);
    int rank = ctx->rank, rc;

    /* away from the root the reduce reads its input from sbuf, or from rbuf when in place */
    if (rank != 0 && sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    rc = aot_reduce_binomial(sbuf, rbuf, count, dt, op, 0, &sub);
    if (rc == MPI_SUCCESS)
        rc = aot_bcast_binomial(rbuf, count, dt, 0, &sub);
    return rc;
}
