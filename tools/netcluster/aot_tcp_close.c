/*
 * autoopt-tcpclose: bounds the endpoint-close wait of MPICH's MPI_Finalize over UCX TCP.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Part of the measuring equipment (tools/netcluster), not of libautoopt.
 *
 * The problem (measured on the project's machines, MPICH 4.0.2 ch4:ucx, UCX 1.13.1,
 * UCX_TLS=tcp,self, docs/netcluster.md): with 3 or more ranks, MPI_Finalize hangs in a
 * third to a half of all runs, even for MPI_Init + MPI_Allreduce + MPI_Finalize.  MPICH's
 * finalize closes every endpoint with ucp_disconnect_nb() (a flushing close) and spins on
 * ucp_request_is_completed() until all closes are done; then it enters the PMI barrier, where
 * it stops calling ucp_worker_progress().  A rank whose close still needs an answer from a
 * peer that already sits in the PMI barrier waits forever (the same class of bug as
 * openucx/ucx#8738, "TCP transport hangs during cleanup").
 *
 * The workaround: libmpich calls ucp_disconnect_nb() and ucp_request_is_completed() through
 * the PLT, so this preloaded library wraps both.  A close request that is still incomplete
 * AUTOOPT_TCPCLOSE_MS milliseconds (default 1000) after the first close of the process was
 * issued is reported complete; MPICH then releases it and goes on.  At that point the program
 * has finished all its MPI communication (MPI_Finalize requires it), and the flush that is
 * given up concerns the close handshake only.  Every rank, in every compared mode, gets the
 * same library, so comparisons stay fair.  With AUTOOPT_TCPCLOSE_VERBOSE=1 each rank reports
 * on stderr how many closes it gave up.
 *
 * Not async-signal-safe and not thread-safe beyond what MPICH's finalize needs (it closes
 * endpoints from one thread).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#define AOT_TC_EXPORT __attribute__((visibility("default")))

typedef ucs_status_ptr_t (*aot_tc_disconnect_fn)(ucp_ep_h);
typedef int (*aot_tc_completed_fn)(void *);

AOT_TC_EXPORT ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep);
AOT_TC_EXPORT int ucp_request_is_completed(void *request);

enum { AOT_TC_MAX_TRACKED = 4096 };

static aot_tc_disconnect_fn aot_tc_real_disconnect;
static aot_tc_completed_fn aot_tc_real_completed;
static void *aot_tc_tracked[AOT_TC_MAX_TRACKED];  /* close requests issued by ucp_disconnect_nb */
static char aot_tc_abandoned[AOT_TC_MAX_TRACKED]; /* reported complete although they are not */
static int aot_tc_ntracked;
static double aot_tc_first_close = -1.0;          /* seconds, CLOCK_MONOTONIC */
static double aot_tc_limit_s = 1.0;
static int aot_tc_verbose;
static int aot_tc_given_up;

static double aot_tc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static void aot_tc_resolve(void)
{
    const char *s;
    aot_tc_real_disconnect = (aot_tc_disconnect_fn) dlsym(RTLD_NEXT, "ucp_disconnect_nb");
    aot_tc_real_completed = (aot_tc_completed_fn) dlsym(RTLD_NEXT, "ucp_request_is_completed");
    if (aot_tc_real_disconnect == NULL || aot_tc_real_completed == NULL) {
        fprintf(stderr, "autoopt-tcpclose: UCX's ucp_disconnect_nb/ucp_request_is_completed "
                "not found\n");
        abort();
    }
    s = getenv("AUTOOPT_TCPCLOSE_MS");
    if (s != NULL && *s != '\0')
        aot_tc_limit_s = strtod(s, NULL) / 1000.0;
    s = getenv("AUTOOPT_TCPCLOSE_VERBOSE");
    aot_tc_verbose = s != NULL && *s == '1';
}

static void aot_tc_report(void)
{
    if (aot_tc_verbose && aot_tc_given_up > 0)
        fprintf(stderr, "autoopt-tcpclose[%d]: gave up waiting for %d of %d endpoint closes\n",
                (int) getpid(), aot_tc_given_up, aot_tc_ntracked);
}

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep)
{
    ucs_status_ptr_t req;

    if (aot_tc_real_disconnect == NULL)
        aot_tc_resolve();
    if (aot_tc_first_close < 0.0) {
        aot_tc_first_close = aot_tc_now();
        atexit(aot_tc_report);
    }
    req = aot_tc_real_disconnect(ep);
    if (UCS_PTR_IS_PTR(req) && aot_tc_ntracked < AOT_TC_MAX_TRACKED) {
        aot_tc_abandoned[aot_tc_ntracked] = 0;
        aot_tc_tracked[aot_tc_ntracked++] = req;
    }
    return req;
}

int ucp_request_is_completed(void *request)
{
    int done;

    if (aot_tc_real_completed == NULL)
        aot_tc_resolve();
    done = aot_tc_real_completed(request);
    if (done || aot_tc_first_close < 0.0 || aot_tc_now() - aot_tc_first_close < aot_tc_limit_s)
        return done;
    for (int i = 0; i < aot_tc_ntracked; i++) {
        if (aot_tc_tracked[i] == request) {
            /* MPICH polls every pending close on each pass of its loop: keep saying "done"
             * for this request until it releases them all. */
            if (!aot_tc_abandoned[i]) {
                aot_tc_abandoned[i] = 1;
                aot_tc_given_up++;
            }
            return 1;
        }
    }
    return done;
}
