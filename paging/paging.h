/*
 * paging.h: what the files of paging/ share.  Not seen outside paging/.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   footprint.c  datatype flattening: the exact bytes a (count, datatype) pair touches
 *   guard.c      the page table (runs of pages with their owner counts), mprotect
 *   handler.c    the SIGSEGV and SIGTRAP handlers (signal context: see the rules at its top)
 *   insn.c       the access width of a faulting instruction (pure)
 *   requests.c   the table of pending requests: slots, retiring, progress, lookups by address
 *   sites.c      call sites: their governor (struct aot_p2p_run, src/p2p_run.c), what their
 *                guard notes teach (sites touched at once are no longer converted), unfit sites
 *   status.c     lazy statuses of converted receives, and the count queries that resolve them
 *   convert.c    converting one call: its parts, posting, snapshots and shadows, guarding
 *   entry.c      the call sites' entry points (send, recv, sendrecv ...): checks, the site's
 *                governor decides, convert (guarded.c) or pass through; the questions chains
 *                ask (aot_paging_pass_reason, _would_convert)
 *   guarded.c    the converting half, which decides nothing: can the call convert (communicator,
 *                footprint, overlap), convert, the part that passes; chains' members
 *                (aot_guarded_start) and the request interface chains use
 *   hooks.c      the enter/leave hooks around other MPI calls (by wrappers.spec's classes)
 *   init.c       init, finalize, the child after fork
 *   syscalls.c   the libc wrappers (read, write, free, munmap, fork ...) that complete or lift
 *                guards before the kernel or the allocator touch guarded memory
 *   syswrap.c    GENERATED (gen_syswrap.py): every libc function named after a system call that
 *                takes a pointer (open, stat, connect ...), through syscalls.c's helpers
 *   mapping.c    calls that change the mappings (munmap, madvise, brk ...), also through
 *                UCX's memory hooks, which bypass syscalls.c's wrappers
 *
 * From src/ (aot_mem.h): the private arena (aot_mem_alloc, aot_mem_shadow_get ...: everything
 * the fault handler reads or writes, and the shadow buffers MPI receives into, lives in pages
 * autoopt mapped itself and never guards), the raw system calls (aot_sys_mprotect ...), the
 * stack query (aot_on_stack) and the mapping query (aot_maps_check, aot_maps_find).  The call
 * sites' governor is src/'s (govern.c, govern_vote.c, govern_query.c, explore.c), set up and
 * asked through struct aot_p2p_run (src/p2p_run.c, as safe chains do).
 */
#ifndef AOT_PAGING_INTERNAL_H_INCLUDED
#define AOT_PAGING_INTERNAL_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "aot.h"
#include "aot_mem.h"
#include "aot_p2p.h"
#include "aot_paging.h"

/* ---------------------------------------------------------------- pages */

extern uintptr_t aot_pg_page_size;      /* 4096 on x86-64 */
extern unsigned aot_pg_page_shift;
#define AOT_PG_PAGE(addr) ((uintptr_t) (addr) >> aot_pg_page_shift)
#define AOT_PG_ADDR(page) ((uintptr_t) (page) << aot_pg_page_shift)

/* ---------------------------------------------------------------- footprint.c */

/* A byte range [lo, hi): offsets within one datatype element, or absolute addresses. */
struct aot_pg_range {
    intptr_t lo, hi;
};

/* The flattened layout of one datatype element. */
struct aot_pg_layout {
    int ok;                   /* flattened; 0: the datatype is not supported */
    int dense;                /* typemap order equals address order with no gap, lb == 0 and
                               * extent == size: a partial message fills a prefix of the bytes */
    MPI_Aint lb, extent;
    MPI_Count size;
    int nranges;              /* sorted, merged: the element's footprint */
    struct aot_pg_range *r;
};

/* Cached per datatype (a derived datatype's entry goes when the datatype is freed).
 * Returns NULL when the datatype cannot be flattened within the limits. */
