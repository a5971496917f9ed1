/*
 * allreduce_allgather.c: allreduce, allgather-based.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Allgather-based -- every rank gathers every vector (with the allgather autoopt
 * selects for n bytes: forced, tuned or native) and reduces the p vectors locally in rank
 * order, x0 op (x1 op (... op x(p-1))).
 * Restrictions: none (local reduction in rank order; the order of operations is fixed).
 * Cost = allgather(n) + (p-1)nγ, e.g. with a ring allgather (p-1)α + (p-1)nβ + (p-1)nγ;
 *   p·n bytes of memory   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_run.h"
#include "coll_util.h"

int aot_allreduce_allgather(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                            const struct aot_coll_ctx *ctx)
{
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    struct aot_dt d;
    void *raw = NULL, *all, *acc;
    int p = ctx->size, rc;

    rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    all = aot_coll_tmp((MPI_Aint) p * count, &d, &raw);
    if (!all)
        return MPI_ERR_NO_MEM;
    rc = aot_coll_run_allgather(in, count, dt, all, count, dt, ctx);
    acc = AOT_AT(all, (MPI_Aint) (p - 1) * count, d.extent);
    for (int j = p - 2; j >= 0 && rc == MPI_SUCCESS; j--)
        rc = aot_coll_reduce_local(AOT_AT(all, (MPI_Aint) j * count, d.extent), acc, count, dt,
                                   op);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_copy(acc, count, dt, rbuf, count, dt);
    aot_coll_free(raw);
    return rc;
}
