/*
 * allgather_gather_bcast.c: allgather, gather then broadcast.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Gather-bcast -- rank 0 receives every block (all receives posted at once), then
 * broadcasts the whole receive buffer with the binomial broadcast.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ + ceil(lg p)(α + pmβ)
 *   (m: bytes of one block)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_allgather_gather_bcast(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                               int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    const struct aot_coll_ctx sub = aot_coll_ctx_with(ctx, 0);
    MPI_Aint lb, ext;
    int p = ctx->size, rank = ctx->rank, rc;

    PMPI_Type_get_extent(rdt, &lb, &ext);
    if (rank == 0) {
        MPI_Request *req = malloc((size_t) p * sizeof(*req));
        int n = 0;
        if (!req)
            return MPI_ERR_NO_MEM;
        rc = MPI_SUCCESS;
        for (int i = 1; i < p && rc == MPI_SUCCESS; i++)
            rc = PMPI_Irecv(AOT_AT(rbuf, (MPI_Aint) i * rcount, ext), rcount, rdt, i,
                            AOT_TAG_ALLGATHER, comm, &req[n++]);
        if (rc == MPI_SUCCESS)
            rc = aot_coll_copy(sbuf, scount, sdt, rbuf, rcount, rdt);
        if (n) {
            int wrc = aot_coll_waitall(n, req);
            if (rc == MPI_SUCCESS)
                rc = wrc;
        }
        free(req);
    } else {
        rc = PMPI_Send(sbuf, scount, sdt, 0, AOT_TAG_ALLGATHER, comm);
    }
    if (rc == MPI_SUCCESS)
        rc = aot_bcast_binomial(rbuf, p * rcount, rdt, 0, &sub);
    return rc;
}
