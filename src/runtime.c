/*
 * runtime.c: start-up and shutdown of autoopt inside MPI_Init and MPI_Finalize: configuration,
 * the agreement of every rank on each step, the thread-level policy and statistics.  Which
 * subsystem starts when, and the enter/leave hooks, are intercept/subsystems.c's: src/ knows no
 * subsystem (docs/design.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Nothing runs in a constructor: mpiexec itself inherits LD_PRELOAD, and a process that never
 * calls MPI_Init must see no output and no work from autoopt.
 *
 * Thread levels (documented in the README):
 *   MPI_THREAD_SINGLE      everything on.
 *   FUNNELED, SERIALIZED   conversion and chains off: a guarded page could be touched by a thread
 *                          that may not call MPI, and the fault handler would have to wait there.
 *                          Collectives stay on: they run in the thread that calls MPI.
 *   MPI_THREAD_MULTIPLE    conversion, chains and collectives off; only statistics remain.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aot_agree.h"
#include "aot_cache.h"
#include "aot_config.h"
#include "aot_fault.h"
#include "aot_files.h"
#include "aot_hooks.h"
#include "aot_log.h"
#include "aot_runtime.h"
#include "aot_state.h"
#include "aot_stats.h"
#include "aot_sys.h"
#include "aot_threads.h"
#include "aot_trace.h"

extern char **environ;

int aot_active;
struct aot_config aot_cfg;
int aot_world_rank = -1, aot_world_size;
int aot_thread_level = MPI_THREAD_SINGLE;
__thread struct aot_tls aot_tls __attribute__((tls_model("initial-exec")));
volatile int aot_hooks_armed = AOT_ARM_OFF;
int aot_fast_armed;
uint64_t aot_doze_calls;
int aot_calls_atomic;
volatile int aot_probes_armed;
void (*aot_probes_release)(void);
aot_trace_fn aot_trace_writer;

static const char *aot_env_get(const char *name, void *arg)
{
    (void) arg;
    return getenv(name);
}

static void aot_say(const char *line, int n)
{
    if (write(STDERR_FILENO, line, (size_t) n) < 0) {
        /* nothing to do */
    }
}

/*
 * One step of start-up, agreed by all ranks before the next: failed is this rank's verdict and
 * msg its reason.  When any rank failed, every rank stops with exit status 1, so no rank goes
 * on into a collective the others never reach.  When all failed (they read the same
 * environment) rank 0 prints the one line; otherwise each failing rank prints its own reason
 * and rank 0 says how many failed.
 */
void aot_agree(int failed, const char *msg_raw)
{
    char line[1300], msg[1100];
    int nfailed = 0, n = 0;

    PMPI_Allreduce(&failed, &nfailed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!nfailed)
        return;
    aot_escape_controls(msg_raw, msg, sizeof(msg));    /* one line, whatever msg quotes */
    if (nfailed == aot_world_size) {
        if (aot_world_rank == 0)
            n = snprintf(line, sizeof(line), "autoopt: %s\n", msg);
    } else {
        if (failed)
            n = snprintf(line, sizeof(line), "autoopt[%d]: %s\n", aot_world_rank, msg);
        if (aot_world_rank == 0 && n < (int) sizeof(line))
            n += snprintf(line + n, sizeof(line) - (size_t) n, "autoopt: start-up failed on %d "
                          "of %d ranks (their lines say why); every rank stops\n", nfailed,
                          aot_world_size);
    }
    if (n > 0)
        aot_say(line, n < (int) sizeof(line) ? n : (int) sizeof(line) - 1);
    PMPI_Finalize();
    exit(1);
}

/* 64-bit FNV-1a of a string. */
static uint64_t aot_hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char) *s) * 1099511628211ull;
    return h;
}

/*
 * The settings that must agree (aot_config_vars[].agree) are compared across ranks: one
 * Allreduce(MAX) of each one's hash and its complement gives the largest and the smallest
 * hash, equal only if every rank has the same text.  The first that differs is named.
 */
