/*
 * subsystems.c: which subsystem starts when, the enter/leave hooks that run around a call, and
 * the order of shutdown.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * src/runtime.c does the generic part of MPI_Init and MPI_Finalize (configuration, agreement,
 * thread-level policy, statistics) and calls aot_subsystems_start, aot_subsystems_finish and
 * aot_subsystems_release (src/aot.h).  They live here because intercept/ is the one folder that
 * knows the entry points of paging/, chains/ and collectives/ (docs/design.md); src/ includes none
 * of their headers (tests/include_graph.py).  A subsystem that is not built is off.
 */
#include "subsystems.h"

#include "aot_calib.h"

void aot_enter_slow(int fn)
{
    int armed = aot_hooks_armed;
#ifdef AOT_HAVE_CHAINS
    /* chains first: it lifts its touch probes before paging or MPI see any buffer */
    if (armed & AOT_ARM_CHAINS)
        aot_chains_enter(fn);
#endif
#ifdef AOT_HAVE_PAGING
    if (armed & AOT_ARM_PAGING)
        aot_paging_enter(fn);
#endif
    if (armed & AOT_ARM_TRACE)
        aot_trace(AOT_TR_CALL, fn, 0, 0, NULL);
    if (armed & AOT_ARM_TIMING)
        aot_stats_time_enter();
}

void aot_leave_slow(int fn)
{
    int armed = aot_hooks_armed;
    if (armed & AOT_ARM_TIMING)
        aot_stats_time_leave(fn);
#ifdef AOT_HAVE_PAGING
    if (armed & AOT_ARM_PAGING)
        aot_paging_leave(fn);
#endif
    if (armed & AOT_ARM_TRACE)
        aot_trace_leave(fn);       /* the trace record of the call, after paging's work */
}

/* Each step is agreed by all ranks (aot_agree) before the next one starts. */
void aot_subsystems_start(void)
{
    char err[1024];

#ifdef AOT_HAVE_COLLECTIVES
    aot_agree(aot_cfg.collectives && aot_coll_init(err, sizeof(err)) != 0, err);
#else
    aot_cfg.collectives = 0;
#endif
    /* Before paging: the trace then records paging from its start.  (The order in which the
     * fault entry asks paging and chains is their slot in src/aot_fault.h, not this one.)  The
     * trace writer works with chains off. */
    aot_agree(aot_trace_init(err, sizeof(err)) != 0, err);
#ifdef AOT_HAVE_CHAINS
    if (aot_trace_on)
        aot_chains_trace();        /* chains name the calls of the trace */
    aot_agree(aot_cfg.chains && aot_chains_init(err, sizeof(err)) != 0, err);
#else
    aot_cfg.chains = 0;
#endif
#ifdef AOT_HAVE_PAGING
    /* Chain mode's default, safe form runs its members as paging's requests (guards, shadows,
     * the fault handler), so paging's machinery is up even when it converts nothing itself. */
    aot_agree((aot_cfg.convert || aot_cfg.chains == AOT_CHAINS_SAFE) &&
              aot_paging_init(err, sizeof(err)) != 0, err);
    /* Self-calibration (src/calib.c) at start-up, where the rest of MPI_Init's cost is, not at
     * the first call a governor takes: there its 0.2-0.3 ms per rank (an mmap, a few mprotect
     * calls, a munmap) cost a 4-rank ring of 64 KiB passes about 0.8 ms in its first pass.
     * A forced mode has no governor and needs no figures. */
    if (aot_paging_started() && aot_cfg.p2p_mode == AOT_P2P_AUTO)
        aot_calib_measure();
#else
    aot_cfg.convert = 0;
#endif
#ifdef AOT_HAVE_CHAINS
    if (aot_cfg.chains)
        aot_on_app_thread(aot_chains_finalize);
#endif
#ifdef AOT_HAVE_PAGING
    aot_on_app_thread(aot_paging_finalize);    /* does nothing unless it was started */
#endif
}

void aot_subsystems_finish(void)
{
#ifdef AOT_HAVE_CHAINS
    if (aot_cfg.chains)
        aot_chains_finalize();
#endif
#ifdef AOT_HAVE_PAGING
    aot_paging_finalize();      /* does nothing unless it was started */
#endif
    aot_trace_finalize();       /* after paging: its last waits are in the trace */
#ifdef AOT_HAVE_COLLECTIVES
    if (aot_cfg.collectives)
        aot_coll_finish();      /* before the statistics: online tuning's report */
#endif
}

void aot_subsystems_release(void)
{
#ifdef AOT_HAVE_COLLECTIVES
    if (aot_cfg.collectives)
        aot_coll_finalize();
#endif
}
