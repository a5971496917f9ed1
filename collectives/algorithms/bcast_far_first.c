/*
 * bcast_far_first.c: broadcast, binomial tree in far-first/near-last rank order (Imamura).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Far first -- the ranks listed by distance from the root (engines/topo_tree.c) are
 * the vertices of a binomial tree in which vertex v sends to v + 2^j for 2^j < lowbit(v),
 * largest first: the root first hands the far half of the list its copy, and every subtree is
 * a contiguous stretch of the list, so the data crosses each uplink towards a group of
 * switches about once, and the last rounds stay within switches and hosts.
 * Restrictions: none.
 * Cost = ceil(lg p)(α + nβ)   (n: bytes of the message), plus the hierarchy once per
 *   communicator and O(p·D) local work per call (D: distance classes).
 * Engine: engines/topo_tree.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_bcast_far_first(void *buf, int count, MPI_Datatype dt, int root,
                        const struct aot_coll_ctx *ctx)
{
    return aot_bcast_topo_tree(buf, count, dt, root, ctx, 0);
}