const struct aot_pg_layout *aot_pg_layout_get(MPI_Datatype dt);
/* The absolute bytes of (buf, count, layout), sorted and merged, in arena memory
 * (aot_mem_free(*out, *n * sizeof **out)).  Returns 0, or -1 when there are too many ranges. */
int aot_pg_footprint(const void *buf, int count, const struct aot_pg_layout *L,
                     struct aot_pg_range **out, int *n);
void aot_pg_layout_init(void);
void aot_pg_layout_finalize(void);

/* Pure helpers (unit-tested): sort by lo and merge overlapping or touching ranges; returns the
 * new count.  Whether [lo, hi) meets any of the n sorted, merged ranges. */
int aot_pg_ranges_normalize(struct aot_pg_range *r, int n);
int aot_pg_ranges_meet(const struct aot_pg_range *r, int n, intptr_t lo, intptr_t hi);

/* ---------------------------------------------------------------- guard.c */

enum { AOT_PG_SEND = 1, AOT_PG_RECV = 2 };

/* A run of pages [p0, p1). */
struct aot_pg_run {
    uintptr_t p0, p1;
};

/* Pure (unit-tested): the page runs that hold the bytes of n sorted, merged ranges, merged
 * where they touch.  runs must have room for n entries; returns the number of runs. */
int aot_pg_page_runs(const struct aot_pg_range *r, int n, struct aot_pg_run *runs);

/* One entry of the page table: pages [p0, p1) with the same owner counts and protections. */
struct aot_pg_seg {
    uintptr_t p0, p1;
    int nsend, nrecv;         /* requests with bytes on each of these pages */
    int orig;                 /* protection before autoopt */
    int cur;                  /* protection now in force */
};

/* The protection a segment needs: no access under a receive, read-only under a send. */
static inline int aot_pg_want(const struct aot_pg_seg *s)
{
    if (s->nrecv)
        return PROT_NONE;
    if (s->nsend)
        return s->orig & ~PROT_WRITE;
    return s->orig;
}

int aot_pg_guard_init(int max_guards);
/* Whether runs can be guarded for kind: 0, or the pass-through reason (mapping shared, not
 * writable for a receive, not mapped, or the cap on guarded ranges reached). */
int aot_pg_guard_check(const struct aot_pg_run *runs, int n, int kind);
/* Adds one owner of kind to every page of runs and applies the protections.  0, or -1 when
 * mprotect failed (nothing is left added). */
int aot_pg_guard_add(const struct aot_pg_run *runs, int n, int kind);
void aot_pg_guard_remove(const struct aot_pg_run *runs, int n, int kind);
/* Signal-safe lookup: the segment holding page, or NULL. */
const struct aot_pg_seg *aot_pg_seg_find(uintptr_t page);
/* Protection of page now in force if autoopt guards it, else -1.  Signal-safe. */
int aot_pg_page_cur(uintptr_t page);
/* Sets pages [p0, p1) that autoopt guards to their original protection (lift) or back to the
 * protection in force (restore), without changing the table.  Signal-safe. */
void aot_pg_pages_lift(uintptr_t p0, uintptr_t p1);
void aot_pg_pages_restore(uintptr_t p0, uintptr_t p1);
/* Whether any guarded page meets [lo, hi).  Signal-safe. */
int aot_pg_guarded_meet(uintptr_t lo, uintptr_t hi);
/* After fork in the child, and at finalize: every page back to its original protection. */
void aot_pg_guard_reset(void);
extern int aot_pg_nseg;

/* ---------------------------------------------------------------- requests.c */

struct aot_pg_part;

#define AOT_PG_MAX_SLOTS 16384

/* One converted request.  The table is an array so the fault handler can scan it without
 * locks, and chains/ can iterate it. */
