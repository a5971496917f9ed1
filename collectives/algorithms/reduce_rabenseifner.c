/*
 * reduce_rabenseifner.c: reduce, Rabenseifner.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Rabenseifner -- reduce-scatter by recursive halving (engines/coll_halving.c), then a
 * binomial gather that undoes the halving level by level towards the root's newrank.
 * Non-powers of two: the first 2*rem ranks pair up before the halving; when the root is one of
 * the even ranks that sat out, its odd partner gathers and forwards the result.
 * Restrictions: none (partial results cover contiguous rank ranges; the order of operations
 * is fixed for a given size).
 * Cost = 2lg p·α + 2((p-1)/p)nβ + ((p-1)/p)nγ   (p a power of two;
 *   otherwise + α + nβ + nγ, and α + nβ when the root sat out)   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_reduce_rabenseifner(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                            int root, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    struct aot_halving h;
    struct aot_dt d;
    void *raw = NULL, *work;
    int *uoff = NULL, commute, target, holder, rc;

    rc = PMPI_Op_commutative(op, &commute);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    aot_halving_init(&h, comm);
    if (h.p == 1)
        return aot_coll_copy(in, count, dt, rbuf, count, dt);
    work = aot_coll_tmp(count, &d, &raw);
    uoff = malloc(((size_t) h.pof2 + 1) * sizeof(*uoff));
    if (!work || !uoff) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int u = 0; u <= h.pof2; u++)
        uoff[u] = aot_coll_block_start(count, h.pof2, u);
    rc = aot_coll_copy(in, count, dt, work, count, dt);
    if (rc == MPI_SUCCESS)
        rc = aot_halving_reduce_scatter(&h, work, count, dt, op, commute, uoff);

    /* gather towards the newrank of the root (or of its odd partner) */
    target = root < 2 * h.rem ? root / 2 : root - h.rem;
    holder = aot_halving_rank(&h, target);
    for (int l = h.nlevels - 1; l >= 0 && h.newrank >= 0 && rc == MPI_SUCCESS; l--) {
        int mask = 1 << l, lo = h.lo[l], hi = h.hi[l], size = hi - lo;
        int olo = h.newrank & mask ? lo - size : hi, ohi = olo + size;
        int partner = aot_halving_rank(&h, h.newrank ^ mask);
        if ((h.newrank & mask) == (target & mask)) {
            rc = PMPI_Recv(AOT_AT(work, uoff[olo], d.extent), uoff[ohi] - uoff[olo], dt, partner,
                           AOT_TAG_REDUCE, comm, MPI_STATUS_IGNORE);
        } else {
            rc = PMPI_Send(AOT_AT(work, uoff[lo], d.extent), uoff[hi] - uoff[lo], dt, partner,
                           AOT_TAG_REDUCE, comm);
            break;
        }
    }

    if (rc == MPI_SUCCESS && h.rank == holder) {
        if (holder == root)
            rc = aot_coll_copy(work, count, dt, rbuf, count, dt);
        else
            rc = PMPI_Send(work, count, dt, root, AOT_TAG_REDUCE, comm);
    } else if (rc == MPI_SUCCESS && h.rank == root) {
        rc = PMPI_Recv(rbuf, count, dt, holder, AOT_TAG_REDUCE, comm, MPI_STATUS_IGNORE);
    }
out:
    aot_coll_free(raw);
    free(uoff);
    return rc;
}
