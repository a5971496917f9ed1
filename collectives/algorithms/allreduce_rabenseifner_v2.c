/*
 * allreduce_rabenseifner_v2.c: allreduce, Rabenseifner variation 2.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Rabenseifner variation 2 -- the reduce-scatter is an alltoall of chunks of
 * b = ceil(n/p) elements (rank j receives chunk j of every vector) followed by a local
 * reduction of the p chunks in rank order; the allgather of the reduced chunks follows.  Both
 * the alltoall and the allgather are the ones autoopt selects for b elements (forced, tuned
 * or native).
 * Restrictions: none (the local reduction runs in rank order; the order of operations is
 * fixed for a given size).
 * Cost = alltoall(n/p per pair) + ((p-1)/p)nγ + allgather(n/p) + local copies of 2n
 *   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_run.h"
#include "coll_util.h"

int aot_allreduce_rabenseifner_v2(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                  MPI_Op op, const struct aot_coll_ctx *ctx)
{
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    struct aot_dt d;
    void *raw_s = NULL, *raw_r = NULL, *sendv, *recvv, *acc;
    int p = ctx->size, rank = ctx->rank, b, mine, rc;

    rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    b = (count + p - 1) / p;
    mine = rank * b < count ? (count - rank * b < b ? count - rank * b : b) : 0;
    sendv = aot_coll_tmp_padded((MPI_Aint) p * b, count, &d, &raw_s);
    recvv = aot_coll_tmp((MPI_Aint) p * b, &d, &raw_r);
    if (!sendv || !recvv) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    rc = aot_coll_copy(in, count, dt, sendv, count, dt);   /* the padding stays zero */
    if (rc == MPI_SUCCESS)
        rc = aot_coll_run_alltoall(sendv, b, dt, recvv, b, dt, ctx);
    /* x0 op (x1 op (... op x(p-1))) over my chunk, accumulated in the last slot */
    acc = AOT_AT(recvv, (MPI_Aint) (p - 1) * b, d.extent);
    for (int j = p - 2; j >= 0 && rc == MPI_SUCCESS; j--)
        rc = aot_coll_reduce_local(AOT_AT(recvv, (MPI_Aint) j * b, d.extent), acc, mine, dt, op);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_run_allgather(acc, b, dt, sendv, b, dt, ctx);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_copy(sendv, count, dt, rbuf, count, dt);
out:
    aot_coll_free(raw_s);
    aot_coll_free(raw_r);
    return rc;
}
