/*
 * coll_halving.c: the recursive-halving reduce-scatter of the Rabenseifner family
 * (allreduce_rabenseifner*, reduce_rabenseifner).  Contract in coll_engines.h.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Non-powers of two: with pof2 = 2^floor(lg p) and rem = p - pof2, even rank 2i < 2*rem sends
 * its vector to 2i+1, which computes x(2i) op x(2i+1) and takes newrank i; ranks >= 2*rem take
 * newrank rank - rem.  Newranks are monotonic in rank, so a range of newranks stands for a
 * contiguous range of ranks.
 *
 * Level l = 0 .. lg(pof2)-1: partners differ in bit l of the newrank.  Both hold the same unit
 * range (it depends on the lower bits only), cut it in two halves, and the one with bit l = 0
 * keeps the lower half.  Each sends the other half and combines what it receives into its
 * own: (lower rank's partial) op (upper rank's partial).  After level l a partial result
 * covers the 2^(l+1) newranks that agree above bit l -- a contiguous range -- so
 * non-commutative operations come out in rank order.  A rank's final unit is the bit reversal
 * of its newrank.
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_engines.h"
#include "coll_util.h"

int aot_halving_init(struct aot_halving *h, MPI_Comm comm)
{
    h->comm = comm;
    PMPI_Comm_size(comm, &h->p);
    PMPI_Comm_rank(comm, &h->rank);
    h->pof2 = aot_coll_pof2_floor(h->p);
    h->rem = h->p - h->pof2;
    if (h->rank < 2 * h->rem)
        h->newrank = h->rank % 2 ? h->rank / 2 : -1;
    else
        h->newrank = h->rank - h->rem;
    h->nlevels = 0;
    while ((1 << h->nlevels) < h->pof2)
        h->nlevels++;
    h->ulo = 0;
    h->uhi = h->pof2;
    return MPI_SUCCESS;
}

int aot_halving_reduce_scatter(struct aot_halving *h, void *buf, int count, MPI_Datatype dt,
                               MPI_Op op, int commutative, const int *uoff)
{
    struct aot_dt d;
    void *raw = NULL, *tmp;
    int rc, lo = 0, hi = h->pof2;

    rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    tmp = aot_coll_tmp(count, &d, &raw);
    if (!tmp)
        return MPI_ERR_NO_MEM;

    if (h->rank < 2 * h->rem) {
        if (h->newrank < 0) {
            rc = PMPI_Send(buf, count, dt, h->rank + 1, AOT_TAG_REDUCE, h->comm);
            goto out;
        }
        rc = PMPI_Recv(tmp, count, dt, h->rank - 1, AOT_TAG_REDUCE, h->comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = aot_coll_reduce_local(tmp, buf, count, dt, op);   /* x(2i) op x(2i+1) */
    }

    for (int l = 0; l < h->nlevels && rc == MPI_SUCCESS; l++) {
        int mask = 1 << l, mid = (lo + hi) / 2;
        int partner = aot_halving_rank(h, h->newrank ^ mask);
        int klo = h->newrank & mask ? mid : lo, khi = h->newrank & mask ? hi : mid;
        int slo = h->newrank & mask ? lo : mid, shi = h->newrank & mask ? mid : hi;
        int k0 = uoff[klo], k1 = uoff[khi], s0 = uoff[slo], s1 = uoff[shi];
        void *keep = AOT_AT(buf, k0, d.extent);

        rc = PMPI_Sendrecv(AOT_AT(buf, s0, d.extent), s1 - s0, dt, partner, AOT_TAG_REDUCE, tmp,
                           k1 - k0, dt, partner, AOT_TAG_REDUCE, h->comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            break;
        if (partner < h->rank || commutative) {
            rc = aot_coll_reduce_local(tmp, keep, k1 - k0, dt, op);   /* theirs op mine */
        } else {
            rc = aot_coll_reduce_local(keep, tmp, k1 - k0, dt, op);   /* mine op theirs */
            if (rc == MPI_SUCCESS)
                rc = aot_coll_copy(tmp, k1 - k0, dt, keep, k1 - k0, dt);
        }
        h->lo[l] = lo = klo;
        h->hi[l] = hi = khi;
    }
    h->ulo = lo;
    h->uhi = hi;
out:
    aot_coll_free(raw);
    return rc;
}
