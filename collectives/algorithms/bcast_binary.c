/*
 * bcast_binary.c: broadcast, binary tree.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Binary tree -- the whole message goes down a binary tree over ranks numbered
 * relative to the root (aot_coll_binary_node): receive from the parent, send to both
 * children at once.
 * Restrictions: none.
 * Cost = about lg p·(α + 2nβ)   (n: bytes of the message; two sends per level)
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_bcast_binary(void *buf, int count, MPI_Datatype dt, int root,
                     const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    struct aot_bnode nd;
    MPI_Request req[2];
    int p = ctx->size, rank = ctx->rank, n = 0, rc = MPI_SUCCESS;

    aot_coll_binary_node((rank - root + p) % p, p, &nd);
    if (nd.parent >= 0)
        rc = PMPI_Recv(buf, count, dt, (nd.parent + root) % p, AOT_TAG_BCAST, comm,
                       MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && nd.left >= 0)
        rc = PMPI_Isend(buf, count, dt, (nd.left + root) % p, AOT_TAG_BCAST, comm, &req[n++]);
    if (rc == MPI_SUCCESS && nd.right >= 0)
        rc = PMPI_Isend(buf, count, dt, (nd.right + root) % p, AOT_TAG_BCAST, comm, &req[n++]);
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    return rc;
}
