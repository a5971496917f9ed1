/*
 * init.c: paging's start and end: init after PMPI_Init, finalize before PMPI_Finalize, and the
 * reset of a child after fork.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>

#include "paging.h"

struct aot_pg_counters aot_pg_ctr;
int aot_pg_on;

static int aot_pg_fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "asynchronous conversion: %s", what);
    return -1;
}

int aot_paging_init(char *err, size_t errlen)
{
#define AOT_X(name) aot_pg_ctr.name = aot_stats_register("paging", #name);
    AOT_PG_COUNTERS(AOT_X)
#undef AOT_X
    if (aot_pg_guard_init(aot_cfg.max_guards) != 0)
        return aot_pg_fail(err, errlen, "cannot map the page table");
    if (aot_pg_requests_init() != 0 || aot_pg_lazy_init() != 0)
        return aot_pg_fail(err, errlen, "cannot map the request tables");
    aot_stack_main_init();
    aot_pg_layout_init();
    if (aot_pg_handler_install(err, errlen) != 0)
        return -1;
    aot_pg_syscalls_init();
    aot_pg_sites_init();
    aot_pg_sites_stats();
    aot_pg_on = 1;
    AOT_LOG(1, "asynchronous conversion on: min %zu B, at most %d guarded ranges, learn after %d",
            aot_cfg.convert_min, aot_cfg.max_guards, aot_cfg.learn_touch);
    return 0;
}

void aot_paging_finalize(void)
{
    int depth = aot_tls.depth;

    if (!aot_pg_on)
        return;
    aot_tls.depth = depth ? depth : 1;
    aot_pg_mpi_window = 1;
    aot_pg_wait_all();
    aot_pg_lifted_restore();
    aot_pg_mpi_window = 0;
    aot_pg_guard_reset();
    aot_pg_on = 0;
    aot_pg_handler_uninstall();
    aot_pg_sites_keep();
    __atomic_fetch_and(&aot_hooks_armed, ~AOT_ARM_PAGING, __ATOMIC_RELAXED);
    aot_tls.depth = depth;
}

/* After fork, in the child: no guards and no requests (the child cannot complete MPI
 * requests; the parent completed them all before forking). */
void aot_pg_child_reset(void)
{
    aot_pg_lifted_forget();
    aot_pg_mpi_window = 0;
    aot_pg_guard_reset();
    for (int i = 0; i < aot_pg_nslots; i++)
        if (aot_pg_reqs[i].state) {
            aot_pg_reqs[i].state = 0;
            aot_pg_mreqs[i] = MPI_REQUEST_NULL;
        }
    aot_pg_nslots = 0;
    aot_pg_npending = 0;
    aot_pg_gate_update();
    aot_pg_on = 0;
    __atomic_fetch_and(&aot_hooks_armed, ~AOT_ARM_PAGING, __ATOMIC_RELAXED);
}
