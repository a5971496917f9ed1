/*
 * bcast_chain.c: broadcast, pipelined chain.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Pipelined chain -- ranks relative to the root form a chain 0 -> 1 -> ... -> p-1;
 * the message travels in segments of `segment` bytes (parameter, rounded down to whole
 * elements, at least one), each rank forwarding a segment as soon as it has it.
 * Restrictions: none.
 * Cost = (p - 1 + k - 1)(α + sβ), k = ceil(n/s) segments of s bytes   (n: bytes of the message)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_bcast_chain(void *buf, int count, MPI_Datatype dt, int root, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    long param = ctx->param;
    MPI_Request *req = NULL;
    MPI_Aint lb, ext;
    int p = ctx->size, rank = ctx->rank, vrank, tsz, seg, nseg, n = 0, rc = MPI_SUCCESS;

    PMPI_Type_size(dt, &tsz);
    PMPI_Type_get_extent(dt, &lb, &ext);
    if (p == 1 || count == 0)
        return MPI_SUCCESS;
    vrank = (rank - root + p) % p;
    seg = tsz > 0 && param / tsz > 0 ? (int) (param / tsz) : 1;
    if (seg > count)
        seg = count;
    nseg = (count + seg - 1) / seg;
    if (vrank < p - 1) {
        req = malloc((size_t) nseg * sizeof(*req));
        if (!req)
            return MPI_ERR_NO_MEM;
    }
    for (int s = 0; s < nseg && rc == MPI_SUCCESS; s++) {
        int first = s * seg, len = count - first < seg ? count - first : seg;
        if (vrank > 0)
            rc = PMPI_Recv(AOT_AT(buf, first, ext), len, dt, (rank - 1 + p) % p, AOT_TAG_BCAST,
                           comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && vrank < p - 1)
            rc = PMPI_Isend(AOT_AT(buf, first, ext), len, dt, (rank + 1) % p, AOT_TAG_BCAST,
                            comm, &req[n++]);
    }
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    free(req);
    return rc;
}
