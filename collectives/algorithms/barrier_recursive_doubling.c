/*
 * barrier_recursive_doubling.c: barrier, recursive doubling.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Recursive doubling -- ranks below pof2 = 2^floor(lg p) exchange zero-byte
 * messages with rank XOR 2^k for k = 0 .. lg(pof2)-1.  A rank r >= pof2 first reports to
 * r - pof2 and is released by it at the end.
 * Restrictions: none.
 * Cost = lg p·α   (p a power of two; otherwise + 2α)
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_barrier_recursive_doubling(const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int p = ctx->size, rank = ctx->rank, pof2, rc = MPI_SUCCESS;

    pof2 = aot_coll_pof2_floor(p);
    if (rank >= pof2)
        return PMPI_Sendrecv(NULL, 0, MPI_BYTE, rank - pof2, AOT_TAG_BARRIER, NULL, 0, MPI_BYTE,
                             rank - pof2, AOT_TAG_BARRIER, comm, MPI_STATUS_IGNORE);
    if (rank + pof2 < p)
        rc = PMPI_Recv(NULL, 0, MPI_BYTE, rank + pof2, AOT_TAG_BARRIER, comm, MPI_STATUS_IGNORE);
    for (int mask = 1; mask < pof2 && rc == MPI_SUCCESS; mask <<= 1)
        rc = PMPI_Sendrecv(NULL, 0, MPI_BYTE, rank ^ mask, AOT_TAG_BARRIER, NULL, 0, MPI_BYTE,
                           rank ^ mask, AOT_TAG_BARRIER, comm, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && rank + pof2 < p)
        rc = PMPI_Send(NULL, 0, MPI_BYTE, rank + pof2, AOT_TAG_BARRIER, comm);
    return rc;
}
