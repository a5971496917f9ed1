/*
 * alltoall_mesh3d.c: alltoall, 3D mesh.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: 3D mesh -- the ranks form a virtual c x c x ceil(p/c^2) torus,
 * c = ceil(cbrt(p)); three phases, each along one dimension, each sending to every other
 * rank of that dimension the blocks that must cross it.
 * Restrictions: none (the torus wraps, so any p works).
 * Cost ≈ 3(cbrt(p)-1)α + 3(p - p/cbrt(p))mβ + local packing of 3pm bytes
 *   (m: bytes of one block)
 * Engine: engines/alltoall_radix.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_alltoall_mesh3d(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int radix[3], n, p = ctx->size;

    n = aot_coll_mesh_radix(p, 3, radix);
    return aot_alltoall_radix(sbuf, scount, sdt, rbuf, rcount, rdt, comm, radix, n, 0);
}
