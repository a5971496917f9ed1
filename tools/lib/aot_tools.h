/*
 * aot_tools.h: the library of the offline tools (libautoopt-tools.a, tools/lib/): what
 * autoopt-tune and its subcommands need beside the collectives themselves.  The runtime,
 * libautoopt.so, never includes this header nor links this library (tests/include_graph.py).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The library holds
 *   - the set-up a tool does in place of libautoopt.so's MPI_Init (this header);
 *   - the pure core of the empirical tuner: estimates, searches, the raw measurement file
 *     (aot_tuner_core.h, tuner_core.c);
 *   - the decision encodings of measured maps and the C they compile to (aot_encode.h,
 *     coll_encode.c).
 * The tuning file's reader and writer (aot_tuning_file.h) stay in collectives/: the runtime
 * reads AUTOOPT_TUNING with the same code the tools write and check it with.
 */
#ifndef AOT_TOOLS_H_INCLUDED
#define AOT_TOOLS_H_INCLUDED

#include <stddef.h>

/* The state libautoopt.so's MPI_Init gives the collectives, for a tool that runs them without
 * the library's MPI_Init: after MPI_Init, collective over MPI_COMM_WORLD.  With a topology
 * description (a path, not NULL or empty), sets the world rank and size the topology algorithms
 * use and reads the switches of that description as AUTOOPT_TOPOLOGY is read at MPI_Init
 * (docs/topology.md); without one it does nothing, and the library's messages keep the form
 * they have outside a job ("autoopt: ...", not "autoopt[0]: ...").  0, or -1 with the same
 * one-line message on every rank ("FILE:LINE: problem"). */
int aot_tools_setup(const char *topology, char *err, size_t errlen);

#endif /* AOT_TOOLS_H_INCLUDED */
