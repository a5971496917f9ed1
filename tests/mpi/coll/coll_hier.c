/*
 * coll_hier.c: the hierarchy of hosts an algorithm's context computes (aot_coll_hier,
 * collectives/coll_ctx.c), against a reference this program computes on its own.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The hierarchy has no documented interface, so this program links the internal archive
 * (autoopt-internal) and calls aot_coll_ctx_init / aot_coll_hier on a duplicate of each
 * communicator it tests, as the runner does.  It makes only PMPI calls itself, so autoopt's
 * interception (whose MPI_* entry points the archive holds too) never starts.
 *
 * Reference: every rank's processor name (PMPI_Allgather) and the lowest rank of its
 * shared-memory communicator (PMPI_Comm_split_type, then PMPI_Allreduce MIN), grouped serially:
 * two ranks share a host when both agree.  Checked for MPI_COMM_WORLD, its odd and even ranks
 * (PMPI_Comm_split) and its ranks in reverse order:
 *   - the host of every rank, the number of hosts, ranks per host, the leader (lowest rank) of
 *     every host, the member lists, this rank's host, local rank and local size;
 *   - the switch fields are unknown (-1, NULL) without a topology; with --topology FILE
 *     (or AUTOOPT_TOPOLOGY) --switch-of S0,S1,... (the expected switch index of each host of MPI_COMM_WORLD, in
 *     order of their lowest rank) the file is read as MPI_Init reads AUTOOPT_TOPOLOGY, and
 *     every communicator's hosts carry those switches;
 *   - a second call, and a call on a copy of the context with another parameter, return the
 *     same hierarchy (computed once, shared by copies);
 *   - with --hosts N, MPI_COMM_WORLD spans N hosts: 1 on one machine's shared memory, the
 *     number of emulated hosts under autoopt-netcluster.
 * Usage: coll_hier [--hosts N] [--topology FILE --switch-of S0,S1,...]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_state.h"
#include "aot_test.h"
#include "coll_ctx.h"
#include "coll_switches.h"

/* ref[r]: host of rank r of comm, hosts numbered in the order of their lowest rank; returns the
 * number of hosts. */
/* --topology: each world rank's host and each host's expected switch (NULL without). */
static int *world_host, *world_switch;

static int reference_hosts(MPI_Comm comm, int p, int *ref)
{
    char mine[MPI_MAX_PROCESSOR_NAME];
    char *names = calloc((size_t) p, MPI_MAX_PROCESSOR_NAME);
    int *shm_low = malloc((size_t) p * sizeof(int));
    int me, len, low, nhosts = 0;
    MPI_Comm shm;

    if (!names || !shm_low) {
        fprintf(stderr, "out of memory\n");
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    PMPI_Comm_rank(comm, &me);
    memset(mine, 0, sizeof(mine));
    PMPI_Get_processor_name(mine, &len);
    PMPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                   MPI_CHAR, comm);
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    PMPI_Allreduce(&me, &low, 1, MPI_INT, MPI_MIN, shm);
    PMPI_Comm_free(&shm);
    PMPI_Allgather(&low, 1, MPI_INT, shm_low, 1, MPI_INT, comm);

    for (int r = 0; r < p; r++) {
        ref[r] = -1;
        for (int s = 0; s < r && ref[r] < 0; s++)
            if (shm_low[s] == shm_low[r]
                && strcmp(names + (size_t) s * MPI_MAX_PROCESSOR_NAME,
                          names + (size_t) r * MPI_MAX_PROCESSOR_NAME) == 0)
                ref[r] = ref[s];
        if (ref[r] < 0)
            ref[r] = nhosts++;
    }
    free(names);
    free(shm_low);
    return nhosts;
}

