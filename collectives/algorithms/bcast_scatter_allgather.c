/*
 * bcast_scatter_allgather.c: broadcast, van de Geijn (scatter then allgather).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Van de Geijn -- the message is cut into p pieces (aot_coll_block_start); a
 * binomial scatter gives rank v (relative to the root) piece v, then a ring allgather over the
 * pieces completes the message everywhere.
 * Restrictions: none.
 * Cost = (ceil(lg p) + p - 1)α + 2((p-1)/p)nβ   (n: bytes of the message)
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_bcast_scatter_allgather(void *buf, int count, MPI_Datatype dt, int root,
                                const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    MPI_Aint lb, ext;
    int p = ctx->size, rank = ctx->rank, vrank, mask = 1, rc = MPI_SUCCESS;

    if (p == 1)
        return MPI_SUCCESS;
    PMPI_Type_get_extent(dt, &lb, &ext);
    vrank = (rank - root + p) % p;
#define AOT_START(i) aot_coll_block_start(count, p, (i) < p ? (i) : p)
#define AOT_PIECES(a, b) AOT_AT(buf, AOT_START(a), ext), AOT_START(b) - AOT_START(a), dt
#define AOT_REAL(v) (((v) + root) % p)

    /* binomial scatter: v receives pieces [v, v + lowbit(v)) */
    while (mask < p) {
        if (vrank & mask) {
            int hi = vrank + mask < p ? vrank + mask : p;
            rc = PMPI_Recv(AOT_PIECES(vrank, hi), AOT_REAL(vrank - mask), AOT_TAG_BCAST, comm,
                           MPI_STATUS_IGNORE);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1) {
        if (vrank + mask < p) {
            int hi = vrank + 2 * mask < p ? vrank + 2 * mask : p;
            rc = PMPI_Send(AOT_PIECES(vrank + mask, hi), AOT_REAL(vrank + mask), AOT_TAG_BCAST,
                           comm);
        }
    }

    /* ring allgather of the pieces */
    for (int k = 0; k < p - 1 && rc == MPI_SUCCESS; k++) {
        int sp = (vrank - k + p) % p, rp = (vrank - k - 1 + p) % p;
        rc = PMPI_Sendrecv(AOT_PIECES(sp, sp + 1), AOT_REAL((vrank + 1) % p), AOT_TAG_PHASE2,
                           AOT_PIECES(rp, rp + 1), AOT_REAL((vrank - 1 + p) % p), AOT_TAG_PHASE2,
                           comm, MPI_STATUS_IGNORE);
    }
#undef AOT_START
#undef AOT_PIECES
#undef AOT_REAL
    return rc;
}
