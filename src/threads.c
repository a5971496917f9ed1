/*
 * threads.c: the program's own threads.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Conversion and chains guard pages and wait in the fault handler, by calling MPI, in the
 * thread that called MPI_Init: at MPI_THREAD_SINGLE that is the only thread allowed to call
 * MPI.  A program may still run threads of its own that never call MPI (an OpenMP parallel
 * loop over a received buffer, MPI_Init plus OpenMP being the usual hybrid pattern); such a
 * thread touching a guarded buffer could be neither made to wait (it may not call MPI) nor
 * allowed through (it would read stale data).  So once the program starts a thread of its own,
 * autoopt first completes everything it has pending and removes every guard and probe, in the
 * creating thread and before the new thread exists, and from then on converts and chains
 * nothing: every later point-to-point call passes through with the reason "program runs
 * threads of its own".  A thread that existed before MPI_Init has the same effect from the
 * start.  Threads MPI makes for itself (UCX's progress thread, created inside MPI_Init) do not
 * count: they are created inside an intercepted call, or by a thread other than the main one.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "aot_config.h"
#include "aot_log.h"
#include "aot_state.h"
#include "aot_sys.h"
#include "aot_threads.h"

volatile int aot_app_threads;
int aot_app_threads_before_init;

#define AOT_MAX_QUIESCE 4
static void (*aot_quiesce_fns[AOT_MAX_QUIESCE])(void);
static int aot_nquiesce;
static pid_t aot_main_tid;

void aot_threads_start(void)
{
    aot_main_tid = (pid_t) aot_syscall(SYS_gettid);
}

void aot_on_app_thread(void (*quiesce)(void))
{
    if (aot_nquiesce < AOT_MAX_QUIESCE)
        aot_quiesce_fns[aot_nquiesce++] = quiesce;
}

void aot_app_threads_begin(const char *why)
{
    int depth = aot_tls.depth;

    if (aot_app_threads)
        return;
    aot_tls.depth = 1;                 /* the MPI calls below are autoopt's own */
    for (int i = 0; i < aot_nquiesce; i++)
        aot_quiesce_fns[i]();
    aot_cfg.convert = 0;
    aot_cfg.chains = AOT_CHAINS_OFF;
    aot_app_threads = 1;
    aot_tls.depth = depth;
    AOT_LOG(1, "%s: asynchronous conversion and chains are off from here on", why);
}

__attribute__((visibility("default")))
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

    if (!real)
        real = (__typeof__(real)) dlsym(RTLD_NEXT, "pthread_create");
    if (aot_tls.depth == 0) {
        pid_t tid = (pid_t) aot_syscall(SYS_gettid);
        if (aot_active && tid == aot_main_tid && !aot_app_threads)
            aot_app_threads_begin("the program started a thread of its own");
        else if (!aot_active && tid == getpid())
            aot_app_threads_before_init = 1;
    }
    return real(thread, attr, fn, arg);
}