struct aot_pg_req {
    int state;                /* 0 free, 1 pending */
    int kind;                 /* AOT_PG_SEND or AOT_PG_RECV */
    int fn;                   /* the MPI function that was converted */
    int guarded;
    struct aot_pg_range *fp;  /* absolute footprint, sorted, merged */
    int nfp;
    intptr_t lo, hi;          /* its bounds */
    struct aot_pg_run *runs;
    int nruns;
    /* receives: the private shadow MPI receives into; snapshot sends: the copy MPI sends */
    char *shadow;
    size_t shadow_cap;        /* its size class (what the arena gets back) */
    MPI_Count shadow_len;     /* packed: the bytes MPI_Unpack reads back (may pass INT_MAX) */
    int packed;               /* 1: MPI_PACKED copy of (ubuf, count, dup); 0: dense bytes */
    void *ubuf;
    int count;
    MPI_Datatype dup;
    int lazy;                 /* lazy status entry, or -1 */
    struct aot_guard_note *note;  /* its call site's guard note (sites.c), or NULL */
    uint64_t epoch;           /* aot_pg_epoch when converted */
    int steps;                /* false-sharing faults charged to it (aot_pg_step_charge) */
    MPI_Status st;            /* completion status */
};

extern struct aot_pg_req *aot_pg_reqs;
extern MPI_Request *aot_pg_mreqs;
extern int aot_pg_nslots;                 /* slots in use are below this */
/* aot_pg_npending (aot_paging.h): the wrappers' fast-path test */
extern int *aot_pg_gen;                   /* per slot, bumped when a slot is freed */
extern MPI_Status *aot_pg_final_st;       /* per slot: the status of the last retired request */

/* Maps the tables; 0, or -1 without memory. */
int aot_pg_requests_init(void);
/* A new slot for the part, taking over its footprint and runs, pending from now on (the hooks
 * are armed); -1 when the table is full.  note: the call's (struct aot_pg_call), or NULL. */
int aot_pg_slot_for(struct aot_pg_part *p, int kind, int fn, struct aot_guard_note *note);
/* Frees a slot whose request is no longer MPI's (completed, or never started). */
void aot_pg_slot_release(int i);
/* Disarms the hooks when nothing is pending. */
void aot_pg_disarm_if_idle(void);
/* Waits for request i if it is pending and retires it.  Calls MPI. */
void aot_pg_wait_one(int i);
/* One MPI_Testsome over the table; retires what completed.  Calls MPI. */
void aot_pg_progress(void);

/* The pending requests whose bytes meet [lo, hi) and that conflict with the access: a receive
 * conflicts with any access, a send with writes.  Fills up to max slot indices; returns the
 * number found (possibly more than max).  Signal-safe. */
int aot_pg_owners(intptr_t lo, intptr_t hi, int write, int *idx, int max);
/* A false-sharing fault of the program on page `page`: charges one step to every guarded
 * request with bytes on that page.  When one of them has been charged more than
 * AOT_PG_STEP_BUDGET steps, fills idx with those requests (up to max) and returns their
 * number: the program works on that page, and waiting for them costs less than stepping every
 * access.  Else returns 0.  Signal-safe. */
#define AOT_PG_STEP_BUDGET 4
int aot_pg_step_charge(uintptr_t page, int *idx, int max);
/* Waits for the given requests and retires them.  Calls MPI: only where
 * MPI may be called (depth 0, or autoopt's own code). */
void aot_pg_wait_slots(const int *idx, int n);
/* Completes every pending request whose bytes meet [lo, hi) in a conflicting way. */
int aot_pg_complete_range(intptr_t lo, intptr_t hi, int write);
/* Completes every pending request with bytes on the pages of [lo, hi). */
int aot_pg_complete_pages(intptr_t lo, intptr_t hi);
/* [lo, hi) goes to MPI or the kernel: both of the above.  Returns how many completed. */
int aot_pg_complete_span(intptr_t lo, intptr_t hi, int write);
void aot_pg_wait_all(void);

/* ---------------------------------------------------------------- sites.c */

