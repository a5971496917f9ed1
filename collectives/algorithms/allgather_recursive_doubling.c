/*
 * allgather_recursive_doubling.c: allgather, recursive doubling.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Recursive doubling -- lg p steps; at step i a rank exchanges everything it holds
 * with rank XOR 2^i, doubling its data.  Non-powers of two: with pof2 = 2^floor(lg p) and
 * rem = p - pof2, each even rank among the first 2*rem hands its block to the next odd rank
 * and waits; the pof2 remaining ranks double over contiguous ranges of the receive buffer;
 * each odd rank finally sends the whole result to its even partner.
 * Restrictions: none.
 * Cost = lg p·α + (p-1)mβ  (power of two);  + α + mβ and α + pmβ otherwise
 *   (m: bytes of one block)
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_allgather_recursive_doubling(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                     int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    MPI_Aint lb, ext;
    int p = ctx->size, rank = ctx->rank, pof2, rem, newrank, rc;

    PMPI_Type_get_extent(rdt, &lb, &ext);
    rc = aot_coll_copy(sbuf, scount, sdt, AOT_AT(rbuf, (MPI_Aint) rank * rcount, ext), rcount,
                       rdt);
    if (rc != MPI_SUCCESS || p == 1)
        return rc;
    pof2 = aot_coll_pof2_floor(p);
    rem = p - pof2;

    /* Fold the extra ranks in: even rank 2i gives its block to 2i+1. */
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            rc = PMPI_Send(AOT_AT(rbuf, (MPI_Aint) rank * rcount, ext), rcount, rdt, rank + 1,
                           AOT_TAG_ALLGATHER, comm);
            newrank = -1;
        } else {
            rc = PMPI_Recv(AOT_AT(rbuf, (MPI_Aint) (rank - 1) * rcount, ext), rcount, rdt,
                           rank - 1, AOT_TAG_ALLGATHER, comm, MPI_STATUS_IGNORE);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }

    /* Newrank nr owns the blocks of ranks [first(nr), first(nr+1)). */
#define AOT_FIRST(nr) ((nr) < rem ? 2 * (nr) : (nr) + rem)
    for (int mask = 1; newrank >= 0 && mask < pof2 && rc == MPI_SUCCESS; mask <<= 1) {
        int pnr = newrank ^ mask;
        int partner = pnr < rem ? 2 * pnr + 1 : pnr + rem;
        int g = newrank & ~(mask - 1), pg = g ^ mask;
        int s0 = AOT_FIRST(g), s1 = AOT_FIRST(g + mask);
        int r0 = AOT_FIRST(pg), r1 = AOT_FIRST(pg + mask);
        rc = PMPI_Sendrecv(AOT_AT(rbuf, (MPI_Aint) s0 * rcount, ext), (s1 - s0) * rcount, rdt,
                           partner, AOT_TAG_ALLGATHER, AOT_AT(rbuf, (MPI_Aint) r0 * rcount, ext),
                           (r1 - r0) * rcount, rdt, partner, AOT_TAG_ALLGATHER, comm,
                           MPI_STATUS_IGNORE);
    }
#undef AOT_FIRST

    /* Hand the result back to the even extra ranks. */
    if (rc == MPI_SUCCESS && rank < 2 * rem) {
        if (rank % 2)
            rc = PMPI_Send(rbuf, p * rcount, rdt, rank - 1, AOT_TAG_ALLGATHER, comm);
        else
            rc = PMPI_Recv(rbuf, p * rcount, rdt, rank + 1, AOT_TAG_ALLGATHER, comm,
                           MPI_STATUS_IGNORE);
    }
    return rc;
}
