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
 * It yields only while a rank spins: when a poll without progress follows another one within
 * AUTOOPT_YIELD_GAP_US microseconds (default 20).  A wait polls again at once, so it yields from
 * its second idle poll on; a lone test (MPI_Test, MPI_Testsome, MPI_Iprobe between other work)
 * makes one poll and keeps the CPU.  Yielding there handed the core to a rank in the middle of
 * its computation for a whole time slice (4 ms seen), which turned a nonblocking test into a
 * sleep: MPICH's own ch3 policy (MPIR_CVAR_POLLS_BEFORE_YIELD) yields only in blocking progress.
 * AUTOOPT_YIELD_GAP_US=0 yields at every idle poll, as the library did before.
 *
 * AUTOOPT_YIELD_SPINS=n (default 0) lets a rank spin n idle polls more before it yields.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

typedef struct ucp_worker *ucp_worker_h;
typedef unsigned (*aot_progress_fn)(ucp_worker_h);

__attribute__((visibility("default"))) unsigned ucp_worker_progress(ucp_worker_h worker);

static aot_progress_fn aot_real_progress;
static unsigned aot_spins_before_yield;
static long long aot_gap_ns = 20000;
static __thread unsigned aot_idle_polls;
static __thread long long aot_last_idle_ns;

static void aot_yield_resolve(void)
{
    const char *s = getenv("AUTOOPT_YIELD_SPINS");
    const char *g = getenv("AUTOOPT_YIELD_GAP_US");
    aot_spins_before_yield = s ? (unsigned) strtoul(s, NULL, 10) : 0;
    if (g)
        aot_gap_ns = (long long) strtoul(g, NULL, 10) * 1000;
    aot_real_progress = (aot_progress_fn) dlsym(RTLD_NEXT, "ucp_worker_progress");
}

static long long aot_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
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
        /* an idle poll long after the previous one starts a new count: a test, not a wait */
        if (aot_gap_ns > 0) {
            long long now = aot_now_ns();
            if (now - aot_last_idle_ns > aot_gap_ns)
                aot_idle_polls = 0;
            aot_last_idle_ns = now;
        }
        if (++aot_idle_polls > aot_spins_before_yield + (aot_gap_ns > 0)) {
            sched_yield();
            /* still spinning: the next idle poll yields again */
            if (aot_gap_ns > 0)
                aot_last_idle_ns = aot_now_ns();
            else
                aot_idle_polls = 0;
        }
    } else {
        aot_idle_polls = 0;
    }
    return n;
}
