/*
 * aot_state.h: autoopt's run-time state: whether it is active, the configuration, the
 * job's ranks, the thread level and the per-thread call state.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_STATE_H_INCLUDED
#define AOT_STATE_H_INCLUDED

#include "aot_config.h"

/* Set once MPI_Init has succeeded and autoopt is active (not AUTOOPT_DISABLE=1). */
extern int aot_active;
/* The configuration read in MPI_Init; constant afterwards. */
extern struct aot_config aot_cfg;
/* MPI_COMM_WORLD rank and size, valid after MPI_Init. */
extern int aot_world_rank, aot_world_size;
/* Thread level the program obtained. */
extern int aot_thread_level;

/* Per-thread call state.  depth > 0 while autoopt runs inside an intercepted call: any MPI call
 * made then is autoopt's own and goes straight to PMPI (wrappers test this first).  site_file
 * and site_line hold the exact call site when the program was built with autoopt-mpicc. */
struct aot_tls {
    int depth;
    int site_line;
    const char *site_file;
    const void *caller;      /* return address into the program of a routed call */
    double t_enter;          /* statistics timing of the current call */
};
/* initial-exec: libautoopt.so is loaded at start-up (LD_PRELOAD or linked), so its TLS sits in
 * the static block and each access is one %fs-relative load, not a __tls_get_addr call. */
extern __thread struct aot_tls aot_tls __attribute__((tls_model("initial-exec")));

#endif /* AOT_STATE_H_INCLUDED */
