/*
 * aot.h: autoopt's internal glue -- configuration, logging, statistics, the per-thread call
 * state and the subsystem interfaces that intercept/ dispatches to.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Not installed.  Everything declared here is hidden (-fvisibility=hidden); only MPI entry
 * points and the API in autoopt.h are exported from libautoopt.so.
 */
#ifndef AOT_H_INCLUDED
#define AOT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#include "aot_config.h"

/* ---------------------------------------------------------------- run-time state */

/* Set once MPI_Init has succeeded and autoopt is active (not AUTOOPT_DISABLE=1). */
extern int aot_active;
/* The configuration read in MPI_Init; constant afterwards. */
extern struct aot_config aot_cfg;
/* MPI_COMM_WORLD rank and size, valid after MPI_Init. */
extern int aot_world_rank, aot_world_size;
/* Thread level the program obtained. */
extern int aot_thread_level;

/* Per-thread call state.  depth > 0 while autoopt runs inside an intercepted call: any MPI call
 * made then is autoopt's own and goes straight to PMPI (wrappers test this first).  site_file
 * and site_line hold the exact call site when the program was built with autoopt-mpicc. */
struct aot_tls {
    int depth;
    int site_line;
    const char *site_file;
    const void *caller;      /* return address into the program of a routed call */
    double t_enter;          /* statistics timing of the current call */
};
/* initial-exec: libautoopt.so is loaded at start-up (LD_PRELOAD or linked), so its TLS sits in
 * the static block and each access is one %fs-relative load, not a __tls_get_addr call. */
extern __thread struct aot_tls aot_tls __attribute__((tls_model("initial-exec")));

/* ---------------------------------------------------------------- logging */

/* aot_log(level, fmt, ...): one line to stderr, "autoopt[rank]: ...", when
 * AUTOOPT_VERBOSE >= level.  Level 0 is always printed (errors). */
void aot_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define AOT_LOG(level, ...) \
    do { if (__builtin_expect(aot_cfg.verbose >= (level), 0)) aot_log((level), __VA_ARGS__); } while (0)

/* ---------------------------------------------------------------- statistics */

/* Reasons a call went straight to PMPI instead of being optimized. */
#define AOT_PASS_REASONS(X) \
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
    X(NOT_PAYING,      "no mode was faster than MPI here (benefit governor)")

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

/* ---------------------------------------------------------------- exploration (explore.c) */

/* One benefit governor explores at a time (chains and converting call sites measure their
 * modes by their own periods, which another's exploration would disturb).  Whether who may
 * explore now (it then holds the turn; a turn unused for 100 ms lapses), and its release.
 * Called on the thread that calls MPI. */
int aot_explore_turn(const void *who, uint64_t now_ns);
void aot_explore_release(const void *who);
/* What the caller of a governor keeps beside it: the start of the previous occurrence (0: no
 * period to measure) and aot_explore_interrupted's state. */
struct aot_explore_clock {
    uint64_t t_start;
    uint64_t min_ns;
    int skipped;
};
/* An occurrence of who (a chain, a call site) starts now: the period since the previous one
 * goes to its governor g unless it was an interruption; the mode to run it in is returned, and
 * native (0) while another governor explores (no period is fed until who has its turn). */
struct aot_gov;
int aot_explore_next(struct aot_gov *g, const void *who, struct aot_explore_clock *k);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t aot_now_ns(void);

/* ---------------------------------------------------------------- system calls (sys.c) */

/* syscall(3) for autoopt's own use: the instruction itself, never the exported syscall wrapper
 * (which may release probes or wait).  -1 and errno on failure.  Async-signal-safe. */
long aot_syscall6(long nr, long a, long b, long c, long d, long e, long f);
/* aot_syscall(SYS_write, fd, buf, n): the arguments not given are passed as 0 (a variadic
 * function would read past the ones given). */
#define AOT_SYSCALL_PICK(nr, a, b, c, d, e, f, ...)                                            \
    aot_syscall6((long) (nr), (long) (a), (long) (b), (long) (c), (long) (d), (long) (e),       \
                 (long) (f))
#define aot_syscall(...) AOT_SYSCALL_PICK(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

/* ---------------------------------------------------------------- threads (threads.c) */

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

/* ---------------------------------------------------------------- files (files.c) */

/* The directory autoopt writes into: created (0700, with its parents) when create is set,
 * opened without following a symbolic link, and refused when it belongs to another user or
 * others may write into it without the sticky bit.  Returns a descriptor, or -1 with
 * "DIR: reason" in err. */
int aot_dir_open(const char *dir, int create, char *err, size_t errlen);
/* DIR/NAME opened for writing relative to dirfd, never through a symbolic link, and emptied
 * only once it is known to be a regular file of ours with one link.  -1 with a reason. */
int aot_file_create(int dirfd, const char *dir, const char *name, char *err, size_t errlen);
/* Writes path whole or not at all: emit() fills a new temporary file beside it, which is then
 * renamed over path (a symbolic link there is replaced, not followed).  -1 with a reason. */
#include <stdio.h>
int aot_file_replace(const char *path, void (*emit)(FILE *f, void *arg), void *arg, char *err,
                     size_t errlen);
/* The same with the len bytes of text as the new contents. */
int aot_file_replace_text(const char *path, const char *text, size_t len, char *err,
                          size_t errlen);
