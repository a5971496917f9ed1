/*
 * allreduce_ring.c: allreduce, ring.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Ring -- the vector is cut into p blocks; a reduce-scatter of p-1 steps (send
 * block rank-k to the right neighbour, receive block rank-k-1 from the left and combine)
 * leaves rank r with the full result of block r+1, and an allgather of p-1 steps around the
 * same ring distributes the blocks.
 * Restrictions: commutative operations only (AOT_R_COMMUTATIVE: a block's partial result
 * wraps around the ring, out of rank order); the order of operations is fixed for a given
 * size.
 * Cost = 2(p-1)α + 2((p-1)/p)nβ + ((p-1)/p)nγ   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_allreduce_ring(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                       const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    struct aot_dt d;
    void *raw = NULL, *tmp;
    int p = ctx->size, rank = ctx->rank, left, right, rc;

    rc = aot_coll_dt(dt, &d);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        rc = aot_coll_copy(sbuf, count, dt, rbuf, count, dt);
    if (rc != MPI_SUCCESS || p == 1)
        return rc;
    tmp = aot_coll_tmp(count / p + 1, &d, &raw);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    left = (rank - 1 + p) % p;
    right = (rank + 1) % p;
#define AOT_BLOCK(i) AOT_AT(rbuf, aot_coll_block_start(count, p, i), d.extent), \
                     aot_coll_block_start(count, p, (i) + 1) - aot_coll_block_start(count, p, i)

    for (int k = 0; k < p - 1 && rc == MPI_SUCCESS; k++) {
        int sb = (rank - k + p) % p, rb = (rank - k - 1 + p) % p;
        int rlen = aot_coll_block_start(count, p, rb + 1) - aot_coll_block_start(count, p, rb);
        rc = PMPI_Sendrecv(AOT_BLOCK(sb), dt, right, AOT_TAG_ALLREDUCE, tmp, rlen, dt, left,
                           AOT_TAG_ALLREDUCE, comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = aot_coll_reduce_local(tmp, AOT_BLOCK(rb), dt, op);
    }
    for (int k = 0; k < p - 1 && rc == MPI_SUCCESS; k++) {
        int sb = (rank + 1 - k + p) % p, rb = (rank - k + p) % p;
        rc = PMPI_Sendrecv(AOT_BLOCK(sb), dt, right, AOT_TAG_ALLREDUCE, AOT_BLOCK(rb), dt, left,
                           AOT_TAG_ALLREDUCE, comm, MPI_STATUS_IGNORE);
    }
#undef AOT_BLOCK
    aot_coll_free(raw);
    return rc;
}
