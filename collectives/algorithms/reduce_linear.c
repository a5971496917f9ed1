/*
 * reduce_linear.c: reduce, linear.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Linear -- every rank sends its vector to the root, which combines them in rank
 * order x0 op x1 op ... op x(p-1), receiving one at a time.
 * Restrictions: none (rank order keeps non-commutative operations right; the order of
 * operations is fixed).
 * Cost = (p-1)α + (p-1)nβ + (p-1)nγ   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_reduce_linear(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    struct aot_dt d;
    void *raw1 = NULL, *raw2 = NULL, *acc, *tmp;
    int p = ctx->size, rank = ctx->rank, rc;

    if (rank != root)
        return PMPI_Send(in, count, dt, root, AOT_TAG_REDUCE, comm);
    if (p == 1)
        return aot_coll_copy(in, count, dt, rbuf, count, dt);
    rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    acc = aot_coll_tmp(count, &d, &raw1);
    tmp = aot_coll_tmp(count, &d, &raw2);
    if (!acc || !tmp) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    if (root == 0)
        rc = aot_coll_copy(in, count, dt, acc, count, dt);
    else
        rc = PMPI_Recv(acc, count, dt, 0, AOT_TAG_REDUCE, comm, MPI_STATUS_IGNORE);
    for (int j = 1; j < p && rc == MPI_SUCCESS; j++) {
        void *swap;
        if (j == root)
            rc = aot_coll_copy(in, count, dt, tmp, count, dt);
        else
            rc = PMPI_Recv(tmp, count, dt, j, AOT_TAG_REDUCE, comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = aot_coll_reduce_local(acc, tmp, count, dt, op);   /* tmp = acc op x_j */
        swap = acc;
        acc = tmp;
        tmp = swap;
    }
    if (rc == MPI_SUCCESS)
        rc = aot_coll_copy(acc, count, dt, rbuf, count, dt);
out:
    aot_coll_free(raw1);
    aot_coll_free(raw2);
    return rc;
}
