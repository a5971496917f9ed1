/*
 * bcast_near_first.c: broadcast, binomial tree in near-first/far-last rank order (Imamura).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Near first -- the ranks listed by distance from the root (its host, its switch,
 * then switches farther and farther away; engines/topo_tree.c) are the vertices of a binomial
 * tree whose vertex v receives in round lg(highbit(v)) + 1: the root sends to the nearest rank
 * first, and the far half of the list gets the data in the last round, p/2 messages at once
 * (many of them over uplinks).
 * Restrictions: none.
 * Cost = ceil(lg p)(α + nβ), with up to p/2 messages sharing an uplink in the last round
 *   (n: bytes of the message), plus the hierarchy once per communicator and O(p·D) local
 *   work per call (D: distance classes).
 * Engine: engines/topo_tree.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_bcast_near_first(void *buf, int count, MPI_Datatype dt, int root,
                         const struct aot_coll_ctx *ctx)
{
    return aot_bcast_topo_tree(buf, count, dt, root, ctx, 1);
}
