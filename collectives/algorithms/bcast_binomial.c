/*
 * bcast_binomial.c: broadcast, binomial tree.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Binomial -- with ranks numbered relative to the root, rank v receives from
 * v - lowbit(v) and then sends to v + 2^j for every 2^j < lowbit(v), farthest first.
 * Restrictions: none.
 * Cost = ceil(lg p)(α + nβ)   (n: bytes of the message)
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_bcast_binomial(void *buf, int count, MPI_Datatype dt, int root,
                       const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int p = ctx->size, rank = ctx->rank, vrank, mask = 1, rc = MPI_SUCCESS;

    vrank = (rank - root + p) % p;
    while (mask < p) {
        if (vrank & mask) {
            rc = PMPI_Recv(buf, count, dt, (rank - mask + p) % p, AOT_TAG_BCAST, comm,
                           MPI_STATUS_IGNORE);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1)
        if (vrank + mask < p)
            rc = PMPI_Send(buf, count, dt, (rank + mask) % p, AOT_TAG_BCAST, comm);
    return rc;
}
