/*
 * reduce_binary.c: reduce, binary tree.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Binary tree -- over the pre-order binary tree of aot_coll_binary_node, each rank
 * receives the results of its two subtrees at once and computes own op left op right (the
 * subtrees are the contiguous rank ranges just above it), then sends to its parent.
 * Commutative operations number ranks from the root; non-commutative ones use the real ranks
 * with rank 0 as the tree root, which then sends the result to the root.
 * Restrictions: none (the order of operations is fixed for a given size).
 * Cost = about lg p·(α + 2nβ + 2nγ), plus α + nβ for a non-commutative op with root != 0
 *   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_reduce_binary(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    const void *acc = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    struct aot_bnode nd;
    struct aot_dt d;
    MPI_Request req[2];
    void *raw[2] = {NULL, NULL}, *child[2] = {NULL, NULL};
    int p = ctx->size, rank = ctx->rank, commute, troot, nchild = 0, rc;

    rc = PMPI_Op_commutative(op, &commute);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    troot = commute ? root : 0;
    aot_coll_binary_node((rank - troot + p) % p, p, &nd);
#define AOT_REAL(v) (((v) + troot) % p)
    if (nd.left >= 0)
        nchild++;
    if (nd.right >= 0)
        nchild++;
    for (int c = 0; c < nchild && rc == MPI_SUCCESS; c++) {
        int from = c == 0 ? nd.left : nd.right;
        child[c] = aot_coll_tmp(count, &d, &raw[c]);
        if (!child[c]) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        rc = PMPI_Irecv(child[c], count, dt, AOT_REAL(from), AOT_TAG_REDUCE, comm, &req[c]);
    }
    for (int c = 0; c < nchild && rc == MPI_SUCCESS; c++) {
        rc = PMPI_Wait(&req[c], MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = aot_coll_reduce_local(acc, child[c], count, dt, op);  /* child = acc op child */
        acc = child[c];
    }
    if (rc == MPI_SUCCESS) {
        if (nd.parent >= 0)
            rc = PMPI_Send(acc, count, dt, AOT_REAL(nd.parent), AOT_TAG_REDUCE, comm);
        else if (rank == root)
            rc = aot_coll_copy(acc, count, dt, rbuf, count, dt);
        else
            rc = PMPI_Send(acc, count, dt, root, AOT_TAG_REDUCE, comm);
    }
    if (rc == MPI_SUCCESS && rank == root && rank != troot)
        rc = PMPI_Recv(rbuf, count, dt, troot, AOT_TAG_REDUCE, comm, MPI_STATUS_IGNORE);
#undef AOT_REAL
    aot_coll_free(raw[0]);
    aot_coll_free(raw[1]);
    return rc;
}
