/*
 * alltoallv_ring_window.c: alltoallv, ring with w steps in flight.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Ring window -- the ring's p-1 steps (step k: send the block for rank+k, receive
 * the block of rank-k), w of them in flight (parameter w): step k+w starts when step k has
 * completed, so a link does not idle between steps while it carries at most w flows in each
 * direction.  Uneven blocks are where it helps most: a step's short block no longer holds the
 * next step's long one back.  w = 1: the ring without gaps; w = p-1: spreading simple.
 * Restrictions: none.
 * Cost = (p-1)mβ + ceil((p-1)/w)α, for w small enough that w flows fill a link
 *   (m: bytes of the largest block)
 * Engine: engines/alltoall_window.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_alltoallv_ring_window(const void *sbuf, const int *scounts, const int *sdispls,
                              MPI_Datatype sdt, void *rbuf, const int *rcounts,
                              const int *rdispls, MPI_Datatype rdt,
                              const struct aot_coll_ctx *ctx)
{
    struct aot_win_blocks b = aot_win_blocks_alltoallv(sbuf, scounts, sdispls, sdt, rbuf,
                                                       rcounts, rdispls, rdt);

    return aot_alltoall_window(&b, ctx->comm, ctx->param, AOT_TAG_ALLTOALLV);
}
