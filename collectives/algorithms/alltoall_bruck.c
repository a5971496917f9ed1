/*
 * alltoall_bruck.c: alltoall, Bruck.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Bruck -- ceil(lg p) phases; in phase i every block whose distance has bit i set
 * moves 2^i ranks forward, all of them in one message.
 * Restrictions: none.
 * Cost = ceil(lg p)α + ceil(lg p)(p/2)mβ + local packing of 3pm bytes
 *   (m: bytes of one block)
 * Engine: engines/alltoall_radix.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_alltoall_bruck(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                       MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int radix[31], n = 0, p = ctx->size;

    for (int w = 1; w < p; w *= 2)
        radix[n++] = 2;
    return aot_alltoall_radix(sbuf, scount, sdt, rbuf, rcount, rdt, comm, radix, n, 0);
}
