/*
 * aot_topology_conf.h: the network topology of a cluster, read from Slurm's topology.conf
 * (docs/topology.md), and its resolution against the hosts of one job.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Pure C: no MPI calls and no global state.  Host lists ("node[0-3,7]") are expanded by Slurm's
 * own parser, which libslurm provides; it is loaded with dlopen() when a topology is parsed, so
 * libautoopt.so does not depend on libslurm at load time.  Every error is one line,
 * "FILE:LINE: problem" (or "FILE: problem" when no one line is to blame).
 */
#ifndef AOT_TOPOLOGY_H_INCLUDED
#define AOT_TOPOLOGY_H_INCLUDED

#include <stddef.h>

/* The largest topology file read (a cluster of ten thousand nodes needs far less). */
#define AOT_TOPOLOGY_MAX_BYTES (4 << 20)

/* A switch: one SwitchName= line.  Its parent is the switch whose Switches= names it. */
struct aot_topo_switch {
    char *name;
    char *link_speed;           /* LinkSpeed= as written, NULL when absent (kept, unused) */
    int line;                   /* line of its SwitchName= */
    int parent;                 /* index of the parent switch, -1 for a root */
    int parent_line;            /* line of the Switches= that names it, 0 for a root */
    int depth;                  /* 0 for a root, parent's depth + 1 below it */
    int *child;                 /* child switches in the order the file lists them */
    int nchild;
};

/* A node (host): one name expanded from a Nodes= list. */
struct aot_topo_node {
    char *name;
    int sw;                     /* the switch whose Nodes= lists it */
    int line;
};

struct aot_topology {
    char *file;                 /* the name used in messages */
    struct aot_topo_switch *sw;
    int nsw;
    struct aot_topo_node *node; /* sorted by name */
    int nnode;
};

void aot_topology_init(struct aot_topology *t);
void aot_topology_free(struct aot_topology *t);

/* Parses the len bytes of text, the contents of topology file `file` (the name is used in
 * messages only).  0, or -1 with one line "FILE:LINE: problem" in err (t is then empty). */
int aot_topology_parse(struct aot_topology *t, const char *text, size_t len, const char *file,
                       char *err, size_t errlen);
/* aot_topology_parse() of the file at path. */
int aot_topology_read(struct aot_topology *t, const char *path, char *err, size_t errlen);

/* The node named name, or NULL. */
const struct aot_topo_node *aot_topology_node(const struct aot_topology *t, const char *name);

/* The topology as one job sees it.  Only the switches on the way from the job's hosts to the
 * root of their tree are kept; they are numbered in depth-first order from that root (children
 * in the order the file lists them), so a switch's index is larger than its parent's.  The
 * arrays are plain ints, to be broadcast as they are. */
struct aot_topo_job {
    int nhosts;
    int nsw;
    int *host_switch;           /* [nhosts] the switch each host is attached to */
    int *parent;                /* [nsw] parent switch, -1 for the root (switch 0) */
    int *depth;                 /* [nsw] 0 for the root */
    int *file_switch;           /* [nsw] index into aot_topology.sw (for names) */
    int *order;                 /* [nhosts] hosts in depth-first order by switch: the hosts of
                                 * switch 0 first, then switch 1's...; hosts of one switch in
                                 * job order (the logical ring of Faraj & Yuan) */
};

/* Resolves the nhosts host names of a job (one per host, as MPI_Get_processor_name reports
 * them; no name twice) against t.  0, or -1 with one line in err: a host the file lacks, or
 * hosts under switches that no switch joins. */
int aot_topology_resolve(const struct aot_topology *t, int nhosts, const char *const *hosts,
                         struct aot_topo_job *j, char *err, size_t errlen);
void aot_topo_job_free(struct aot_topo_job *j);

/* The number of switch-to-switch links between the switches of hosts a and b: 0 on the same
 * switch, 2 for two switches under one parent. */
int aot_topo_distance(const struct aot_topo_job *j, int a, int b);

#endif