/* Checks the hierarchy of comm; returns its number of hosts. */
static int check_comm(MPI_Comm comm, const char *what)
{
    struct aot_coll_ctx ctx, copy;
    const struct aot_coll_hier *h = NULL, *h2 = NULL, *h3 = NULL;
    MPI_Comm dup;
    int p, me, rc, nref, *ref;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &me);
    ref = malloc((size_t) p * sizeof(int));
    if (!ref) {
        fprintf(stderr, "out of memory\n");
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    nref = reference_hosts(comm, p, ref);

    PMPI_Comm_dup(comm, &dup);
    rc = aot_coll_ctx_init(&ctx, dup);
    CHECK(rc == MPI_SUCCESS, "%s: aot_coll_ctx_init returned %d", what, rc);
    CHECK(ctx.size == p && ctx.rank == me && ctx.param == 0 && ctx.comm == dup,
          "%s: context size %d rank %d param %ld, expected %d %d 0", what, ctx.size, ctx.rank,
          ctx.param, p, me);
    rc = aot_coll_hier(&ctx, &h);
    CHECK(rc == MPI_SUCCESS && h, "%s: aot_coll_hier returned %d", what, rc);
    if (rc != MPI_SUCCESS || !h) {
        aot_coll_ctx_destroy(&ctx);
        PMPI_Comm_free(&dup);
        free(ref);
        return -1;
    }
    rc = aot_coll_hier(&ctx, &h2);
    copy = aot_coll_ctx_with(&ctx, 7);
    CHECK(copy.param == 7 && copy.comm == dup, "%s: the copy has param %ld", what, copy.param);
    rc |= aot_coll_hier(&copy, &h3);
    CHECK(rc == MPI_SUCCESS && h2 == h && h3 == h,
          "%s: later calls gave another hierarchy (%p %p, first %p)", what, (const void *) h2,
          (const void *) h3, (const void *) h);

    CHECK(h->nhosts == nref, "%s: %d hosts, expected %d", what, h->nhosts, nref);
    for (int r = 0; r < p; r++)
        CHECK(h->host[r] == ref[r], "%s: rank %d on host %d, expected %d", what, r, h->host[r],
              ref[r]);
    if (h->nhosts == nref) {
        int local_rank = 0, at = 0;
        for (int k = 0; k < nref; k++) {
            int n = 0, lead = -1;
            for (int r = 0; r < p; r++)
                if (ref[r] == k) {
                    if (lead < 0)
                        lead = r;
                    CHECK(h->first[k] + n < p && h->members[h->first[k] + n] == r,
                          "%s: member %d of host %d is not rank %d", what, n, k, r);
                    n++;
                }
            CHECK(h->host_size[k] == n, "%s: host %d has %d ranks, expected %d", what, k,
                  h->host_size[k], n);
            CHECK(h->leader[k] == lead, "%s: leader of host %d is %d, expected %d", what, k,
                  h->leader[k], lead);
            CHECK(h->first[k] == at, "%s: host %d starts at %d, expected %d", what, k,
                  h->first[k], at);
            at += n;
        }
        CHECK(h->first[nref] == p, "%s: members end at %d, expected %d", what, h->first[nref], p);
        for (int r = 0; r < me; r++)
            local_rank += ref[r] == ref[me];
        CHECK(h->my_host == ref[me], "%s: my host %d, expected %d", what, h->my_host, ref[me]);
        CHECK(h->local_rank == local_rank, "%s: local rank %d, expected %d", what, h->local_rank,
              local_rank);
        CHECK(h->local_size == h->host_size[ref[me]], "%s: local size %d, expected %d", what,
              h->local_size, h->host_size[ref[me]]);
    }
    if (!world_switch) {
        CHECK(h->nswitches == -1 && h->switch_of == NULL, "%s: switches known (%d)", what,
              h->nswitches);
    } else if (h->nhosts == nref) {
        /* host k of this communicator is world host world_host_of(leader) */
        CHECK(h->nswitches > 0 && h->switch_of != NULL, "%s: no switches", what);
        for (int k = 0; h->switch_of && k < h->nhosts; k++) {
            int wr, want;
            MPI_Group g, wg;
            PMPI_Comm_group(comm, &g);
            PMPI_Comm_group(MPI_COMM_WORLD, &wg);
            PMPI_Group_translate_ranks(g, 1, &h->leader[k], wg, &wr);
            PMPI_Group_free(&g);
            PMPI_Group_free(&wg);
            want = world_switch[world_host[wr]];
            CHECK(h->switch_of[k] == want, "%s: host %d on switch %d, expected %d", what, k,
                  h->switch_of[k], want);
        }
    }

    /* The topology order: a permutation with place its inverse, switches non-decreasing
     * (depth-first numbers), the ranks of a host together and ascending. */
    for (int i = 0; i < p; i++) {
        int r = h->order[i], prev = i ? h->order[i - 1] : -1;
        CHECK(r >= 0 && r < p && h->place[r] == i, "%s: order[%d] = %d, place %d", what, i, r,
              r >= 0 && r < p ? h->place[r] : -1);
        if (prev < 0 || r < 0 || r >= p)
            continue;
        if (h->switch_of)
            CHECK(h->switch_of[h->host[prev]] <= h->switch_of[h->host[r]],
                  "%s: order %d (switch %d) after %d (switch %d)", what, r,
                  h->switch_of[h->host[r]], prev, h->switch_of[h->host[prev]]);
        if (h->host[prev] == h->host[r])
            CHECK(prev < r, "%s: order %d after %d on one host", what, r, prev);
        for (int j = 0; j < i - 1 && h->host[prev] != h->host[r]; j++)
            CHECK(h->host[h->order[j]] != h->host[r], "%s: host %d's ranks apart in the order",
                  what, h->host[r]);
    }

    aot_coll_ctx_destroy(&ctx);
    CHECK(ctx.lazy == NULL, "%s: aot_coll_ctx_destroy left the lazy state", what);
    aot_coll_ctx_destroy(&ctx);         /* a second destroy does nothing */
    PMPI_Comm_free(&dup);
    free(ref);
    return nref;
}

