/*
 * allreduce_rabenseifner_v1.c: allreduce, Rabenseifner variation 1.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Rabenseifner variation 1 -- the reduce-scatter of Rabenseifner (recursive
 * halving, engines/coll_halving.c) leaves every rank with one chunk of b = ceil(n/p) elements, then
 * the allgather is the one autoopt selects for an allgather of b elements (forced, tuned or
 * native).  The halving works on p chunks grouped into pof2 units: the unit a newrank ends
 * with is the bit reversal of the newrank, so unit q holds two chunks when newrank
 * bitrev(q) stands for two ranks (non-powers of two), and the odd rank of such a pair passes
 * the first chunk to its even partner.  Chunk positions are known to every rank, so the
 * allgathered chunks are put in place while copying to the receive buffer.
 * Restrictions: none (contiguous partial results keep rank order; the order of operations is
 * fixed for a given size).
 * Cost = lg p·α + ((p-1)/p)nβ + ((p-1)/p)nγ + allgather(n/p) + local copy of n
 *   (p a power of two; otherwise + 2α + (n + n/p)β + nγ)   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_run.h"
#include "coll_util.h"

static int aot_bitrev(int x, int bits)
{
    int r = 0;
    for (int i = 0; i < bits; i++)
        r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

int aot_allreduce_rabenseifner_v1(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                  MPI_Op op, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    struct aot_halving h;
    struct aot_dt d;
    void *raw_w = NULL, *raw_g = NULL, *work, *gath;
    int *co = NULL, *uoff = NULL, *chunk = NULL;
    int commute, b, rc;

    rc = PMPI_Op_commutative(op, &commute);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    aot_halving_init(&h, comm);
    b = (count + h.p - 1) / h.p;
    work = aot_coll_tmp_padded((MPI_Aint) h.p * b, count, &d, &raw_w);
    gath = aot_coll_tmp((MPI_Aint) h.p * b, &d, &raw_g);
    co = malloc(((size_t) h.pof2 + 1) * sizeof(*co));
    uoff = malloc(((size_t) h.pof2 + 1) * sizeof(*uoff));
    chunk = malloc((size_t) h.p * sizeof(*chunk));
    if (!work || !gath || !co || !uoff || !chunk) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    /* unit q = chunks [co[q], co[q+1]); chunk[j] = the chunk rank j ends with */
    co[0] = 0;
    for (int q = 0; q < h.pof2; q++) {
        int nr = aot_bitrev(q, h.nlevels);
        co[q + 1] = co[q] + (nr < h.rem ? 2 : 1);
        uoff[q] = co[q] * b < count ? co[q] * b : count;
        if (nr < h.rem) {
            chunk[2 * nr] = co[q];
            chunk[2 * nr + 1] = co[q] + 1;
        } else {
            chunk[nr + h.rem] = co[q];
        }
    }
    uoff[h.pof2] = count;

    rc = aot_coll_copy(in, count, dt, work, count, dt);
    if (rc == MPI_SUCCESS)
        rc = aot_halving_reduce_scatter(&h, work, count, dt, op, commute, uoff);

#define AOT_CHUNK(c) AOT_AT(work, (MPI_Aint) (c) * b, d.extent), \
                     ((c) * b < count ? (count - (c) * b < b ? count - (c) * b : b) : 0), dt
    if (rc == MPI_SUCCESS && h.rank < 2 * h.rem) {
        /* the odd rank of a pair holds both chunks; the first is the even rank's */
        if (h.newrank >= 0)
            rc = PMPI_Send(AOT_CHUNK(chunk[h.rank - 1]), h.rank - 1, AOT_TAG_ALLREDUCE, comm);
        else
            rc = PMPI_Recv(AOT_CHUNK(chunk[h.rank]), h.rank + 1, AOT_TAG_ALLREDUCE, comm,
                           MPI_STATUS_IGNORE);
    }
#undef AOT_CHUNK
    if (rc == MPI_SUCCESS)
        rc = aot_coll_run_allgather(AOT_AT(work, (MPI_Aint) chunk[h.rank] * b, d.extent), b, dt,
                                    gath, b, dt, ctx);
    for (int j = 0; j < h.p && rc == MPI_SUCCESS; j++) {
        int first = chunk[j] * b;
        int len = first < count ? (count - first < b ? count - first : b) : 0;
        rc = aot_coll_copy(AOT_AT(gath, (MPI_Aint) j * b, d.extent), len, dt,
                           AOT_AT(rbuf, first, d.extent), len, dt);
    }
out:
    aot_coll_free(raw_w);
    aot_coll_free(raw_g);
    free(co);
    free(uoff);
    free(chunk);
    return rc;
}
