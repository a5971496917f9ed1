/*
 * barrier_tree.c: barrier, k-ary tree.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Tree with fan-in k (parameter) -- rank r waits for its children r*k+1 .. r*k+k,
 * reports to its parent (r-1)/k, waits for the release from the parent and releases its
 * children.
 * Restrictions: none.
 * Cost = 2ceil(log_k p)·kα (a node handles its k children one after another)
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_barrier_tree(const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    long param = ctx->param;
    MPI_Request req[1024];
    int p = ctx->size, rank = ctx->rank, n = 0;
    int k = param < 2 ? 2 : param > 1024 ? 1024 : (int) param;
    int rc = MPI_SUCCESS;

    for (long c = (long) rank * k + 1; c <= (long) rank * k + k && c < p && rc == MPI_SUCCESS; c++)
        rc = PMPI_Irecv(NULL, 0, MPI_BYTE, (int) c, AOT_TAG_BARRIER, comm, &req[n++]);
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    if (rc == MPI_SUCCESS && rank > 0)
        rc = PMPI_Sendrecv(NULL, 0, MPI_BYTE, (rank - 1) / k, AOT_TAG_BARRIER, NULL, 0, MPI_BYTE,
                           (rank - 1) / k, AOT_TAG_BARRIER, comm, MPI_STATUS_IGNORE);
    n = 0;
    for (long c = (long) rank * k + 1; c <= (long) rank * k + k && c < p && rc == MPI_SUCCESS; c++)
        rc = PMPI_Isend(NULL, 0, MPI_BYTE, (int) c, AOT_TAG_BARRIER, comm, &req[n++]);
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    return rc;
}
