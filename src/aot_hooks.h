/*
 * aot_hooks.h: the enter / leave hooks around MPI calls and the bits that arm them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_HOOKS_H_INCLUDED
#define AOT_HOOKS_H_INCLUDED

#include <stdint.h>

/* Nonzero while some subsystem needs to run around every progress-capable MPI call (pending
 * converted requests, statistics timing), and whenever a call cannot take the wrappers' fast
 * path for another reason (AOT_ARM_OFF, AOT_ARM_ATOMIC).  The wrappers test only this word and
 * the re-entry depth on the fast path (intercept/gen_wrappers.py). */
extern volatile int aot_hooks_armed;
/* Nonzero while a subsystem may take calls of the "fast" functions (intercept/wrappers.spec)
 * before the hooks: the wrapper then calls aot_fast_<fn>, which returns AOT_FAST_DECLINED,
 * having changed nothing, when the call needs the general path. */
extern int aot_fast_armed;
#define AOT_FAST_DECLINED (-1)
/* Nonzero while a chain dozes (chains/chains.c, aot_ch_doze): the wrappers of the "fast"
 * functions pass that many calls to MPI counting them and nothing else, provided no hook is
 * armed but AOT_ARM_FASTPASS (and AOT_ARM_TIMING, which times them).  The owner of the
 * stretch reads what is left of it when it ends one. */
extern uint64_t aot_doze_calls;
/* The hooks' dispatch to the subsystems (intercept/subsystems.c). */
void aot_enter_slow(int fn);
void aot_leave_slow(int fn);

/* Bits of aot_hooks_armed owned by src/ (subsystems define their own, e.g. AOT_ARM_PAGING 1). */
#define AOT_ARM_TIMING 0x100
#define AOT_ARM_TRACE  0x200   /* set by the trace writer: every call emits AOT_TR_CALL */
#define AOT_ARM_FASTPASS 0x10  /* the bit of the subsystem that serves the "fast" functions
                                * (chains: AOT_ARM_CHAINS): their wrappers offer the call to
                                * aot_fast_<fn> while it is set, and run the hooks only for a
                                * call declined there */
#define AOT_ARM_OFF    0x400   /* autoopt is not active (before MPI_Init, AUTOOPT_DISABLE=1,
                                * after MPI_Finalize): every call takes the general path */
#define AOT_ARM_ATOMIC 0x800   /* MPI_THREAD_MULTIPLE: call counts need atomic increments, which
                                * only the general path makes (aot_count_call) */

#endif /* AOT_HOOKS_H_INCLUDED */
