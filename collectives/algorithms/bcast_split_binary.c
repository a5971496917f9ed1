/*
 * bcast_split_binary.c: broadcast, split binary tree.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Split binary -- the root cuts the message in two halves and sends the first down
 * its left subtree and the second down its right subtree (aot_coll_binary_node, ranks relative
 * to the root).  Then the i-th rank of the left subtree and the i-th rank of the right subtree
 * swap halves; when the left subtree has one rank more, the root sends that rank the second
 * half.
 * Restrictions: none.
 * Cost = about lg p·(α + nβ) + α + (n/2)β   (n: bytes of the message)
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_bcast_split_binary(void *buf, int count, MPI_Datatype dt, int root,
                           const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    struct aot_bnode top, nd;
    MPI_Request req[3];
    MPI_Aint lb, ext;
    int p = ctx->size, rank = ctx->rank, vrank, n = 0, rc = MPI_SUCCESS;
    int half[2][2], side, nleft, nright;

    if (p == 1)
        return MPI_SUCCESS;
    PMPI_Type_get_extent(dt, &lb, &ext);
    vrank = (rank - root + p) % p;
    half[0][0] = 0;
    half[0][1] = (count + 1) / 2;
    half[1][0] = half[0][1];
    half[1][1] = count;
    aot_coll_binary_node(0, p, &top);
    nleft = top.lhi - 1;
    nright = p - top.lhi;
#define AOT_HALF(h) AOT_AT(buf, half[h][0], ext), half[h][1] - half[h][0], dt
#define AOT_REAL(v) (((v) + root) % p)

    if (vrank == 0) {
        /* tree phase: one half per subtree; the extra left rank gets the second half too */
        if (top.left >= 0)
            rc = PMPI_Isend(AOT_HALF(0), AOT_REAL(top.left), AOT_TAG_BCAST, comm, &req[n++]);
        if (rc == MPI_SUCCESS && top.right >= 0)
            rc = PMPI_Isend(AOT_HALF(1), AOT_REAL(top.right), AOT_TAG_BCAST, comm, &req[n++]);
        if (rc == MPI_SUCCESS && nleft > nright)
            rc = PMPI_Isend(AOT_HALF(1), AOT_REAL(nleft), AOT_TAG_PHASE2, comm, &req[n++]);
        if (n) {
            int wrc = aot_coll_waitall(n, req);
            if (rc == MPI_SUCCESS)
                rc = wrc;
        }
        return rc;
    }

    side = vrank < top.lhi ? 0 : 1;
    aot_coll_binary_node(vrank, p, &nd);
    rc = PMPI_Recv(AOT_HALF(side), AOT_REAL(nd.parent), AOT_TAG_BCAST, comm, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && nd.left >= 0)
        rc = PMPI_Isend(AOT_HALF(side), AOT_REAL(nd.left), AOT_TAG_BCAST, comm, &req[n++]);
    if (rc == MPI_SUCCESS && nd.right >= 0)
        rc = PMPI_Isend(AOT_HALF(side), AOT_REAL(nd.right), AOT_TAG_BCAST, comm, &req[n++]);
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    if (rc != MPI_SUCCESS)
        return rc;

    /* swap phase: left rank 1+i <-> right rank lhi+i */
    if (side == 0) {
        int i = vrank - 1;
        if (i < nright)
            rc = PMPI_Sendrecv(AOT_HALF(0), AOT_REAL(top.lhi + i), AOT_TAG_PHASE2, AOT_HALF(1),
                               AOT_REAL(top.lhi + i), AOT_TAG_PHASE2, comm, MPI_STATUS_IGNORE);
        else
            rc = PMPI_Recv(AOT_HALF(1), AOT_REAL(0), AOT_TAG_PHASE2, comm, MPI_STATUS_IGNORE);
    } else {
        int i = vrank - top.lhi;
        rc = PMPI_Sendrecv(AOT_HALF(1), AOT_REAL(1 + i), AOT_TAG_PHASE2, AOT_HALF(0),
                           AOT_REAL(1 + i), AOT_TAG_PHASE2, comm, MPI_STATUS_IGNORE);
    }
#undef AOT_HALF
#undef AOT_REAL
    return rc;
}
