/*
 * aot.h: autoopt's internal glue, all of it: the headers of src/ that say one thing each.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Not installed.  Everything declared here is hidden (-fvisibility=hidden); only MPI entry
 * points and the API in autoopt.h are exported from libautoopt.so.  Files of src/ and
 * collectives/ include the specific headers they use (tests/include_graph.py checks it); this
 * umbrella serves intercept/, paging/ and chains/.
 */
#ifndef AOT_H_INCLUDED
#define AOT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#include "aot_config.h"     /* the AUTOOPT_* settings */
#include "aot_explore.h"    /* one governor explores at a time, the clock */
#include "aot_files.h"      /* autoopt's directory and files */
#include "aot_hooks.h"      /* the enter / leave hooks and their bits */
#include "aot_log.h"        /* aot_log, AOT_LOG */
#include "aot_pmpi.h"       /* PMPI calls made for autoopt itself */
#include "aot_runtime.h"    /* start-up, shutdown, the subsystems' steps */
#include "aot_state.h"      /* active, aot_cfg, world rank and size, per-thread state */
#include "aot_stats.h"      /* pass reasons, counters, call counts, the report */
#include "aot_sys.h"        /* system calls, probes */
#include "aot_threads.h"    /* the program's own threads */
#include "aot_trace.h"      /* trace events */

#endif /* AOT_H_INCLUDED */
