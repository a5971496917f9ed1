/*
 * allgatherv_simple.c: allgatherv, simple.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Simple -- every rank posts p-1 receives and sends its block to the p-1 others at
 * once (peers rank+1, rank+2, ...), and waits for all of them.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ
 *   (m: bytes of the largest block)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_allgatherv_simple(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          const int *rcounts, const int *displs, MPI_Datatype rdt,
                          const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    MPI_Aint lb, rext;
    MPI_Request *req;
    int p = ctx->size, rank = ctx->rank, n = 0, rc = MPI_SUCCESS;

    PMPI_Type_get_extent(rdt, &lb, &rext);
    req = malloc(2 * (size_t) p * sizeof(*req));
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int src = (rank - k + p) % p;
        rc = PMPI_Irecv(AOT_AT(rbuf, displs[src], rext), rcounts[src], rdt, src,
                        AOT_TAG_ALLGATHERV, comm, &req[n++]);
    }
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++)
        rc = PMPI_Isend(sbuf, scount, sdt, (rank + k) % p, AOT_TAG_ALLGATHERV, comm, &req[n++]);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_copy(sbuf, scount, sdt, AOT_AT(rbuf, displs[rank], rext), rcounts[rank],
                           rdt);
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    free(req);
    return rc;
}