/* The guard note of call site key (src/aot_p2p.h), which the requests of its calls write;
 * the site is created on first use.  NULL for no site, or without memory. */
struct aot_guard_note *aot_pg_site_note(const void *key);
/* Whether the site has been learned to touch its buffer at once (no longer converted), from
 * its guard note. */
int aot_pg_site_learned(const void *site);
/* The modes of a converting call site (enum aot_p2p_mode), chosen by its benefit governor. */
void aot_pg_sites_init(void);
/* The mode a call at site key runs in now: the period since the site's previous call goes to
 * its governor (or AUTOOPT_P2P_MODE forces a mode).  copy_ok: the call has a send side that may
 * go from a copy; bytes: its size (for the guard's calibrated cost); comm: its communicator (its
 * size is part of the site's key in the cache of decisions); *unfit: the reason set by
 * aot_pg_site_unfit, else 0 (then the mode is native). */
int aot_pg_site_mode(const void *key, int fn, int copy_ok, size_t bytes, MPI_Comm comm,
                     int *unfit);
/* A call of the site could not be converted (why: an AOT_PASS_* reason): without
 * AUTOOPT_P2P_MODE its governor runs only native from now on, and its calls pass for that
 * reason. */
void aot_pg_site_unfit(const void *key, int why);
/* Registers the per-site section of the statistics. */
void aot_pg_sites_stats(void);
/* At MPI_Finalize, when no request is left: what the sites' guard notes say since their last
 * calls is learned (learned_sites), and every governed site's verdict goes into the cache of
 * decisions. */
void aot_pg_sites_keep(void);

/* ---------------------------------------------------------------- status.c */

/* Maps the lazy-status table; 0, or -1 without memory. */
int aot_pg_lazy_init(void);
/* Request i retired with status st: the lazy entry `lazy` (or -1) keeps it if it still names
 * that request. */
void aot_pg_lazy_retire(int lazy, int i, const MPI_Status *st);
/* The status of a converted receive in slot i (generation gen when posted): filled as MPI_Recv
 * would when it completed, else public fields now and the count through a lazy entry. */
void aot_pg_status_set(MPI_Status *status, int i, int gen, int source, int tag);

/* ---------------------------------------------------------------- convert.c */

/* One buffer of a call: its footprint and page runs. */
struct aot_pg_part {
    const void *buf;
    int count;
    MPI_Datatype dt;
    const struct aot_pg_layout *L;
    struct aot_pg_range *fp;
    int nfp;
    struct aot_pg_run *runs;
    int nruns;
    size_t bytes;
};

/* Up to one send and one receive of one call, both checked already. */
struct aot_pg_call {
    int fn;
    const void *site;
    struct aot_guard_note *note;  /* the site's, for its requests (set when it converts) */
    MPI_Comm comm;
    int dest, stag, source, rtag;
    MPI_Status *status;
    struct aot_pg_part s, r;
    int has_s, has_r;
    int replace;              /* sendrecv_replace: the receive waits for the send */
    int copy;                 /* the site's mode is copied sends: the send goes from a copy */
    int waited;               /* the caller completes the requests before it returns to the
                               * program (a chain's last member): they are not guarded */
};

/* Layout and size of one buffer (no MPI call); 0, or the pass-through reason. */
int aot_pg_part_size(struct aot_pg_part *p, const void *buf, int count, MPI_Datatype dt);
/* Footprint, stack and mapping checks; 0, or the pass-through reason. */
int aot_pg_part_prepare(struct aot_pg_part *p, int kind);
void aot_pg_part_free(struct aot_pg_part *p);
/* Converts the call.  Returns the MPI code; -1 when nothing was started (the caller passes the
 * call through); -2 when the send part went and the receive part must pass through. */
int aot_pg_convert(struct aot_pg_call *c);

/* ---------------------------------------------------------------- guarded.c */

/* The size rule of the entry points and of what chains ask: a call is too small to convert
 * when the larger of its sides (bytes; 0 for a side it lacks or whose peer is MPI_PROC_NULL)
 * holds fewer than min bytes. */
