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
 *
 * Tests back to back.  Inside a test call (MPI_Test, _Testany, _Testall, _Testsome, _Iprobe,
 * _Improbe, MPI_Request_get_status and their PMPI_ forms, which this library wraps too) only
 * the call's first idle poll counts (MPICH polls more than once in one MPI_Testsome), and it
 * continues a run of idle test calls only if it comes within AUTOOPT_YIELD_TEST_GAP_US
 * (default 1) of the previous test call's end.  A loop that does nothing but test yields from
 * its second call on, as a wait does; tests with some microseconds of other work between them
 * (autoopt starting the members of a chain one after the other, each with one test) keep the
 * CPU.  Before, the third or fourth member's test of a 4-member chain yielded, and with 8 ranks
 * on 2 cores it slept 0.3-1.7 ms (medians) in a call that otherwise returns in 3-15 us
 * (docs/platform.md, "Tests back to back").  AUTOOPT_YIELD_TEST_GAP_US=0: tests never yield.
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
static long long aot_test_gap_ns = 1000;
static __thread unsigned aot_idle_polls;
static __thread long long aot_last_idle_ns;
static __thread int aot_in_test;        /* inside a test call (nesting: MPI_Test -> PMPI_Test) */
static __thread int aot_test_counted;   /* this test call's idle poll counted already */
static __thread unsigned aot_idle_tests;/* idle test calls in a row, each soon after the last */
static __thread long long aot_test_end_ns;

static void aot_yield_resolve(void)
{
    const char *s = getenv("AUTOOPT_YIELD_SPINS");
    const char *g = getenv("AUTOOPT_YIELD_GAP_US");
    aot_spins_before_yield = s ? (unsigned) strtoul(s, NULL, 10) : 0;
    const char *tg = getenv("AUTOOPT_YIELD_TEST_GAP_US");
    if (g)
        aot_gap_ns = (long long) strtoul(g, NULL, 10) * 1000;
    if (tg)
        aot_test_gap_ns = (long long) strtoul(tg, NULL, 10) * 1000;
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
    if (aot_in_test && aot_gap_ns > 0) {
        if (n) {
            aot_idle_tests = 0;
        } else if (!aot_test_counted) {
            aot_test_counted = 1;
            if (aot_now_ns() - aot_test_end_ns > aot_test_gap_ns)
                aot_idle_tests = 0;
            if (++aot_idle_tests > aot_spins_before_yield + 1)
                sched_yield();
        }
        return n;
    }
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

/* ---------------------------------------------------------------- the test calls
 *
 * Declared here with MPICH's handle types (int), without mpi.h: this library is built without
 * MPI and finds the real functions with dlsym(RTLD_NEXT), as it finds ucp_worker_progress.
 * Every argument is passed through unchanged. */
typedef int aot_handle;   /* MPI_Request, MPI_Comm, MPI_Message in MPICH */

#define AOT_TEST_WRAP(name, params, args)                                        \
    __attribute__((visibility("default"))) int name params;                      \
    int name params                                                              \
    {                                                                            \
        static int (*real) params;                                               \
        int rc;                                                                  \
        if (__builtin_expect(real == NULL, 0)) {                                 \
            *(void **) &real = dlsym(RTLD_NEXT, #name);                          \
            if (real == NULL)                                                    \
                abort();                                                         \
        }                                                                        \
        if (!aot_in_test++)                                                      \
            aot_test_counted = 0;                                                \
        rc = real args;                                                          \
        if (!--aot_in_test)                                                      \
            aot_test_end_ns = aot_now_ns();                                      \
        return rc;                                                               \
    }

#define AOT_TEST_WRAP2(suffix, params, args)                                     \
    AOT_TEST_WRAP(MPI_##suffix, params, args)                                    \
    AOT_TEST_WRAP(PMPI_##suffix, params, args)

AOT_TEST_WRAP2(Test, (aot_handle *r, int *flag, void *st), (r, flag, st))
AOT_TEST_WRAP2(Testany, (int n, aot_handle *r, int *idx, int *flag, void *st),
               (n, r, idx, flag, st))
AOT_TEST_WRAP2(Testall, (int n, aot_handle *r, int *flag, void *st), (n, r, flag, st))
AOT_TEST_WRAP2(Testsome, (int n, aot_handle *r, int *outn, int *idx, void *st),
               (n, r, outn, idx, st))
AOT_TEST_WRAP2(Iprobe, (int src, int tag, aot_handle comm, int *flag, void *st),
               (src, tag, comm, flag, st))
AOT_TEST_WRAP2(Improbe, (int src, int tag, aot_handle comm, int *flag, aot_handle *msg,
                         void *st), (src, tag, comm, flag, msg, st))
AOT_TEST_WRAP2(Request_get_status, (aot_handle r, int *flag, void *st), (r, flag, st))
