/*
 * allgather_mesh3d.c: allgather, 3D mesh.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: 3D mesh -- the ranks form a virtual c x c x ceil(p/c^2) torus,
 * c = ceil(cbrt(p)); three phases, each an allgather along one dimension of what the earlier
 * phases gathered.
 * Restrictions: none (the torus wraps, so any p works).
 * Cost ≈ 3(cbrt(p)-1)α + (p-1)mβ + local packing of 2pm bytes
 *   (m: bytes of one block)
 * Engine: engines/allgather_radix.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_allgather_mesh3d(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int radix[3], n, p = ctx->size;

    n = aot_coll_mesh_radix(p, 3, radix);
    return aot_allgather_radix(sbuf, scount, sdt, rbuf, rcount, rdt, comm, radix, n);
}
