/*
 * barrier_linear.c: barrier, linear.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Linear -- every rank sends a zero-byte message to rank 0 and waits for its
 * answer; rank 0 answers everyone once it has heard from everyone.
 * Restrictions: none.
 * Cost = 2(p-1)α at rank 0
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_barrier_linear(const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    MPI_Request *req;
    int p = ctx->size, rank = ctx->rank, n = 0, rc = MPI_SUCCESS;

    if (rank != 0)
        return PMPI_Sendrecv(NULL, 0, MPI_BYTE, 0, AOT_TAG_BARRIER, NULL, 0, MPI_BYTE, 0,
                             AOT_TAG_BARRIER, comm, MPI_STATUS_IGNORE);
    req = malloc((size_t) p * sizeof(*req));
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++)
        rc = PMPI_Irecv(NULL, 0, MPI_BYTE, i, AOT_TAG_BARRIER, comm, &req[n++]);
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    n = 0;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++)
        rc = PMPI_Isend(NULL, 0, MPI_BYTE, i, AOT_TAG_BARRIER, comm, &req[n++]);
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    free(req);
    return rc;
}