/* The host of every world rank (by processor name, hosts numbered by their lowest rank) and
 * the expected switch of each host, from --switch-of. */
static void set_world_hosts(int size, const char *spec)
{
    char mine[MPI_MAX_PROCESSOR_NAME] = {0};
    char *names = calloc((size_t) size, MPI_MAX_PROCESSOR_NAME);
    int len, nh = 0, cap = 1;

    world_host = malloc((size_t) size * sizeof(int));
    PMPI_Get_processor_name(mine, &len);
    PMPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                   MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        world_host[r] = -1;
        for (int q = 0; q < r && world_host[r] < 0; q++)
            if (strcmp(names + (size_t) q * MPI_MAX_PROCESSOR_NAME,
                       names + (size_t) r * MPI_MAX_PROCESSOR_NAME) == 0)
                world_host[r] = world_host[q];
        if (world_host[r] < 0)
            world_host[r] = nh++;
    }
    for (const char *c = spec; *c; c++)
        cap += *c == ',';
    world_switch = malloc((size_t) cap * sizeof(int));
    for (int k = 0; k < cap; k++) {
        world_switch[k] = atoi(spec);
        spec = strchr(spec, ',');
        spec = spec ? spec + 1 : "";
    }
    CHECK(cap == nh, "--switch-of gives %d switches for %d hosts", cap, nh);
    free(names);
}

int main(int argc, char **argv)
{
    MPI_Comm half, rev;
    const char *topology = NULL, *switch_of = NULL;
    int rank, size, hosts = -1, n, rc;

    PMPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--hosts") == 0 && i + 1 < argc) {
            hosts = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--topology") == 0 && i + 1 < argc) {
            topology = argv[++i];
        } else if (strcmp(argv[i], "--switch-of") == 0 && i + 1 < argc) {
            switch_of = argv[++i];
        } else {
            fprintf(stderr, "usage: coll_hier [--hosts N] [--topology FILE --switch-of S,...]\n");
            PMPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (switch_of && !topology)
        topology = getenv("AUTOOPT_TOPOLOGY");
    if (topology) {
        char err[1024];
        if (!switch_of)
            PMPI_Abort(MPI_COMM_WORLD, 2);
        set_world_hosts(size, switch_of);
        aot_world_rank = rank;      /* set by MPI_Init's wrapper in a real run */
        aot_world_size = size;
        rc = aot_coll_topo_init(topology, err, sizeof(err));
        CHECK(rc == 0, "aot_coll_topo_init: %s", err);
    }

    n = check_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    if (hosts >= 0)
        CHECK(n == hosts, "MPI_COMM_WORLD spans %d hosts, expected %d (--hosts)", n, hosts);
    if (rank == 0)
        printf("coll_hier: %d ranks on %d host%s\n", size, n, n == 1 ? "" : "s");

    PMPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    check_comm(half, rank % 2 ? "odd ranks" : "even ranks");
    PMPI_Comm_free(&half);

    PMPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    check_comm(rev, "reversed ranks");
    PMPI_Comm_free(&rev);

    check_comm(MPI_COMM_SELF, "MPI_COMM_SELF");

    /* MPI_Finalize would be autoopt's (the archive's) entry point: PMPI_Finalize instead */
    rc = aot_test_verdict();
    free(world_host);
    free(world_switch);
    PMPI_Finalize();
    return rc;
}
