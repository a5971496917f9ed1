/*
 * reduce_near_first.c: reduce, binomial tree in near-first/far-last rank order (Imamura).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Near first -- the ranks listed by distance from the root (engines/topo_tree.c) are
 * the vertices of a binomial tree in which vertex v receives from v + 1, v + 2, v + 4, ...
 * (below v + lowbit(v)) and sends to v - lowbit(v): partial results of a host, then of a
 * switch, combine first, and each group of switches sends one vector over its uplink last.
 * Restrictions: a commutative operation (the order of operations follows the topology and the
 * root, not the ranks, so it is not order-fixed either).
 * Cost = ceil(lg p)(α + nβ + nγ)   (n: bytes of the vector), plus the hierarchy once per
 *   communicator and O(p·D) local work per call (D: distance classes).
 * Engine: engines/topo_tree.c.
 */
#include <mpi.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_engines.h"

int aot_reduce_near_first(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                          int root, const struct aot_coll_ctx *ctx)
{
    return aot_reduce_topo_tree(sbuf, rbuf, count, dt, op, root, ctx, 1);
}
