/*
 * allgather_mesh2d.c: allgather, 2D mesh.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: 2D mesh -- the ranks form a virtual c x ceil(p/c) torus, c = ceil(sqrt(p)).
 * Phase 1 gathers the blocks of a row (c-1 messages of one block); phase 2 exchanges whole
 * rows along the column (ceil(p/c)-1 messages of c blocks).
 * Restrictions: none (the torus wraps, so any p works).
 * Cost = (c + ceil(p/c) - 2)α + (p-1)mβ + local packing of 2pm bytes
 *   (m: bytes of one block)
 * Engine: engines/allgather_radix.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_allgather_mesh2d(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int radix[3], n, p = ctx->size;

    n = aot_coll_mesh_radix(p, 2, radix);
    return aot_allgather_radix(sbuf, scount, sdt, rbuf, rcount, rdt, comm, radix, n);
}
