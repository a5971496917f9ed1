/*
 * alltoall_mesh2d.c: alltoall, 2D mesh.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: 2D mesh -- the ranks form a virtual c x ceil(p/c) torus, c = ceil(sqrt(p)).
 * Phase 1 sends, along the row, to each of the c-1 row peers everything bound for its column;
 * phase 2 forwards, along the column, to each of the other ceil(p/c)-1 peers.
 * Restrictions: none (the torus wraps, so any p works).
 * Cost = (c + ceil(p/c) - 2)α + (2p - c - ceil(p/c))mβ + local packing of 3pm bytes
 *   ≈ 2(sqrt(p)-1)α + 2(p - sqrt(p))mβ   (m: bytes of one block)
 * Engine: engines/alltoall_radix.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_alltoall_mesh2d(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int radix[3], n, p = ctx->size;

    n = aot_coll_mesh_radix(p, 2, radix);
    return aot_alltoall_radix(sbuf, scount, sdt, rbuf, rcount, rdt, comm, radix, n, 0);
}
