/*
 * coll_switches.h: the switches of the job's network (coll_switches.c, from AUTOOPT_TOPOLOGY,
 * docs/topology.md): which switch each host hangs from, and the tree of switches.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_COLL_SWITCHES_H_INCLUDED
#define AOT_COLL_SWITCHES_H_INCLUDED

#include <stddef.h>

/* At MPI_Init, collective over MPI_COMM_WORLD: reads AUTOOPT_TOPOLOGY's file on rank 0 and
 * resolves the job's hosts against it.  0, or -1 with the same one-line message on every rank
 * ("FILE:LINE: problem", "host X of this job is not in FILE"). */
int aot_coll_topo_init(const char *path, char *err, size_t errlen);
void aot_coll_topo_free(void);
/* Switches of the job's tree (-1 without a topology), and the switch of host `name` (a
 * processor name; -1 when unknown or without a topology). */
int aot_coll_topo_nswitches(void);
int aot_coll_topo_switch(const char *name);
/* The number of uplinks between switches a and b of the job's tree (0 when a == b; -1 when
 * either is not a switch of the tree). */
int aot_coll_topo_hops(int a, int b);
/* The parent of switch sw in the job's tree, -1 for the root or an unknown switch.  Every
 * switch but the root hangs from its parent by one uplink, which this names. */
int aot_coll_topo_parent(int sw);

#endif /* AOT_COLL_SWITCHES_H_INCLUDED */
