/*
 * allreduce_rabenseifner.c: allreduce, Rabenseifner.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Rabenseifner -- reduce-scatter by recursive halving (engines/coll_halving.c) over pof2
 * units of the vector, then allgather by recursive doubling, undoing the halving level by
 * level.  Non-powers of two: the first 2*rem ranks pair up before (the even rank hands its
 * vector to the odd one) and after (the odd rank returns the result).
 * Restrictions: none (partial results always cover contiguous rank ranges, so
 * non-commutative operations stay in rank order; the order of operations is fixed for a
 * given size).
 * Cost = 2lg p·α + 2((p-1)/p)nβ + ((p-1)/p)nγ   (p a power of two;
 *   otherwise + 2(α + nβ) + nγ)   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_allreduce_rabenseifner(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                               MPI_Op op, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    struct aot_halving h;
    struct aot_dt d;
    int *uoff, commute, rc;

    rc = PMPI_Op_commutative(op, &commute);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(dt, &d);
    if (rc == MPI_SUCCESS && sbuf != MPI_IN_PLACE)
        rc = aot_coll_copy(sbuf, count, dt, rbuf, count, dt);
    if (rc != MPI_SUCCESS)
        return rc;
    aot_halving_init(&h, comm);
    if (h.p == 1)
        return MPI_SUCCESS;
    uoff = malloc(((size_t) h.pof2 + 1) * sizeof(*uoff));
    if (!uoff)
        return MPI_ERR_NO_MEM;
    for (int u = 0; u <= h.pof2; u++)
        uoff[u] = aot_coll_block_start(count, h.pof2, u);

    rc = aot_halving_reduce_scatter(&h, rbuf, count, dt, op, commute, uoff);

    /* allgather: undo the levels, exchanging the kept range for its sibling */
    for (int l = h.nlevels - 1; l >= 0 && h.newrank >= 0 && rc == MPI_SUCCESS; l--) {
        int mask = 1 << l, lo = h.lo[l], hi = h.hi[l], size = hi - lo;
        int olo = h.newrank & mask ? lo - size : hi, ohi = olo + size;
        int partner = aot_halving_rank(&h, h.newrank ^ mask);
        rc = PMPI_Sendrecv(AOT_AT(rbuf, uoff[lo], d.extent), uoff[hi] - uoff[lo], dt, partner,
                           AOT_TAG_ALLREDUCE, AOT_AT(rbuf, uoff[olo], d.extent),
                           uoff[ohi] - uoff[olo], dt, partner, AOT_TAG_ALLREDUCE, comm,
                           MPI_STATUS_IGNORE);
    }

    if (rc == MPI_SUCCESS && h.rank < 2 * h.rem) {
        if (h.newrank >= 0)
            rc = PMPI_Send(rbuf, count, dt, h.rank - 1, AOT_TAG_ALLREDUCE, comm);
        else
            rc = PMPI_Recv(rbuf, count, dt, h.rank + 1, AOT_TAG_ALLREDUCE, comm,
                           MPI_STATUS_IGNORE);
    }
    free(uoff);
    return rc;
}
