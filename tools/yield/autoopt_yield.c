/*
 * autoopt-yield: a yield-when-idle waiting policy for MPICH's ch4:ucx device.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Part of the measuring equipment, not of libautoopt.  MPICH's ch4:ucx waits by calling
 * ucp_worker_progress() in a loop and never yields the CPU.  With more ranks than cores the
 * spinning ranks steal the time slices of the ranks that would make progress, and an 8 B
 * allreduce on 4 ranks and 2 cores takes ~10 ms instead of ~10 us (docs/platform.md, "More
 * ranks than cores").  Any comparison made under those conditions measures the scheduler.
 *
 * Preloaded (LD_PRELOAD=libautoopt-yield.so) this library wraps ucp_worker_progress(), which
 * libmpich.so calls through the PLT, and calls sched_yield() whenever a progress call reports
 * that nothing happened -- the idea of Open MPI's mpi_yield_when_idle.  The benchmark harness,
 * the emulated cluster and the test suite apply it to every compared mode (native, autoopt and
 * hand-optimized) and only when ranks outnumber cores, because with a core per rank yielding
 * costs latency (0.48 us -> 1.3 us for a 2-rank 8 B allreduce).
 *
 * AUTOOPT_YIELD_SPINS=n (default 0) lets a rank poll n times without progress before it yields.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>

typedef struct ucp_worker *ucp_worker_h;
typedef unsigned (*aot_progress_fn)(ucp_worker_h);

__attribute__((visibility("default"))) unsigned ucp_worker_progress(ucp_worker_h worker);

static aot_progress_fn aot_real_progress;
static unsigned aot_spins_before_yield;
static __thread unsigned aot_idle_polls;

static void aot_yield_resolve(void)
{
    const char *s = getenv("AUTOOPT_YIELD_SPINS");
    aot_spins_before_yield = s ? (unsigned) strtoul(s, NULL, 10) : 0;
    aot_real_progress = (aot_progress_fn) dlsym(RTLD_NEXT, "ucp_worker_progress");
}

unsigned ucp_worker_progress(ucp_worker_h worker)
{
    unsigned n;

    if (__builtin_expect(aot_real_progress == NULL, 0)) {
        aot_yield_resolve();
        if (aot_real_progress == NULL)
            abort();    /* preloaded into a process without UCX that still called us */
    }
    n = aot_real_progress(worker);
    if (n == 0) {
        if (++aot_idle_polls > aot_spins_before_yield) {
            aot_idle_polls = 0;
            sched_yield();
        }
    } else {
        aot_idle_polls = 0;
    }
    return n;
}
