/*
 * coll_ctx.c: the context algorithms run in (struct aot_coll_ctx, coll_ctx.h) and what it
 * computes on first use: the hierarchy of hosts, and the hosts' shared-memory area
 * (engines/coll_shm.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Hosts.  A rank's host is known from two sources that must agree:
 *   1. MPI_Get_processor_name, gathered from every rank (fixed blocks of
 *      MPI_MAX_PROCESSOR_NAME bytes): ranks with equal names form a name group;
 *   2. PMPI_Comm_split_type(MPI_COMM_TYPE_SHARED): the ranks that can share memory.
 * Two ranks are on one host only if both say so.  Each rank takes, among the members of its
 * shared-memory communicator, those of its own name group; the lowest of them names the host.
 * These sets partition the ranks (the intersection of two partitions), so every rank of a host
 * finds the same lowest rank, and one more allgather tells everyone the host of every rank.
 * The name comes first because in the emulated cluster (network namespaces, one launcher)
 * MPI_COMM_TYPE_SHARED alone lumps all ranks together (docs/platform.md); on a real cluster two
 * nodes with one name (a misconfiguration) are still told apart by shared memory.
 *
 * Topology order (h->order, h->place): hosts by switch in depth-first order, then host, then
 * rank, the order of Faraj & Yuan's logical ring (docs/topology.md).
 *
 * Cost, once per communicator: allgather of p * MPI_MAX_PROCESSOR_NAME bytes, one split, one
 * allgather within each host, one allgather of p ints, one allreduce of an int; then local.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "coll_ctx.h"
#include "coll_select.h"
#include "coll_shm.h"
#include "coll_switches.h"

struct aot_coll_lazy {
    int have_hier;              /* hier and its arrays are filled */
    struct aot_coll_hier hier;
    int *ints;                  /* one block holding every array of hier */
    void *slot[AOT_COLL_NSLOTS];  /* aot_coll_slot_get / _set */
    struct aot_shm *shm;        /* aot_coll_shm; NULL until then */
};