static void aot_agree_settings(void)
{
    uint64_t mine[2 * AOT_CONFIG_MAX_VARS], all[2 * AOT_CONFIG_MAX_VARS];
    size_t nv = aot_config_nvars < AOT_CONFIG_MAX_VARS ? aot_config_nvars : AOT_CONFIG_MAX_VARS;
    char msg[256];

    for (size_t i = 0; i < nv; i++) {
        uint64_t h = aot_hash_text(aot_config_agree_text(i, aot_env_get, NULL));
        mine[2 * i] = h;
        mine[2 * i + 1] = ~h;
    }
    PMPI_Allreduce(mine, all, (int) (2 * nv), MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    for (size_t i = 0; i < nv; i++)
        if (all[2 * i] != ~all[2 * i + 1]) {
            snprintf(msg, sizeof(msg), "%s must be the same on every rank, and it differs "
                     "between ranks%s", aot_config_vars[i].name,
                     aot_config_vars[i].agree == AOT_AGREE_ON ? " (on on some, off on others)"
                                                            : "");
            aot_agree(1, msg);    /* every rank sees the same maxima: all fail, rank 0 says it */
        }
}

/*
 * The files rank 0 writes at MPI_Finalize (AUTOOPT_STATS=FILE.json, AUTOOPT_TUNE_SAVE) are
 * checked here, before any work: a device, FIFO, socket or directory there, or a directory that
 * does not exist, stops every rank with rank 0's one line (src/files.c,
 * aot_file_check_writable), and nothing is changed.
 */
static void aot_agree_outputs(void)
{
    const struct { const char *name, *path; } out[] = {
        {"AUTOOPT_STATS", aot_cfg.stats_path},
        {"AUTOOPT_TUNE_SAVE", aot_cfg.tune_save},
    };
    char msg[1024] = "", why[900];

    if (aot_world_rank == 0)
        for (size_t i = 0; i < sizeof(out) / sizeof(out[0]) && !msg[0]; i++)
            if (out[i].path && aot_file_check_writable(out[i].path, why, sizeof(why)) != 0)
                snprintf(msg, sizeof(msg), "%s=%s", out[i].name, why);
    PMPI_Bcast(msg, (int) sizeof(msg), MPI_CHAR, 0, MPI_COMM_WORLD);
    aot_agree(msg[0] != '\0', msg);
}

int aot_runtime_start(int provided)
{
    char err[1024];
    const char *unknown;

    PMPI_Comm_rank(MPI_COMM_WORLD, &aot_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &aot_world_size);
    aot_thread_level = provided;
    aot_calls_atomic = provided == MPI_THREAD_MULTIPLE;
    if (aot_calls_atomic)
        __atomic_fetch_or(&aot_hooks_armed, AOT_ARM_ATOMIC, __ATOMIC_RELAXED);

    aot_agree(aot_config_parse(&aot_cfg, aot_env_get, NULL, err, sizeof(err)) != 0, err);
    aot_agree_settings();
    if (aot_cfg.disable)
        return MPI_SUCCESS;                 /* pure pass-through: aot_active stays 0 */
    aot_agree_outputs();
    unknown = aot_config_unknown(environ);
    if (unknown && aot_world_rank == 0) {
        char q[AOT_QUOTE_LEN];
        aot_log(0, "warning: %s: unknown variable, ignored (see the README for the list)",
                aot_quote_str(unknown, q, sizeof(q)));
    }

    if (provided > MPI_THREAD_SINGLE) {
        if (aot_cfg.convert || aot_cfg.chains)
            AOT_LOG(1, "thread level %d: asynchronous conversion and chains are off", provided);
        aot_cfg.convert = 0;
        aot_cfg.chains = 0;
    }
    if (provided == MPI_THREAD_MULTIPLE) {
        AOT_LOG(1, "MPI_THREAD_MULTIPLE: collectives go to MPI's own algorithms");
        aot_cfg.collectives = 0;
        if (aot_cfg.trace_dir) {
            /* the signature table and the trace buffer serve one calling thread at a time */
            if (aot_world_rank == 0)
                aot_log(0, "AUTOOPT_TRACE=%s: off at MPI_THREAD_MULTIPLE (calls from several "
                        "threads at once)", aot_cfg.trace_dir);
            aot_cfg.trace_dir = NULL;
        }
    }

    aot_cache_start();          /* the cache of decisions (src/cache_run.c): one broadcast */
    aot_agree_votes_start();    /* the governors' agreed verdicts (src/agree.c) */
    aot_fault_start();          /* the SIGSEGV entry paging and chains register with */
    aot_subsystems_start();     /* intercept/subsystems.c: which starts when, each step agreed */
    aot_threads_start();
    if (provided < MPI_THREAD_MULTIPLE)
        aot_stats_start();      /* counts always; timing needs calls that do not overlap */
    aot_active = 1;
    __atomic_fetch_and(&aot_hooks_armed, ~AOT_ARM_OFF, __ATOMIC_RELAXED);
    if (aot_app_threads_before_init && (aot_cfg.convert || aot_cfg.chains))
        aot_app_threads_begin("the program ran a thread of its own before MPI_Init");
    AOT_LOG(1, "active: conversion %s (min %zu B), chains %s, collectives %s, thread level %d",
            aot_cfg.convert ? "on" : "off", aot_cfg.convert_min,
            aot_cfg.chains == AOT_CHAINS_UNGUARDED ? "on (unguarded)"
                                                   : aot_cfg.chains ? "on" : "off",
            aot_cfg.collectives ? "on" : "off", provided);
    return MPI_SUCCESS;
}

void aot_runtime_finish(void)
{
    if (!aot_active)
        return;
    aot_tls.depth = 1;          /* everything from here on is autoopt's own MPI traffic */
    aot_subsystems_finish();    /* chains, paging, then the trace (intercept/subsystems.c) */
    aot_agree_votes_finish();   /* every vote completes before PMPI_Finalize */
    aot_hooks_armed = AOT_ARM_OFF;
    aot_fast_armed = 0;
    aot_stats_report();
    aot_subsystems_release();   /* collectives, after the statistics */
    aot_cache_finish();         /* rank 0 writes this run's decisions (one gather) */
    aot_fault_stop();
    aot_active = 0;
    aot_tls.depth = 0;
}

/* The public API (src/include/autoopt.h). */
#include "autoopt.h"

__attribute__((visibility("default"))) const char *autoopt_version(void)
{
    return AOT_VERSION_STRING;
}

__attribute__((visibility("default"))) int autoopt_active(void)
{
    return aot_active;
}
