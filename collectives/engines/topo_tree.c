/*
 * topo_tree.c: engine of the broadcast and reduce trees ordered by distance from the root
 * (bcast/reduce near_first and far_first; Imamura's near-first/far-last and far-first/
 * near-last rank orderings).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The ranks are listed by distance from the root: the root, the other ranks of its host, the
 * other hosts of its switch, then the hosts of switches one, two, ... uplinks away (without a
 * topology: every other host at one distance); ties in topology order (struct aot_coll_hier),
 * so the ranks of one host, and the hosts of one switch, are consecutive.  Position v in that
 * list is the tree's vertex v; the root is vertex 0, and vertices close in number are close in
 * the network.  Two binomial trees over the vertices:
 *   lowbit tree:  parent v - lowbit(v); children v + 2^j for every 2^j < lowbit(v).  Subtree
 *                 v + 2^j is the range [v + 2^j, v + 2^(j+1)): the edge of mask 2^j joins
 *                 ranges, so large masks are the far edges, and only they cross uplinks.
 *   highbit tree: parent v - highbit(v); children v + 2^j for every 2^j > highbit(v).  Vertex
 *                 v is reached in round lg(highbit(v)) + 1: near vertices first, and the last
 *                 round's p/2 edges of mask p/2 cross from the near half to the far half.
 * Broadcast far_first = lowbit tree, children by decreasing mask (the farthest subtree gets the
 * data first, one message per uplink); near_first = highbit tree, children by increasing mask.
 * Reduce near_first = lowbit tree, children by increasing mask (near partial results combine
 * first, one message per uplink last); far_first = highbit tree, children by decreasing mask.
 * The order of operations follows the topology, not the ranks: reductions need a commutative
 * operation (AOT_R_COMMUTATIVE) and are not order-fixed.
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_switches.h"
#include "coll_util.h"

/* The distance class of rank r from root: 0 the root, 1 its host, 2 + the uplinks between
 * their switches for another host (2 without a topology). */
static int aot_topo_dist(const struct aot_coll_hier *h, int root, int r)
{
    int hops;

    if (r == root)
        return 0;
    if (h->host[r] == h->host[root])
        return 1;
    if (!h->switch_of)
        return 2;
    hops = aot_coll_topo_hops(h->switch_of[h->host[root]], h->switch_of[h->host[r]]);
    return 2 + (hops > 0 ? hops : 0);
}

/* list[0..p) = the ranks by distance from root, ties in topology order.  Local, O(p·D) for
 * D distance classes. */
static void aot_topo_near_list(const struct aot_coll_hier *h, int p, int root, int *list)
{
    int maxd = 2, n = 0;

    for (int i = 0; i < p; i++) {
        int d = aot_topo_dist(h, root, h->order[i]);
        if (d > maxd)
            maxd = d;
    }
    for (int d = 0; d <= maxd; d++)
        for (int i = 0; i < p; i++)
            if (aot_topo_dist(h, root, h->order[i]) == d)
                list[n++] = h->order[i];
}

/* The parent of vertex v (-1 for 0) and its children, nearest first; returns their number. */
static int aot_topo_tree_links(int v, int p, int highbit_tree, int *parent, int *child)
{
    int low = v & -v, high = v, n = 0;

    while (high & (high - 1))
        high &= high - 1;
    *parent = v == 0 ? -1 : highbit_tree ? v - high : v - low;
    for (long m = 1; v + m < p; m <<= 1) {
        if (highbit_tree ? m <= high : v != 0 && m >= low)
            continue;
        child[n++] = (int) (v + m);
    }
    return n;
}

/* My vertex, the list of ranks in *list (malloc'd; free it), or an error. */
static int aot_topo_tree_setup(const struct aot_coll_ctx *ctx, int root, int **list, int *me)
{
    const struct aot_coll_hier *h;
    int rc = aot_coll_hier(ctx, &h);

    *list = NULL;
    if (rc != MPI_SUCCESS)
        return rc;
    if (!(*list = malloc((size_t) ctx->size * sizeof(int))))
        return MPI_ERR_NO_MEM;
    aot_topo_near_list(h, ctx->size, root, *list);
    for (int v = 0; v < ctx->size; v++)
        if ((*list)[v] == ctx->rank)
            *me = v;
    return MPI_SUCCESS;
}

int aot_bcast_topo_tree(void *buf, int count, MPI_Datatype dt, int root,
                        const struct aot_coll_ctx *ctx, int near_first)
{
    int *list, me = 0, parent, child[32], nchild;
    int rc = aot_topo_tree_setup(ctx, root, &list, &me);

    if (rc != MPI_SUCCESS)
        return rc;
    nchild = aot_topo_tree_links(me, ctx->size, near_first, &parent, child);
    if (parent >= 0)
        rc = PMPI_Recv(buf, count, dt, list[parent], AOT_TAG_BCAST, ctx->comm,
                       MPI_STATUS_IGNORE);
    for (int i = 0; i < nchild && rc == MPI_SUCCESS; i++) {
        int c = child[near_first ? i : nchild - 1 - i];
        rc = PMPI_Send(buf, count, dt, list[c], AOT_TAG_BCAST, ctx->comm);
    }
    free(list);
    return rc;
}

int aot_reduce_topo_tree(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root, const struct aot_coll_ctx *ctx, int near_first)
{
    const void *acc = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    void *raw[2] = {NULL, NULL}, *tmp[2] = {NULL, NULL};
    int *list, me = 0, parent, child[32], nchild, next = 0, commute = 0;
    struct aot_dt d;
    int rc = aot_topo_tree_setup(ctx, root, &list, &me);

    if (rc == MPI_SUCCESS)
        rc = PMPI_Op_commutative(op, &commute);
    if (rc == MPI_SUCCESS && !commute)
        rc = MPI_ERR_OP;            /* the selector checks AOT_R_COMMUTATIVE first */
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS) {
        free(list);
        return rc;
    }
    /* the reduce trees are the broadcast trees of the other kind, run backwards */
    nchild = aot_topo_tree_links(me, ctx->size, !near_first, &parent, child);
    for (int i = 0; i < nchild && rc == MPI_SUCCESS; i++) {
        int c = child[near_first ? i : nchild - 1 - i];
        if (!tmp[next] && !(tmp[next] = aot_coll_tmp(count, &d, &raw[next]))) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        rc = PMPI_Recv(tmp[next], count, dt, list[c], AOT_TAG_REDUCE, ctx->comm,
                       MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = aot_coll_reduce_local(acc, tmp[next], count, dt, op);
        acc = tmp[next];
        next ^= 1;
    }
    if (rc == MPI_SUCCESS) {
        if (parent >= 0)
            rc = PMPI_Send(acc, count, dt, list[parent], AOT_TAG_REDUCE, ctx->comm);
        else
            rc = aot_coll_copy(acc, count, dt, rbuf, count, dt);
    }
    aot_coll_free(raw[0]);
    aot_coll_free(raw[1]);
    free(list);
    return rc;
}