int aot_coll_ctx_init(struct aot_coll_ctx *ctx, MPI_Comm comm)
{
    int rc;

    ctx->comm = comm;
    ctx->param = 0;
    ctx->lazy = NULL;
    rc = PMPI_Comm_size(comm, &ctx->size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_rank(comm, &ctx->rank);
    if (rc != MPI_SUCCESS)
        return rc;
    ctx->lazy = calloc(1, sizeof(*ctx->lazy));
    return ctx->lazy ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void aot_coll_ctx_destroy(struct aot_coll_ctx *ctx)
{
    if (!ctx->lazy)
        return;
    /* the windows and communicators of aot_coll_shm: collective over the host, as the
     * communicator's free that brings us here is collective */
    aot_shm_free(ctx->lazy->shm);
    free(ctx->lazy->ints);
    for (int i = 0; i < AOT_COLL_NSLOTS; i++)
        free(ctx->lazy->slot[i]);
    free(ctx->lazy);
    ctx->lazy = NULL;
}

int aot_coll_shape_of(const struct aot_coll_ctx *ctx, struct aot_coll_shape *sh)
{
    const struct aot_coll_hier *h;
    int rc = aot_coll_hier(ctx, &h);

    sh->size = ctx->size;
    sh->nhosts = sh->ppn = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    sh->nhosts = h->nhosts;
    for (int i = 0; i < h->nhosts; i++)
        if (h->host_size[i] > sh->ppn)
            sh->ppn = h->host_size[i];
    return MPI_SUCCESS;
}

void *aot_coll_slot_get(const struct aot_coll_ctx *ctx, enum aot_coll_slot slot)
{
    return ctx->lazy ? ctx->lazy->slot[slot] : NULL;
}

void *aot_coll_slot_set(const struct aot_coll_ctx *ctx, enum aot_coll_slot slot, void *p)
{
    if (!ctx->lazy) {
        free(p);
        return NULL;
    }
    if (ctx->lazy->slot[slot])
        free(p);
    else
        ctx->lazy->slot[slot] = p;
    return ctx->lazy->slot[slot];
}

/* ---------------------------------------------------------------- the hierarchy */

/* qsort_r over rank numbers by (processor name, rank); arg: the gathered names. */
static int aot_hier_cmp(const void *a, const void *b, void *arg)
{
    const char *names = arg;
    int x = *(const int *) a, y = *(const int *) b;
    int c = strncmp(names + (size_t) x * MPI_MAX_PROCESSOR_NAME,
                    names + (size_t) y * MPI_MAX_PROCESSOR_NAME, MPI_MAX_PROCESSOR_NAME);
    return c ? c : (x > y) - (x < y);
}

/* group[r] = the lowest rank whose processor name equals rank r's (names: p blocks of
 * MPI_MAX_PROCESSOR_NAME bytes, each NUL-terminated).  order: p ints of scratch. */
static void aot_hier_name_groups(const char *names, int p, int *order, int *group)
{
    for (int r = 0; r < p; r++)
        order[r] = r;
    qsort_r(order, (size_t) p, sizeof(*order), aot_hier_cmp, (void *) names);
    for (int i = 0, lead = -1; i < p; i++) {
        if (i == 0 || strncmp(names + (size_t) order[i] * MPI_MAX_PROCESSOR_NAME,
                              names + (size_t) order[i - 1] * MPI_MAX_PROCESSOR_NAME,
                              MPI_MAX_PROCESSOR_NAME) != 0)
            lead = order[i];    /* ties are sorted by rank: the first is the lowest */
        group[order[i]] = lead;
    }
}

/* Fills h from id[r] (the lowest rank of rank r's host; id[r] <= r) into ints, which has room
 * for 2p + 3p + 1 ints (hosts are at most p). */
static void aot_hier_fill(struct aot_coll_hier *h, const int *id, int p, int me, int *ints)
{
    int *host = ints, *members = ints + p, *host_size = ints + 2 * p;
    int *leader = host_size + p, *first = leader + p;
    int nhosts = 0;

    for (int r = 0; r < p; r++) {
        if (id[r] == r) {
            leader[nhosts] = r;
            host_size[nhosts] = 0;
            host[r] = nhosts++;
        } else {
            host[r] = host[id[r]];
        }
        host_size[host[r]]++;
    }
    first[0] = 0;
    for (int k = 0; k < nhosts; k++)
        first[k + 1] = first[k] + host_size[k];
    /* members, host by host in ascending rank; host_size counts again as they are placed */
    for (int k = 0; k < nhosts; k++)
        host_size[k] = 0;
    for (int r = 0; r < p; r++) {
        int k = host[r];
        if (r == me)
            h->local_rank = host_size[k];
        members[first[k] + host_size[k]++] = r;
    }
    h->nhosts = nhosts;
    h->host = host;
    h->host_size = host_size;
    h->leader = leader;
    h->first = first;
    h->members = members;
    h->my_host = host[me];
    h->local_size = host_size[host[me]];
    h->nswitches = -1;
    h->switch_of = NULL;
}

/* h->order and h->place in ints (2p): hosts stably sorted by switch (switch numbers are
 * depth-first, coll_switches.c), each host's members in ascending rank.  A counting sort over the
 * switches; without a topology every host counts as switch 0, which leaves members as it is. */
static void aot_hier_order(struct aot_coll_hier *h, int p, int *ints)
{
    int *order = ints, *place = ints + p, n = 0;
    int nsw = h->nswitches > 0 ? h->nswitches : 1;

    for (int s = -1; s < nsw; s++)      /* -1: a host the topology did not place (none) */
        for (int k = 0; k < h->nhosts; k++) {
            int sk = h->switch_of ? h->switch_of[k] : 0;
            if (sk != s && !(s == -1 && (sk < -1 || sk >= nsw)))
                continue;
            for (int i = h->first[k]; i < h->first[k + 1]; i++)
                order[n++] = h->members[i];
        }
    for (int i = 0; i < p; i++)
        place[order[i]] = i;
    h->order = order;
    h->place = place;
}

static int aot_hier_compute(const struct aot_coll_ctx *ctx, struct aot_coll_lazy *lz)
{
    const int p = ctx->size, me = ctx->rank;
    char mine[MPI_MAX_PROCESSOR_NAME];
    char *names = calloc((size_t) p, MPI_MAX_PROCESSOR_NAME);
    int *group = malloc((size_t) p * sizeof(int));
    int *id = malloc((size_t) p * sizeof(int));
    int *shm_ranks = malloc((size_t) p * sizeof(int));
    int *ints = malloc((size_t) (8 * p + 1) * sizeof(int));
    int failed = !names || !group || !id || !shm_ranks || !ints, anyfailed = 1;
    int len = 0, q, mine_id, rc;
    MPI_Comm shm = MPI_COMM_NULL;

    /* Every rank learns whether one ran out of memory, so that all return together instead of
     * some waiting in an allgather the others never join. */
    rc = PMPI_Allreduce(&failed, &anyfailed, 1, MPI_INT, MPI_MAX, ctx->comm);
    if (rc == MPI_SUCCESS && anyfailed)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS)
        goto out;

    memset(mine, 0, sizeof(mine));
    rc = PMPI_Get_processor_name(mine, &len);
    if (rc != MPI_SUCCESS)
        goto out;
    mine[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    rc = PMPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                        MPI_CHAR, ctx->comm);
    if (rc != MPI_SUCCESS)
        goto out;
    aot_hier_name_groups(names, p, id, group);      /* id: scratch here */

    /* Within the ranks that share memory with this one, those of its name group. */
    rc = PMPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, group[me], MPI_INFO_NULL, &shm);
    if (rc != MPI_SUCCESS)
        goto out;
    rc = PMPI_Comm_size(shm, &q);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allgather(&me, 1, MPI_INT, shm_ranks, 1, MPI_INT, shm);
    if (rc != MPI_SUCCESS)
        goto out;
    mine_id = me;
    for (int i = 0; i < q; i++)
        if (group[shm_ranks[i]] == group[me] && shm_ranks[i] < mine_id)
            mine_id = shm_ranks[i];

    rc = PMPI_Allgather(&mine_id, 1, MPI_INT, id, 1, MPI_INT, ctx->comm);
    if (rc != MPI_SUCCESS)
        goto out;
    aot_hier_fill(&lz->hier, id, p, me, ints);
    if (aot_coll_topo_nswitches() >= 0) {
        /* after the 5p + 1 ints of aot_hier_fill: the switch of each host, by its leader's
         * processor name */
        int *switch_of = ints + 5 * p + 1;
        for (int k = 0; k < lz->hier.nhosts; k++)
            switch_of[k] = aot_coll_topo_switch(names + (size_t) lz->hier.leader[k]
                                                                * MPI_MAX_PROCESSOR_NAME);
        lz->hier.nswitches = aot_coll_topo_nswitches();
        lz->hier.switch_of = switch_of;
    }
    aot_hier_order(&lz->hier, p, ints + 6 * p + 1);
    lz->ints = ints;
    ints = NULL;
    lz->have_hier = 1;
out:
    if (shm != MPI_COMM_NULL)
        PMPI_Comm_free(&shm);
    free(names);
    free(group);
    free(id);
    free(shm_ranks);
    free(ints);
    return rc;
}

int aot_coll_hier(const struct aot_coll_ctx *ctx, const struct aot_coll_hier **out)
{
    struct aot_coll_lazy *lz = ctx->lazy;
    int rc;

    *out = NULL;
    if (!lz)
        return MPI_ERR_INTERN;
    if (!lz->have_hier) {
        rc = aot_hier_compute(ctx, lz);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    *out = &lz->hier;
    return MPI_SUCCESS;
}

int aot_coll_shm(const struct aot_coll_ctx *ctx, struct aot_shm **out)
{
    struct aot_coll_lazy *lz = ctx->lazy;
    const struct aot_coll_hier *h;
    int rc;

    *out = NULL;
    if (!lz)
        return MPI_ERR_INTERN;
    if (!lz->shm) {
        rc = aot_coll_hier(ctx, &h);
        if (rc == MPI_SUCCESS)
            rc = aot_shm_create(ctx, h, &lz->shm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    *out = lz->shm;
    return MPI_SUCCESS;
}
