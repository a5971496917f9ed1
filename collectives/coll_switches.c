/*
 * coll_switches.c: the job's network topology (AUTOOPT_TOPOLOGY, docs/topology.md), read at
 * MPI_Init: which switch each host of MPI_COMM_WORLD hangs from.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every rank gathers every rank's processor name; the hosts of the job are the distinct names
 * in order of their lowest rank, which every rank computes alike.  Rank 0 reads the file
 * (topology_conf.c, the pure reader) and resolves those hosts against it; it broadcasts either its
 * one-line error, which every rank then reports (MPI_Init stops on all), or the switch of each
 * host and the switch tree.  A communicator's hierarchy (coll_ctx.c) takes the switch of each
 * of its hosts from here by name.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_log.h"
#include "aot_state.h"
#include "aot_topology_conf.h"
#include "coll_switches.h"
#include "coll_util.h"

static struct {
    int nhosts, nsw;
    char *names;                /* nhosts names of MPI_MAX_PROCESSOR_NAME bytes */
    int *host_switch;           /* [nhosts] */
    int *parent, *depth;        /* [nsw] */
} aot_topo;

void aot_coll_topo_free(void)
{
    free(aot_topo.names);
    free(aot_topo.host_switch);
    free(aot_topo.parent);
    free(aot_topo.depth);
    memset(&aot_topo, 0, sizeof(aot_topo));
}

int aot_coll_topo_nswitches(void)
{
    return aot_topo.host_switch ? aot_topo.nsw : -1;
}

int aot_coll_topo_switch(const char *name)
{
    for (int h = 0; aot_topo.host_switch && h < aot_topo.nhosts; h++)
        if (strncmp(aot_topo.names + (size_t) h * MPI_MAX_PROCESSOR_NAME, name,
                    MPI_MAX_PROCESSOR_NAME) == 0)
            return aot_topo.host_switch[h];
    return -1;
}

int aot_coll_topo_parent(int sw)
{
    return aot_topo.host_switch && sw >= 0 && sw < aot_topo.nsw ? aot_topo.parent[sw] : -1;
}

int aot_coll_topo_hops(int a, int b)
{
    int hs[2] = {a, b};
    struct aot_topo_job j;

    if (!aot_topo.host_switch || a < 0 || b < 0 || a >= aot_topo.nsw || b >= aot_topo.nsw)
        return -1;
    /* aot_topo_distance walks hosts' switches: two pretend hosts on a and b */
    memset(&j, 0, sizeof(j));
    j.nhosts = 2;
    j.nsw = aot_topo.nsw;
    j.host_switch = hs;
    j.parent = aot_topo.parent;
    j.depth = aot_topo.depth;
    return aot_topo_distance(&j, 0, 1);
}

/* Rank 0: reads and resolves.  0, or -1 with the message in err. */
static int aot_topo_resolve_root(const char *path, const char *hosts, int nhosts,
                                 struct aot_topo_job *job, char *err, size_t errlen)
{
    struct aot_topology t;
    const char **names = malloc((size_t) nhosts * sizeof(*names));
    int rc = -1;

    aot_topology_init(&t);
    if (!names)
        snprintf(err, errlen, "%s: out of memory", path);
    else if (aot_topology_read(&t, path, err, errlen) == 0) {
        for (int h = 0; h < nhosts; h++)
            names[h] = hosts + (size_t) h * MPI_MAX_PROCESSOR_NAME;
        rc = aot_topology_resolve(&t, nhosts, names, job, err, errlen);
    } else {
        aot_coll_name_setting("AUTOOPT_TOPOLOGY", err, errlen);
    }
    aot_topology_free(&t);
    free(names);
    return rc;
}

int aot_coll_topo_init(const char *path, char *err, size_t errlen)
{
    const size_t nm = MPI_MAX_PROCESSOR_NAME;
    char mine[MPI_MAX_PROCESSOR_NAME];
    char *all = calloc((size_t) aot_world_size, nm), *hosts = calloc((size_t) aot_world_size, nm);
    struct aot_topo_job job;
    int nhosts = 0, len = 0, status = 0, nsw = 0, rc;

    memset(&job, 0, sizeof(job));
    memset(mine, 0, sizeof(mine));
    /* a rank that stopped here alone would leave the others in the collectives below */
    if (!all || !hosts || PMPI_Get_processor_name(mine, &len) != MPI_SUCCESS)
        PMPI_Abort(MPI_COMM_WORLD, 1);
    mine[nm - 1] = '\0';
    rc = PMPI_Allgather(mine, (int) nm, MPI_CHAR, all, (int) nm, MPI_CHAR, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "AUTOOPT_TOPOLOGY: cannot gather the processor names");
        goto out;
    }
    for (int r = 0; r < aot_world_size; r++) {
        const char *n = all + (size_t) r * nm;
        int seen = 0;
        for (int h = 0; h < nhosts && !seen; h++)
            seen = strncmp(hosts + (size_t) h * nm, n, nm) == 0;
        if (!seen)
            memcpy(hosts + (size_t) nhosts++ * nm, n, nm);
    }
    if (aot_world_rank == 0) {
        if (aot_topo_resolve_root(path, hosts, nhosts, &job, err, errlen) == 0)
            nsw = job.nsw;
        else
            status = (int) strlen(err) + 1;
    }
    rc = PMPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && status > 0) {
        /* every rank reports rank 0's message */
        if ((size_t) status > errlen)
            status = (int) errlen;
        PMPI_Bcast(err, status, MPI_CHAR, 0, MPI_COMM_WORLD);
        err[status - 1] = '\0';
        rc = -1;
        goto out;
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(&nsw, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "AUTOOPT_TOPOLOGY: cannot broadcast the topology");
        goto out;
    }
    aot_topo.host_switch = malloc((size_t) nhosts * sizeof(int));
    aot_topo.parent = malloc((size_t) (nsw ? nsw : 1) * sizeof(int));
    aot_topo.depth = malloc((size_t) (nsw ? nsw : 1) * sizeof(int));
    /* out of memory on one rank only would hang the others in the broadcasts: abort there */
    if (!aot_topo.host_switch || !aot_topo.parent || !aot_topo.depth)
        PMPI_Abort(MPI_COMM_WORLD, 1);
    if (aot_world_rank == 0) {
        memcpy(aot_topo.host_switch, job.host_switch, (size_t) nhosts * sizeof(int));
        memcpy(aot_topo.parent, job.parent, (size_t) nsw * sizeof(int));
        memcpy(aot_topo.depth, job.depth, (size_t) nsw * sizeof(int));
    }
    rc = PMPI_Bcast(aot_topo.host_switch, nhosts, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(aot_topo.parent, nsw, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(aot_topo.depth, nsw, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "AUTOOPT_TOPOLOGY: cannot broadcast the topology");
        aot_coll_topo_free();
        goto out;
    }
    aot_topo.nhosts = nhosts;
    aot_topo.nsw = nsw;
    aot_topo.names = hosts;
    hosts = NULL;
    if (aot_world_rank == 0)
        AOT_LOG(1, "collectives: topology from %s: %d host%s on %d switch%s", path, nhosts,
                nhosts == 1 ? "" : "s", nsw, nsw == 1 ? "" : "es");
out:
    aot_topo_job_free(&job);
    free(all);
    free(hosts);
    return rc == MPI_SUCCESS ? 0 : -1;
}
