/*
 * allgather_ring_n_barriers.c: allgather, ring with N MPI barriers.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Ring with N MPI barriers -- p-1 steps; at step k a rank forwards to rank+1 the
 * block it received at step k-1 and receives block rank-k from rank-1.
 * PMPI_Barrier after every n steps (parameter n): a middle way between the plain and the fully
 * synchronised variant.
 * Restrictions: none.
 * Cost = (p-1)α + (p-1)mβ + floor((p-2)/n)B
 *   (m: bytes of one block; B: one PMPI_Barrier, about ceil(lg p) small messages)
 * Engine: engines/allgather_exchange.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_allgather_ring_n_barriers(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                  int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    long param = ctx->param;
    return aot_allgather_exchange(sbuf, scount, sdt, rbuf, rcount, rdt, comm, 0, AOT_SYNC_EVERY_N,
                                  param);
}