/* Reads a whole regular file of at most max bytes into a malloc'ed, NUL-terminated buffer (a
 * pipe or /dev/zero is refused, not read until memory runs out).  -1 with "PATH: reason" in
 * err, naming the file as `what` ("cannot open the tuning file: ..."). */
int aot_file_slurp(const char *path, const char *what, size_t max, char **text, size_t *len,
                   char *err, size_t errlen);

/* ---------------------------------------------------------------- trace hook */

/* Trace events (the writer is src/trace.c, see docs/trace-format.md).  Subsystems call
 * aot_trace(); it does nothing unless AUTOOPT_TRACE is set and a writer was installed. */
enum aot_trace_kind {
    AOT_TR_CALL, AOT_TR_CONVERT, AOT_TR_PASS, AOT_TR_GUARD, AOT_TR_FAULT, AOT_TR_WAIT,
    AOT_TR_CHAIN_LEARN, AOT_TR_CHAIN_CONFIRM, AOT_TR_CHAIN_START, AOT_TR_CHAIN_END,
    AOT_TR_CHAIN_BREAK, AOT_TR_COLL_ALG
};
typedef void (*aot_trace_fn)(enum aot_trace_kind kind, int fn, uint64_t a, uint64_t b,
                             const char *text);
extern aot_trace_fn aot_trace_writer;
static inline void aot_trace(enum aot_trace_kind kind, int fn, uint64_t a, uint64_t b,
                             const char *text)
{
    if (__builtin_expect(aot_trace_writer != NULL, 0))
        aot_trace_writer(kind, fn, a, b, text);
}

/* The writer (src/trace.c).  aot_trace_init runs once aot_cfg is parsed (a no-op without
 * AUTOOPT_TRACE: 0, or -1 with a one-line reason); aot_trace_finalize writes the tables and
 * closes the file.  aot_trace_on: the file is being written (AOT_ARM_TRACE is set with it). */
int  aot_trace_init(char *err, size_t errlen);
void aot_trace_finalize(void);
extern int aot_trace_on;
/* The AOT_TR_CALL record of a call is written when it returns: the leave hook calls
 * aot_trace_leave(fn) while AOT_ARM_TRACE is set. */
void aot_trace_leave(int fn);

/* Signatures name calls in the trace (the "sig" field of a record, the "sig" lines of its
 * table); they belong to the subsystem that classifies calls (chains/).  It sets the signature
 * of the call in progress, and registers a namer for the rest. */
#define AOT_TRACE_NOSIG UINT32_MAX
void aot_trace_call_sig(uint32_t id);
/* The table text written at finalize (opaque; appended to with aot_trace_text_add). */
struct aot_trace_text;
void aot_trace_text_add(struct aot_trace_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Tabs and newlines of s become spaces (a field of the table); returns s. */
const char *aot_trace_clean(char *s);
struct aot_trace_namer {
    /* The call fn returned after ns nanoseconds; sig is what aot_trace_call_sig set for it, or
     * AOT_TRACE_NOSIG.  Returns the signature its record carries (AOT_TRACE_NOSIG: none).
     * Called with the writer busy: events it traces are dropped. */
    uint32_t (*call_done)(int fn, uint32_t sig, uint64_t ns);
    /* Appends its lines to the table, after the "str" lines and before "end". */
    void (*tables)(struct aot_trace_text *t);
};
/* One namer at most; the latest registration wins (NULL: none).  n must stay valid. */
void aot_trace_set_namer(const struct aot_trace_namer *n);

/* ---------------------------------------------------------------- probes and system calls */

/* Chains' learning probes (chains/probe.c) protect a phase's buffers between two MPI calls.
 * A system call handed such memory would fail with EFAULT, so paging's libc wrappers call
 * aot_probes_release() first whenever aot_probes_armed is set; the release lifts every probe
 * and counts as a touch of the data (which it is). */
extern volatile int aot_probes_armed;
extern void (*aot_probes_release)(void);

/* ---------------------------------------------------------------- enter / leave hooks */

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
/* The hooks' dispatch to the subsystems (intercept/subsystems.c). */
void aot_enter_slow(int fn);
void aot_leave_slow(int fn);

/* Function ids of the wrapped MPI entry points (generated: AOT_FN_MPI_Send, ..., AOT_FN_COUNT)
 * and their names. */
#include "aot_functions.h"
extern const char *const aot_function_names[AOT_FN_COUNT];
extern uint64_t aot_calls[AOT_FN_COUNT];

/* PMPI_Waitall with MPI_STATUSES_IGNORE, for requests whose statuses nobody reads: MPICH then
 * fills no status (about 50 instructions per request less).  MPICH's constant is
 * (MPI_Status *) 1; it is hidden from GCC, whose -Wstringop-overflow takes it for an empty array. */
static inline int aot_waitall_ignore(int n, MPI_Request *req)
{
    MPI_Status *ignore = MPI_STATUSES_IGNORE;
    __asm__("" : "+r"(ignore));
    return PMPI_Waitall(n, req, ignore);
}

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

/* aot_stats_add for such counters (id from aot_stats_register; -1 is ignored). */
static inline void aot_stats_add_caller(int id, uint64_t n)
{
    if (id >= 0)
        aot_bump(&aot_named[id], n);
}

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
/* Statistics (src/stats.c). */
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

#endif /* AOT_H_INCLUDED */
