/*
 * allreduce_recursive_doubling.c: allreduce, recursive doubling.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Recursive doubling -- lg p steps; at step i a rank exchanges its whole partial
 * result with rank XOR 2^i and combines (lower rank's) op (upper rank's).  Non-powers of two:
 * the first 2*rem ranks pair up before (the even rank hands its vector to the odd one) and
 * after (the odd rank returns the result).
 * Restrictions: none (partial results cover contiguous rank ranges; the order of operations
 * is fixed for a given size).
 * Cost = lg p·(α + nβ + nγ)   (p a power of two; otherwise + 2(α + nβ) + nγ)
 *   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_allreduce_recursive_doubling(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                     MPI_Op op, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    struct aot_halving h;       /* only for the pairing of the extra ranks */
    struct aot_dt d;
    void *raw = NULL, *acc = rbuf, *other;
    int rc;

    rc = aot_coll_dt(dt, &d);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        rc = aot_coll_copy(sbuf, count, dt, rbuf, count, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    aot_halving_init(&h, comm);
    if (h.p == 1)
        return MPI_SUCCESS;
    other = aot_coll_tmp(count, &d, &raw);
    if (!other)
        return MPI_ERR_NO_MEM;

    if (h.rank < 2 * h.rem) {
        if (h.newrank < 0) {
            rc = PMPI_Send(rbuf, count, dt, h.rank + 1, AOT_TAG_ALLREDUCE, comm);
        } else {
            rc = PMPI_Recv(other, count, dt, h.rank - 1, AOT_TAG_ALLREDUCE, comm,
                           MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = aot_coll_reduce_local(other, rbuf, count, dt, op);
        }
    }
    for (int mask = 1; h.newrank >= 0 && mask < h.pof2 && rc == MPI_SUCCESS; mask <<= 1) {
        int partner = aot_halving_rank(&h, h.newrank ^ mask);
        rc = PMPI_Sendrecv(acc, count, dt, partner, AOT_TAG_ALLREDUCE, other, count, dt, partner,
                           AOT_TAG_ALLREDUCE, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            break;
        if (partner < h.rank) {
            rc = aot_coll_reduce_local(other, acc, count, dt, op);  /* theirs op mine */
        } else {
            void *swap = acc;
            rc = aot_coll_reduce_local(acc, other, count, dt, op);  /* mine op theirs */
            acc = other;
            other = swap;
        }
    }
    if (rc == MPI_SUCCESS && h.rank < 2 * h.rem) {
        if (h.newrank >= 0)
            rc = PMPI_Send(acc, count, dt, h.rank - 1, AOT_TAG_ALLREDUCE, comm);
        else
            rc = PMPI_Recv(rbuf, count, dt, h.rank + 1, AOT_TAG_ALLREDUCE, comm,
                           MPI_STATUS_IGNORE);
    }
    if (rc == MPI_SUCCESS && acc != rbuf)
        rc = aot_coll_copy(acc, count, dt, rbuf, count, dt);
    aot_coll_free(raw);
    return rc;
}
