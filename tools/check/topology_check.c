/*
 * topology_check.c: aot-topology-check FILE [HOST...] -- reads a Slurm topology.conf with the
 * library's own reader (docs/topology.md) and prints its switch tree; with hosts, resolves them
 * as the hosts of one job and prints each host's switch, the depth-first order and the switch
 * distances.  Prints the first error ("FILE:LINE: message") and exits 1 if the file is bad or
 * a host cannot be resolved.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "aot_topology_conf.h"

static void print_switch(const struct aot_topology *t, int s)
{
    const struct aot_topo_switch *sw = &t->sw[s];
    int first = 1;

    printf("%*s%s (line %d%s%s)", 2 * sw->depth, "", sw->name, sw->line,
           sw->link_speed ? ", LinkSpeed=" : "", sw->link_speed ? sw->link_speed : "");
    for (int i = 0; i < t->nnode; i++)
        if (t->node[i].sw == s) {
            printf("%s%s", first ? ": " : ",", t->node[i].name);
            first = 0;
        }
    printf("\n");
    for (int c = 0; c < sw->nchild; c++)
        print_switch(t, sw->child[c]);
}

int main(int argc, char **argv)
{
    struct aot_topology t;
    struct aot_topo_job j;
    char err[1024];
    int nhosts = argc - 2;

    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: aot-topology-check FILE [HOST...]\n"
                "Reads a Slurm topology.conf as libautoopt.so reads it (AUTOOPT_TOPOLOGY, "
                "docs/topology.md)\nand prints its switch tree.  With hosts (one name per host, "
                "as MPI_Get_processor_name\nreports them), resolves them as one job's hosts: "
                "switch of each host, depth-first order,\nswitch distances.  Exit status 1 on "
                "the first error.\n");
        return argc < 2 ? 2 : 0;
    }
    if (aot_topology_read(&t, argv[1], err, sizeof(err)) != 0) {
        fprintf(stderr, "aot-topology-check: %s\n", err);
        return 1;
    }
    printf("%s: %d switches, %d nodes\n", argv[1], t.nsw, t.nnode);
    for (int s = 0; s < t.nsw; s++)
        if (t.sw[s].parent < 0)
            print_switch(&t, s);
    if (nhosts > 0) {
        if (aot_topology_resolve(&t, nhosts, (const char *const *)argv + 2, &j, err,
                                 sizeof(err)) != 0) {
            fprintf(stderr, "aot-topology-check: %s\n", err);
            aot_topology_free(&t);
            return 1;
        }
        printf("job: %d hosts under %d switches\n", j.nhosts, j.nsw);
        for (int h = 0; h < nhosts; h++)
            printf("  host %d %s: switch %s (depth %d)\n", h, argv[2 + h],
                   t.sw[j.file_switch[j.host_switch[h]]].name, j.depth[j.host_switch[h]]);
        printf("depth-first order:");
        for (int i = 0; i < nhosts; i++)
            printf(" %s", argv[2 + j.order[i]]);
        printf("\nswitch distances (links between the hosts' switches):\n");
        for (int a = 0; a < nhosts; a++) {
            printf(" ");
            for (int b = 0; b < nhosts; b++)
                printf(" %2d", aot_topo_distance(&j, a, b));
            printf("   %s\n", argv[2 + a]);
        }
        aot_topo_job_free(&j);
    }
    aot_topology_free(&t);
    return 0;
}
