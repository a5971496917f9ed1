/*
 * aot_threads.h: the program's own threads (src/threads.c): once it runs one, conversion and
 * chains are off.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_THREADS_H_INCLUDED
#define AOT_THREADS_H_INCLUDED

/* Nonzero (never cleared) once the program runs a thread of its own: started with
 * pthread_create by the main thread outside any MPI call, or before MPI_Init.  From then on
 * conversion and chains are off (aot_cfg.convert and aot_cfg.chains are cleared), and calls
 * pass through with AOT_PASS_APP_THREADS. */
extern volatile int aot_app_threads;
extern int aot_app_threads_before_init;
/* A subsystem registers the function that completes everything it has pending and removes
 * every guard and probe; they run once, in the creating thread, before the thread exists. */
void aot_on_app_thread(void (*quiesce)(void));
/* Runs the registered functions and switches conversion and chains off (why: for the log). */
void aot_app_threads_begin(const char *why);
/* Records the main thread (MPI_Init's caller). */
void aot_threads_start(void);

#endif /* AOT_THREADS_H_INCLUDED */