static inline int aot_pg_below_min(size_t sbytes, size_t rbytes, size_t min)
{
    return (sbytes > rbytes ? sbytes : rbytes) < min;
}
/* The checks of a call's sides, in the entry points' order: paging off, both peers
 * MPI_PROC_NULL, a wildcard receive whose status is read, each side's datatype and size
 * (aot_pg_part_size), a receive without data, the size rule with min.  Sets c->has_s and
 * c->has_r from the peers (c->dest, c->source: MPI_PROC_NULL for a side the call lacks).  0, or
 * the pass-through reason. */
int aot_pg_call_sizes(struct aot_pg_call *c, const void *sbuf, int scount, MPI_Datatype sdt,
                      void *rbuf, int rcount, MPI_Datatype rdt, size_t min);
/* The converting half of a checked call whose mode is decided (c->copy, c->waited): the
 * communicator, footprint and overlap checks, then conversion.  0 with *rc the call's MPI code
 * (converted, or a part converted and the other passed through); else the reason it could not
 * convert, nothing started and the parts freed (the caller passes the call to MPI). */
int aot_pg_guarded(struct aot_pg_call *c, int *rc);
/* Before a call passes through while requests are pending: complete those whose bytes lie in
 * the span the buffer may touch (its true extent, count times; conflict_waits). */
void aot_pg_pass_resolve(const void *buf, int count, MPI_Datatype dt, int write);
/* A send (fn: AOT_FN_MPI_Send, _Ssend or _Rsend) passed to MPI, after aot_pg_pass_resolve. */
int aot_pg_pass_send(int fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm);
/* A receive and a send-receive passed to MPI, after aot_pg_pass_resolve of their buffers. */
int aot_pg_pass_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                     MPI_Status *status);
int aot_pg_pass_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                         void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                         MPI_Comm comm, MPI_Status *status);

/* ---------------------------------------------------------------- hooks.c */

extern uint64_t aot_pg_epoch;             /* progress-capable MPI calls so far */

/* ---------------------------------------------------------------- init.c */

extern int aot_pg_on;                     /* initialized and converting */
/* In a child after fork: forget every request and guard without calling MPI. */
void aot_pg_child_reset(void);

/* ---------------------------------------------------------------- insn.c */

/* The bytes the memory operand of the x86-64 instruction at p covers, or 0 when the
 * instruction is not one it models.  Pure; safe in signal context. */
int aot_pg_insn_width(const unsigned char *p);

/* ---------------------------------------------------------------- handler.c */

int aot_pg_handler_install(char *err, size_t errlen);
/* Set while autoopt brackets an MPI call (hooks, its own waits): pages MPI's own data shares
 * with a guard are opened on their first fault and closed by aot_pg_lifted_restore(), which
 * every bracket calls before control returns to the program. */
extern int aot_pg_mpi_window;
void aot_pg_lifted_restore(void);
void aot_pg_lifted_forget(void);      /* child after fork */
void aot_pg_handler_uninstall(void);

/* ---------------------------------------------------------------- mapping.c */

/* Whether madvise(advice) may drop, move or touch the contents (the call then waits). */
int aot_pg_advice_waits(int advice);
/* Completes every pending request with a byte on the pages of [addr, addr + len), outside MPI
 * only (aot_tls.depth == 0): before the mappings there change. */
void aot_pg_pages_done(const void *addr, size_t len);
/* The heap's end moves to brk_new (brk, sbrk): what it gives back, as above. */
void aot_pg_heap_to(uintptr_t brk_new);
/* shmdt(addr): the mapping that holds addr, as above. */
void aot_pg_shm_detach(const void *addr);
/* shmat(id, addr, flags) with SHM_REMAP: the segment's pages at addr, as above. */
void aot_pg_shm_attach(int id, const void *addr, int flags);
/* Registers the handlers of UCX's memory events when libucm is loaded (MPI_Init): libucm
 * patches mmap, munmap, mremap, madvise, shmat, shmdt and brk, autoopt's wrappers included.
 * Returns the number of events registered. */
