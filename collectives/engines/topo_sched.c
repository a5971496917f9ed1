/*
 * topo_sched.c: a contention-free pairwise schedule for all-to-all exchanges on a tree of
 * switches (alltoall topo_pair), computed once per communicator from the hierarchy.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The links: each host's link to its switch, and each switch's uplink to its parent
 * (AUTOOPT_TOPOLOGY; without one, host links only).  An exchange between ranks i and j uses no
 * link when they share a host, else both hosts' links and every uplink on the path between
 * their switches, one flow in each direction.  The schedule is a sequence of phases; in each
 * phase every rank exchanges with at most one partner and every link carries at most one
 * exchange, that is at most one flow per direction.  Every pair of ranks exchanges once.
 *
 * Greedy: the pairs are sorted by the load of their busiest link (how many pairs need that
 * link; the uplinks between big groups come first, since they bound the number of phases),
 * then by their distance in the topology order and by rank, and each phase takes, in that
 * order, every pair whose ranks and links are still free.  The first pair left is always free,
 * so every phase makes progress.  The number of phases is at least max(p-1, the largest link
 * load): two switches with a and b ranks, one per host, need a·b phases (the uplink carries a·b
 * exchanges), where p-1 pairwise steps would send up to min(a,b) flows per direction through
 * it at once.  Every rank computes the same schedule from the same hierarchy (no
 * communication) and keeps its own partners.
 * Cost: O(P·F·L) local work once per communicator (P = p(p-1)/2 pairs, F phases, L links on
 * a path), then one slot of memory of F ints.  Two equal switches give F = p²/4, so about
 * p⁴/16 pair checks: nothing at tens of ranks, too slow from a few hundred (not measured);
 * a larger communicator wants a constructive schedule instead of the greedy one.
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_ctx.h"
#include "coll_engines.h"
#include "coll_switches.h"

struct aot_topo_pairsort {
    int i, j;           /* ranks, i < j */
    int load, dist;     /* sort keys */
};

static int aot_topo_pair_cmp(const void *a, const void *b)
{
    const struct aot_topo_pairsort *x = a, *y = b;

    if (x->load != y->load)
        return x->load > y->load ? -1 : 1;
    if (x->dist != y->dist)
        return x->dist < y->dist ? -1 : 1;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    return (x->j > y->j) - (x->j < y->j);
}

/* The links of the exchange between ranks i and j into link[] (room for 2 + 2·nswitches);
 * returns their number.  Link k < nhosts is host k's link, nhosts + s switch s's uplink. */
static int aot_topo_links(const struct aot_coll_hier *h, const int *depth, int i, int j,
                          int *link)
{
    int hi = h->host[i], hj = h->host[j], n = 0, a, b;

    if (hi == hj)
        return 0;
    link[n++] = hi;
    link[n++] = hj;
    if (!h->switch_of)
        return n;
    a = h->switch_of[hi];
    b = h->switch_of[hj];
    if (a < 0 || b < 0 || a >= h->nswitches || b >= h->nswitches)
        return n;
    while (a != b && a >= 0 && b >= 0) {
        if (depth[a] >= depth[b]) {
            link[n++] = h->nhosts + a;
            a = aot_coll_topo_parent(a);
        } else {
            link[n++] = h->nhosts + b;
            b = aot_coll_topo_parent(b);
        }
    }
    return n;
}

static struct aot_topo_sched *aot_topo_sched_build(const struct aot_coll_hier *h, int p, int me)
{
    const int nsw = h->nswitches > 0 ? h->nswitches : 0, nl = h->nhosts + nsw;
    const size_t npairs = (size_t) p * (size_t) (p - 1) / 2;
    struct aot_topo_pairsort *pr = malloc((npairs ? npairs : 1) * sizeof(*pr));
    int *depth = malloc((size_t) (nsw ? nsw : 1) * sizeof(int));
    int *load = calloc((size_t) nl, sizeof(int)), *link = malloc((size_t) (2 + 2 * nsw) * sizeof(int));
    int *rank_at = calloc((size_t) p, sizeof(int)), *link_at = calloc((size_t) nl, sizeof(int));
    int *mine = malloc((npairs ? npairs : 1) * sizeof(int));
    struct aot_topo_sched *s = NULL;
    size_t n = 0, left;
    int nph = 0;

