/*
 * topology_job.c: topology_job SWITCHES -- run by "autoopt-netcluster run --topology-out FILE":
 * checks that the file it wrote (AUTOOPT_TOPOLOGY) describes the job's hosts exactly as
 * MPI_Get_processor_name names them.  Rank 0 reads the file with autoopt's reader, resolves
 * the job's hosts (first appearance order) and checks that host k is on switch
 * br<k*SWITCHES/hosts> and that the depth-first order is the host order.  Ends with
 * "No Errors"; exit status 1 on a mismatch.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_topology_conf.h"

int main(int argc, char **argv)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "", *all = NULL;
    int rank, size, len, errors = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    if (rank == 0)
        all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank == 0) {
        const char **hosts = calloc((size_t)size, sizeof(*hosts));
        const char *path = getenv("AUTOOPT_TOPOLOGY");
        int switches = argc > 1 ? atoi(argv[1]) : 1, nhosts = 0;
        struct aot_topology t;
        struct aot_topo_job j;
        char err[1024];

        for (int r = 0; r < size; r++) {
            const char *n = all + (size_t)r * MPI_MAX_PROCESSOR_NAME;
            int h;
            printf("topology_job: rank %d on %s\n", r, n);
            for (h = 0; h < nhosts && strcmp(hosts[h], n); h++)
                ;
            if (h == nhosts)
                hosts[nhosts++] = n;
        }
        if (!path) {
            printf("topology_job: AUTOOPT_TOPOLOGY is not set\n");
            errors++;
        } else if (aot_topology_read(&t, path, err, sizeof(err)) != 0) {
            printf("topology_job: %s\n", err);
            errors++;
        } else {
            if (aot_topology_resolve(&t, nhosts, hosts, &j, err, sizeof(err)) != 0) {
                printf("topology_job: %s\n", err);
                errors++;
            } else {
                for (int h = 0; h < nhosts; h++) {
                    char want[32];
                    const char *got = t.sw[j.file_switch[j.host_switch[h]]].name;
                    snprintf(want, sizeof(want), "br%d", h * switches / nhosts);
                    printf("topology_job: host %s on switch %s\n", hosts[h], got);
                    if (strcmp(got, want) || j.order[h] != h) {
                        printf("topology_job: host %d (%s): switch %s, expected %s; order %d\n",
                               h, hosts[h], got, want, j.order[h]);
                        errors++;
                    }
                }
                aot_topo_job_free(&j);
            }
            aot_topology_free(&t);
        }
        if (!errors)
            printf("topology_job: No Errors\n");
        free(hosts);
        free(all);
    }
    MPI_Bcast(&errors, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return errors ? 1 : 0;
}
