/*
 * tools.c: the set-up of an offline tool that runs the collectives without libautoopt.so's
 * MPI_Init (aot_tools.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>

#include "aot_state.h"
#include "aot_tools.h"
#include "coll_switches.h"

int aot_tools_setup(const char *topology, char *err, size_t errlen)
{
    if (!topology || !*topology)
        return 0;
    /* what MPI_Init's wrapper sets in the library */
    PMPI_Comm_rank(MPI_COMM_WORLD, &aot_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &aot_world_size);
    return aot_coll_topo_init(topology, err, errlen);
}
