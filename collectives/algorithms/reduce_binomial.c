/*
 * reduce_binomial.c: reduce, binomial tree.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Binomial -- rank v receives the partial results of v+1, v+2, v+4, ... (while
 * those are below v + lowbit(v)) and sends its own to v - lowbit(v).  Every subtree is a
 * contiguous range of ranks and partial results combine as (lower range) op (upper range).
 * Commutative operations number ranks from the root; non-commutative ones use the real ranks
 * with rank 0 as the tree root, which then sends the result to the root.
 * Restrictions: none (the order of operations is fixed for a given size).
 * Cost = ceil(lg p)(α + nβ + nγ), plus α + nβ for a non-commutative op with root != 0
 *   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_reduce_binomial(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        int root, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    const void *acc = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    struct aot_dt d;
    void *raw[2] = {NULL, NULL}, *buf[2] = {NULL, NULL};
    int p = ctx->size, rank = ctx->rank, commute, troot, vrank, next = 0, rc;

    rc = PMPI_Op_commutative(op, &commute);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    troot = commute ? root : 0;
    vrank = (rank - troot + p) % p;
    for (int mask = 1; mask < p && rc == MPI_SUCCESS; mask <<= 1) {
        if (vrank & mask) {
            rc = PMPI_Send(acc, count, dt, (vrank - mask + troot) % p, AOT_TAG_REDUCE, comm);
            break;
        }
        if (vrank + mask < p) {
            if (!buf[next] && !(buf[next] = aot_coll_tmp(count, &d, &raw[next]))) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            rc = PMPI_Recv(buf[next], count, dt, (vrank + mask + troot) % p, AOT_TAG_REDUCE,
                           comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                /* the upper range's partial becomes acc op upper */
                rc = aot_coll_reduce_local(acc, buf[next], count, dt, op);
            acc = buf[next];
            next ^= 1;
        }
    }
    if (rc == MPI_SUCCESS && vrank == 0) {
        if (rank == root)
            rc = aot_coll_copy(acc, count, dt, rbuf, count, dt);
        else
            rc = PMPI_Send(acc, count, dt, root, AOT_TAG_REDUCE, comm);
    }
    if (rc == MPI_SUCCESS && rank == root && rank != troot)
        rc = PMPI_Recv(rbuf, count, dt, troot, AOT_TAG_REDUCE, comm, MPI_STATUS_IGNORE);
    aot_coll_free(raw[0]);
    aot_coll_free(raw[1]);
    return rc;
}
