/*
 * reduce_far_first.c: reduce, binomial tree in far-first/near-last rank order (Imamura).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Far first -- the ranks listed by distance from the root (engines/topo_tree.c) are
 * the vertices of a binomial tree in which vertex v receives from v + 2^j for 2^j > highbit(v),
 * largest first, and sends to v - highbit(v): in the first round the far half of the list
 * sends to the near half (up to p/2 vectors sharing uplinks at once), and the last rounds
 * combine within the root's switch and host.
 * Restrictions: a commutative operation (the order of operations follows the topology and the
 * root, not the ranks, so it is not order-fixed either).
 * Cost = ceil(lg p)(α + nβ + nγ), with up to p/2 vectors sharing an uplink in the first round
 *   (n: bytes of the vector), plus the hierarchy once per communicator and O(p·D) local work
 *   per call (D: distance classes).
 * Engine: engines/topo_tree.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_reduce_far_first(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root, const struct aot_coll_ctx *ctx)
{
    return aot_reduce_topo_tree(sbuf, rbuf, count, dt, op, root, ctx, 0);
}
