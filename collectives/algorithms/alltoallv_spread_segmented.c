/*
 * alltoallv_spread_segmented.c: alltoallv, spreading simple in segments.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Spread segmented -- spreading simple (every transfer posted at once, peers in the
 * order rank+1, rank+2, ...) with every block cut into messages of at most `segment` bytes
 * (parameter segment, default 16 KiB), each small enough to go eagerly where the MPI library's
 * rendezvous handshake would leave the link idle (engines/alltoall_segmented.c says where).
 * Restrictions: none (blocks travel as packed bytes: homogeneous systems).
 * Cost = sum over peers of ceil(m_j/s)α + (total bytes)β, plus a pack and an unpack of each
 *   block of a non-contiguous datatype
 *   (m_j: bytes of the block for peer j, s: segment)
 * Engine: engines/alltoall_segmented.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_util.h"

int aot_alltoallv_spread_segmented(const void *sbuf, const int *scounts, const int *sdispls,
                                   MPI_Datatype sdt, void *rbuf, const int *rcounts,
                                   const int *rdispls, MPI_Datatype rdt,
                                   const struct aot_coll_ctx *ctx)
{
    struct aot_win_blocks b = aot_win_blocks_alltoallv(sbuf, scounts, sdispls, sdt, rbuf,
                                                       rcounts, rdispls, rdt);

    return aot_alltoall_segmented(&b, ctx->comm, ctx->param, AOT_TAG_ALLTOALLV);
}
