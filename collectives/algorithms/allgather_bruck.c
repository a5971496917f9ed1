/*
 * allgather_bruck.c: allgather, Bruck.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Bruck -- ceil(lg p) phases; in phase i a rank sends the 2^i blocks it holds to
 * rank-2^i and receives 2^i blocks (fewer in the last phase) from rank+2^i.
 * Restrictions: none.
 * Cost = ceil(lg p)α + (p-1)mβ + local packing of 2pm bytes
 *   (m: bytes of one block)
 * Engine: engines/allgather_radix.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_allgather_bruck(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int radix[31], n = 0, p = ctx->size;

    for (int w = 1; w < p; w *= 2)
        radix[n++] = 2;
    return aot_allgather_radix(sbuf, scount, sdt, rbuf, rcount, rdt, comm, radix, n);
}
