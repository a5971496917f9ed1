/*
 * barrier_dissemination.c: barrier, dissemination.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Dissemination (Hensgen, Finkel, Manber) -- in round k = 0 .. ceil(lg p)-1 a rank
 * signals rank + 2^k and waits for rank - 2^k (mod p).
 * Restrictions: none.
 * Cost = ceil(lg p)α
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_barrier_dissemination(const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int p = ctx->size, rank = ctx->rank, rc = MPI_SUCCESS;

    for (int d = 1; d < p && rc == MPI_SUCCESS; d <<= 1)
        rc = PMPI_Sendrecv(NULL, 0, MPI_BYTE, (rank + d) % p, AOT_TAG_BARRIER, NULL, 0, MPI_BYTE,
                           (rank - d + p) % p, AOT_TAG_BARRIER, comm, MPI_STATUS_IGNORE);
    return rc;
}
