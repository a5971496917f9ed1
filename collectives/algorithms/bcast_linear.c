/*
 * bcast_linear.c: broadcast, linear.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Linear -- the root posts a send to every other rank at once.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)nβ at the root   (n: bytes of the message)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_bcast_linear(void *buf, int count, MPI_Datatype dt, int root,
                     const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    MPI_Request *req;
    int p = ctx->size, rank = ctx->rank, n = 0, rc = MPI_SUCCESS;

    if (rank != root)
        return PMPI_Recv(buf, count, dt, root, AOT_TAG_BCAST, comm, MPI_STATUS_IGNORE);
    req = malloc((size_t) p * sizeof(*req));
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
        if (i != root)
            rc = PMPI_Isend(buf, count, dt, i, AOT_TAG_BCAST, comm, &req[n++]);
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    free(req);
    return rc;
}
