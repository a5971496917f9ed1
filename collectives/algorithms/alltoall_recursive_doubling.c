/*
 * alltoall_recursive_doubling.c: alltoall, recursive doubling.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Recursive doubling -- lg p phases; in phase i a rank exchanges with rank XOR 2^i
 * every block whose destination differs from it in bit i (half of the data it holds).
 * Restrictions: power-of-two communicator sizes (AOT_R_POF2).
 * Cost = lg p·α + lg p·(p/2)mβ + local packing of 3pm bytes
 *   (m: bytes of one block)
 * Engine: engines/alltoall_radix.c (radix 2, XOR partners).
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_alltoall_recursive_doubling(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                    int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int radix[31], n = 0, p = ctx->size;

    for (int w = 1; w < p; w *= 2)
        radix[n++] = 2;
    return aot_alltoall_radix(sbuf, scount, sdt, rbuf, rcount, rdt, comm, radix, n, 1);
}
