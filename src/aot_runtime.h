/*
 * aot_runtime.h: start-up and shutdown (src/runtime.c) and the subsystems' steps in them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_RUNTIME_H_INCLUDED
#define AOT_RUNTIME_H_INCLUDED

/* Start-up and shutdown (src/runtime.c), called by the MPI_Init, MPI_Init_thread and MPI_Finalize wrappers. */
int aot_runtime_start(int provided);
void aot_runtime_finish(void);
/* One step of start-up, agreed by all ranks before the next: when any rank failed (its reason
 * in msg), every rank stops with exit status 1 (src/runtime.c says who prints what). */
void aot_agree(int failed, const char *msg);
/* The subsystems, in their order (defined in intercept/subsystems.c, the one folder that knows
 * them; src/ includes none of their headers).  start: once the configuration and the thread
 * policy are settled, each subsystem started as aot_cfg asks, every step agreed with aot_agree;
 * a subsystem that is not built is switched off in aot_cfg.  finish: before the statistics,
 * with aot_tls.depth set: everything pending completes, the trace is written.  release: after
 * the statistics. */
void aot_subsystems_start(void);
void aot_subsystems_finish(void);
void aot_subsystems_release(void);

#endif /* AOT_RUNTIME_H_INCLUDED */