int aot_pg_ucm_init(void);

/* Chains' learning probes must not make a system call fail with EFAULT (src/aot.h). */
static inline void aot_pg_probes_release(void)
{
    if (aot_probes_armed && aot_probes_release)
        aot_probes_release();
}

/* ---------------------------------------------------------------- syscalls.c */

#define AOT_PG_EXPORT __attribute__((visibility("default")))

/* Pages opened around a system call (false sharing), put back after it. */
struct aot_pg_lift {
    uintptr_t p0, p1;
};
/* For syswrap.c (generated by gen_syswrap.py): the next definition of a libc function; before
 * the call, for each pointer argument p, what [p, p + span) reaches (the requests there
 * complete, the guards left are lifted); after it, the lifts of n arguments undone. */
void *aot_pg_next(const char *name);
void aot_pg_arg_before(struct aot_pg_lift *l, const void *p, size_t span, int kernel_writes);
void aot_pg_args_after(const struct aot_pg_lift *l, int n);
/* A pointer's reach when the call names no size: a path (PATH_MAX) or a structure. */
#define AOT_PG_SPAN_MIN ((size_t) 4096)
/* The wrappers' fast path: nothing pending, no chains probe armed. */
#define AOT_PG_SYS_FAST __builtin_expect(aot_pg_gate == 1 && !aot_probes_armed, 1)

void aot_pg_syscalls_init(void);          /* pthread_atfork */
/* The wrappers' fast-path word: 1 when nothing is pending.  Call after aot_pg_npending changes. */
extern volatile int aot_pg_gate;
void aot_pg_gate_update(void);

/* ---------------------------------------------------------------- statistics */

#define AOT_PG_COUNTERS(X) \
    X(converted)          /* requests started by conversion */ \
    X(immediate)          /* completed before any guard was needed */ \
    X(guarded)            /* requests whose pages were guarded */ \
    X(mprotect_calls)     /* mprotect system calls for guards */ \
    X(fault_waits)        /* faults on owned bytes: the owners were waited for */ \
    X(faults_false_sharing) /* faults on guarded pages outside every owner's bytes */ \
    X(false_sharing_in_mpi) /* ... of them inside MPI or autoopt (depth > 0) */ \
    X(rep_emulated)       /* REP MOVS/STOS over false-shared pages done by the handler */ \
    X(step_budget_waits)  /* false sharing on one page beyond the step budget: waited */ \
    X(progress_retired)   /* completed by Testsome in a later MPI call */ \
    X(conflict_waits)     /* waited because a new call's buffer overlaps a pending one */ \
    X(sigmask_waits)      /* completed because the program blocked SIGSEGV or SIGTRAP */ \
    X(enter_waits)        /* waited because an MPI call may touch any buffer */ \
    X(syscall_waits)      /* waited because a system call or free() gets guarded memory */ \
    X(syscall_lifts)      /* guards lifted around a system call (false sharing) */ \
    X(fork_waits)         /* waited before fork() */ \
    X(lazy_statuses)      /* statuses whose count is resolved lazily */ \
    X(lazy_resolved)      /* ... queried with MPI_Get_count / MPI_Get_elements */ \
    X(learned_sites)      /* call sites learned to touch their buffer at once */ \
    X(copy_bytes)         /* bytes copied out of receive shadows */

struct aot_pg_counters {
#define AOT_X(name) int name;
    AOT_PG_COUNTERS(AOT_X)
#undef AOT_X
};
extern struct aot_pg_counters aot_pg_ctr;
#define AOT_PG_COUNT(name, n) aot_stats_add(aot_pg_ctr.name, (uint64_t) (n))

#endif /* AOT_PAGING_INTERNAL_H_INCLUDED */
