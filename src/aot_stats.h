/*
 * aot_stats.h: the statistics: why calls passed through, named counters, the call counts
 * of every wrapped function, the report written at MPI_Finalize (src/stats.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_STATS_H_INCLUDED
#define AOT_STATS_H_INCLUDED

#include <stdint.h>
#include <stdio.h>

#include "aot_functions.h"

/* Reasons a call went straight to PMPI instead of being optimized.  NONE (0) is not a reason:
 * the checks of paging and chains return 0 for "no reason to pass, convert it", so every real
 * reason must be non-zero (AOT_PASS_DISABLED was 0 until 2026-11-27, and paging converted
 * every call under AUTOOPT_P2P_MODE=native). */
#define AOT_PASS_REASONS(X) \
    X(NONE,            "not passed") \
    X(DISABLED,        "subsystem switched off") \
    X(THREAD_LEVEL,    "thread level forbids it") \
    X(BELOW_MIN,       "message below AUTOOPT_CONVERT_MIN") \
    X(STACK,           "buffer on a thread's stack") \
    X(GUARD_CAP,       "guarded-range cap reached") \
    X(ERRHANDLER,      "communicator error handler is not MPI_ERRORS_ARE_FATAL") \
    X(WILDCARD_STATUS, "wildcard receive whose status is read") \
    X(INTERCOMM,       "intercommunicator") \
    X(DATATYPE,        "datatype not supported") \
    X(TOUCHED_AT_ONCE, "call site learned to touch its buffer at once") \
    X(PROC_NULL,       "MPI_PROC_NULL peer") \
    X(UNSAFE,          "cannot be converted safely") \
    X(RESTRICTION,     "algorithm restriction rejected the call") \
    X(NO_SUBSYSTEM,    "no optimization for this call") \
    X(APP_THREADS,     "program runs threads of its own") \
    X(NOT_PAYING,      "no mode was faster than MPI here (benefit governor)") \
    X(DOZING,          "passed unexamined: its loop's calls were all passed") \
    X(SKEWED,          "alltoallv blocks too unequal for rules measured with equal ones") \
    X(SIGMASK,         "the program blocks SIGSEGV or SIGTRAP: no guard") \
    X(FORCED_MODE,     "AUTOOPT_P2P_MODE forces a mode this call cannot take (copy: nothing to send)") \
    X(LEARNING,        "observed while its chain or call site is being learned") \
    X(STATUS_READ,     "safe chain member whose receive status is read: run blocking") \
    X(CHAIN_VERIFY,    "chain member run blocking and probed (AUTOOPT_CHAIN_VERIFY)")

enum aot_pass_reason {
#define AOT_X(name, text) AOT_PASS_##name,
    AOT_PASS_REASONS(AOT_X)
#undef AOT_X
    AOT_PASS_NREASONS
};

/* Named counters: a subsystem registers them at init (all ranks in the same order, so the
 * finalize reduction lines up) and bumps them on the fast path.  Group examples: "paging",
 * "chains", "coll.allreduce".  Returns an id, or -1 when the table is full. */
int aot_stats_register(const char *group, const char *name);
void aot_stats_add(int id, uint64_t n);
/* Count one call that passed through, with its reason, against function id fn. */
void aot_stats_pass(int fn, enum aot_pass_reason reason);
/* A pass-through reason's text as the report prints it ("buffer on a thread's stack"). */
const char *aot_stats_reason_text(enum aot_pass_reason reason);

/* Function ids of the wrapped MPI entry points (generated aot_functions.h: AOT_FN_MPI_Send,
 * ..., AOT_FN_COUNT), their names and the count of calls of each. */
extern const char *const aot_function_names[AOT_FN_COUNT];
extern uint64_t aot_calls[AOT_FN_COUNT];

/* Below MPI_THREAD_MULTIPLE only one thread is inside MPI at a time, so a plain increment is
 * exact and avoids a locked instruction on every call.  Every counter updated on the path of an
 * MPI call, by the thread making it and never by a signal handler, goes through aot_bump. */
extern int aot_calls_atomic;
static inline void aot_bump(uint64_t *counter, uint64_t n)
{
    if (__builtin_expect(aot_calls_atomic, 0))
        __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
    else
        *counter += n;
}

static inline void aot_count_call(int fn)
{
    aot_bump(&aot_calls[fn], 1);
}

#define AOT_MAX_NAMED 1024
extern uint64_t aot_optimized[AOT_FN_COUNT];
extern uint64_t aot_named[AOT_MAX_NAMED];

/* Count one call that a subsystem optimized (converted, chained, routed to an algorithm). */
static inline void aot_stats_optimized(int fn)
{
    aot_bump(&aot_optimized[fn], 1);
}

/* aot_stats_pass for a call that a wrapper's fast path passes to MPI (the trace is off there:
 * AOT_ARM_TRACE keeps calls off that path). */
extern uint64_t aot_passed[AOT_FN_COUNT][AOT_PASS_NREASONS];
static inline void aot_stats_pass_caller(int fn, enum aot_pass_reason reason)
{
    aot_bump(&aot_passed[fn][reason], 1);
}

/* n such calls at once (a dozing chain's, chains/chains.c). */
static inline void aot_stats_pass_caller_n(int fn, enum aot_pass_reason reason, uint64_t n)
{
    aot_bump(&aot_passed[fn][reason], n);
}

/* aot_stats_add for such counters (id from aot_stats_register; -1 is ignored). */
static inline void aot_stats_add_caller(int id, uint64_t n)
{
    if (id >= 0)
        aot_bump(&aot_named[id], n);
}

/* The report (src/stats.c). */
void aot_stats_start(void);
/* AOT_ARM_TIMING: the time of one call inside MPI, from the hooks (or a path that skips them). */
void aot_stats_time_enter(void);
void aot_stats_time_leave(int fn);
void aot_stats_report(void);
/* Adds a section to the report: text(f) prints lines of the text summary, json(f) prints the
 * JSON value of member `key`.  Both run on rank 0 only, inside aot_stats_report; whatever they
 * print must be gathered before it (at most 4 sections). */
void aot_stats_section(const char *key, void (*text)(FILE *f), void (*json)(FILE *f));
/* s as a JSON string, quoted and escaped (for the sections' json functions). */
void aot_stats_json_string(FILE *f, const char *s);
double aot_now(void);

#endif /* AOT_STATS_H_INCLUDED */