    if (!pr || !depth || !load || !link || !rank_at || !link_at || !mine)
        goto out;
    for (int sw = 0; sw < nsw; sw++) {  /* switch numbers are depth-first: parent < child */
        int par = aot_coll_topo_parent(sw);
        depth[sw] = par >= 0 && par < sw ? depth[par] + 1 : 0;
    }
    for (int i = 0; i < p; i++)
        for (int j = i + 1; j < p; j++) {
            int nk = aot_topo_links(h, depth, i, j, link);
            for (int k = 0; k < nk; k++)
                load[link[k]]++;
            pr[n].i = i;
            pr[n].j = j;
            pr[n].dist = (h->place[j] - h->place[i] + p) % p;
            if (p - pr[n].dist < pr[n].dist)
                pr[n].dist = p - pr[n].dist;
            n++;
        }
    for (size_t k = 0; k < n; k++) {
        int nk = aot_topo_links(h, depth, pr[k].i, pr[k].j, link);
        pr[k].load = 0;
        for (int m = 0; m < nk; m++)
            if (load[link[m]] > pr[k].load)
                pr[k].load = load[link[m]];
    }
    qsort(pr, n, sizeof(*pr), aot_topo_pair_cmp);

    /* phases: stamps rank_at / link_at with the phase number (1, 2, ...) when taken */
    for (left = n; left > 0;) {
        size_t kept = 0;
        int free_ranks = p, partner = -1;
        nph++;
        for (size_t k = 0; k < left; k++) {
            int i = pr[k].i, j = pr[k].j, nk, ok;
            if (free_ranks < 2 || rank_at[i] == nph || rank_at[j] == nph) {
                pr[kept++] = pr[k];
                continue;
            }
            nk = aot_topo_links(h, depth, i, j, link);
            ok = 1;
            for (int m = 0; m < nk && ok; m++)
                ok = link_at[link[m]] != nph;
            if (!ok) {
                pr[kept++] = pr[k];
                continue;
            }
            rank_at[i] = rank_at[j] = nph;
            for (int m = 0; m < nk; m++)
                link_at[link[m]] = nph;
            free_ranks -= 2;
            if (i == me)
                partner = j;
            else if (j == me)
                partner = i;
        }
        mine[nph - 1] = partner;
        left = kept;
    }
    s = malloc(sizeof(*s) + (size_t) (nph ? nph : 1) * sizeof(int));
    if (s) {
        s->nphases = nph;
        for (int f = 0; f < nph; f++)
            s->partner[f] = mine[f];
    }
out:
    free(pr);
    free(depth);
    free(load);
    free(link);
    free(rank_at);
    free(link_at);
    free(mine);
    return s;
}

int aot_coll_topo_sched(const struct aot_coll_ctx *ctx, const struct aot_topo_sched **out)
{
    const struct aot_coll_hier *h;
    struct aot_topo_sched *s;
    int rc = aot_coll_hier(ctx, &h);

    *out = NULL;
    if (rc != MPI_SUCCESS)
        return rc;
    s = aot_coll_slot_get(ctx, AOT_SLOT_TOPO_PAIR);
    if (!s) {
        s = aot_topo_sched_build(h, ctx->size, ctx->rank);
        if (s)
            s = aot_coll_slot_set(ctx, AOT_SLOT_TOPO_PAIR, s);
    }
    /* out of memory on one rank only: it returns an error, the others exchange with it and
     * fail too (MPI's errors are fatal by default on the private communicator) */
    if (!s)
        return MPI_ERR_NO_MEM;
    *out = s;
    return MPI_SUCCESS;
}
