/*
 * chains.h: what the files of chains/ share.  Not seen outside chains/ (and its unit tests).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   sig.c     call signatures: the key of a call, its call site (libunwind or file:line), the
 *             signature table
 *   learn.c   the chain learner and the chain-mode state machine: pure logic, no MPI, no
 *             system calls (unit-tested)
 *   probe.c   touch probes: the pages of a phase's buffers are protected between two MPI calls
 *             while a phase is being learned; the SIGSEGV handler records the touch
 *   chains.c  the entry points of aot_chains.h: learning, chain mode, breaks, statistics
 *   tables.c  what the trace writer (src/trace.c) gets from chains: the signature of every
 *             call, the signature and chain tables at finalize
 *
 * Of paging/, chains see only its public aot_paging.h (DESIGN.md; tests/include_graph.py); of
 * mech/, the mechanisms chain members run with, aot_mech.h and native_inline.h.
 * From src/ (aot_mem.h): the private arena for every table of chains/ (aot_mem_zalloc,
 * aot_mem_free: never on a page of the program, so a probe can never cover autoopt's own data),
 * the raw system calls (aot_sys_mprotect, aot_sys_madvise), the stack query (aot_on_stack) and
 * the mapping query (aot_maps_check).
 */
#ifndef AOT_CHAINS_INTERNAL_H_INCLUDED
#define AOT_CHAINS_INTERNAL_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#include "aot.h"
#include "aot_chains.h"
#include "aot_mech.h"
#include "aot_mem.h"

/* Every table of chains/ lives in the private arena and is allocated zeroed (aot_mem_zalloc;
 * the code relies on it). */
#define uthash_malloc(sz) aot_mem_zalloc(sz)
#define uthash_free(ptr, sz) aot_mem_free((ptr), (sz))
#include <uthash.h>

/* ---------------------------------------------------------------- sig.c */

#define AOT_CH_MAX_DEPTH 16
#define AOT_CH_NONE UINT32_MAX      /* no signature */

/* What makes two calls the same call.  Compared with memcmp: always built zeroed. */
struct aot_ch_key {
    uint64_t site;                  /* hash of the call site (frames, or file:line) */
    int fn;
    MPI_Comm comm;
    int dest, stag, scount;
    MPI_Datatype sdt;
    const void *sbuf;
    int source, rtag, rcount;
    MPI_Datatype rdt;
    const void *rbuf;
    int status_ignore;
};

/* Why a signature can never be a chain member (0: it can). */
enum aot_ch_why {
    AOT_CH_OK = 0, AOT_CH_NOT_P2P, AOT_CH_WILDCARD, AOT_CH_COMM, AOT_CH_STACK,
    AOT_CH_MAPPING, AOT_CH_SELF_OVERLAP, AOT_CH_COUNT, AOT_CH_PAGING, AOT_CH_NWHY
};
extern const char *const aot_ch_why_text[AOT_CH_NWHY];

struct aot_ch_sig {
    struct aot_ch_key key;
    uint32_t id;
    uint32_t hash;
    /* the call site, for people: frames outside autoopt, or the exact file:line */
    int nframes;
    const void *frames[AOT_CH_MAX_DEPTH];
    const char *file;
    int line;
    /* the bytes the buffers may touch (true extent, count times); lo == hi: none; span: the
     * same four as the mechanisms take them (mech/aot_mech.h) */
    union {
        struct {
            intptr_t slo, shi, rlo, rhi;
        };
        struct aot_mech_span span;
    };
    int why;                        /* enum aot_ch_why */
    int in_chain;                   /* member of a confirmed chain */
    int retired;                    /* learned long enough without becoming a member */
    uint32_t learn_calls;           /* calls run in learning mode (probed) */
    uint64_t calls;
    uint64_t time_ns;               /* inside MPI, summed (trace only) */
    struct aot_ch_sig *next;        /* the signature that followed this one last time */
    /* the fast path (chains.c): the call site when it is one return address, else NULL; whether
     * chain mode may start it there (it can be a member and the program ignores the status);
     * the sides a call starts (1 send, 2 receive: those whose peer is not MPI_PROC_NULL) and
     * the number of sides MPI_PROC_NULL leaves out; and, once the signature can never be a
     * member (excluded or retired), the reason paging passes it to MPI whatever its state
     * (aot_paging_pass_reason), 0 when paging might act on it */
    const void *fast_pc;
    int fast_member;
    int fast_go, fast_null;
    int fast_pass;
    struct aot_ch_chain *first_of;  /* the chain this is the first member of, once looked up */
    /* copied sends (mech/copy.c): ok when the send side may be copied (its span, [slo, shi),
     * is at most a few times its bytes: aot_ch_sig_setup), the private buffer it is copied
     * into, and the copied sends started and late */
    struct aot_copy_buf copy;
    UT_hash_handle hh;
};

/* The signature of a call in a loop without a table lookup: the one that followed the previous
 * call last time, when k (its site left 0) matches it and its site needs no unwinding; this
 * fills in k->site.  NULL: compute the site and use aot_ch_sig_get. */
struct aot_ch_sig *aot_ch_sig_quick(struct aot_ch_key *k);
/* s is the signature of the current call, found without aot_ch_sig_quick or aot_ch_sig_get:
 * record it as they would (the previous signature's next, and the previous one). */
void aot_ch_sig_follow(struct aot_ch_sig *s);
/* s is the signature of the previous call, which went to MPI without aot_ch_sig_follow (a
 * dozing chain's member): the next lookup starts from it, and no link is learned. */
void aot_ch_sig_resume(struct aot_ch_sig *s);
/* The call site of the current call: fills frames (at most depth, outside autoopt and MPICH's
 * Fortran shim), file/line under compile-time injection; returns its hash.  routed: the
 * generated wrapper set aot_tls.caller for this call. */
uint64_t aot_ch_site(int routed, int depth, const void **frames, int *nframes,
                     const char **file, int *line);
void aot_ch_site_init(void);
/* Finds or creates the signature of key (site details are taken only for a new one).  The
 * signature that followed the previous one last time is compared first: in a loop it is
 * nearly always the one, and a compare is cheaper than the hash and the table. */
struct aot_ch_sig *aot_ch_sig_get(const struct aot_ch_key *key, const void *const *frames,
                                  int nframes, const char *file, int line, int *created);
struct aot_ch_sig *aot_ch_sig_by_id(uint32_t id);
uint32_t aot_ch_sig_count(void);
uint32_t aot_ch_key_hash(const struct aot_ch_key *key);
/* "file:line", or "symbol+0xoff (module)" of the first frame, into buf. */
void aot_ch_sig_where(const struct aot_ch_sig *s, char *buf, size_t len);

/* ---------------------------------------------------------------- learn.c */

#define AOT_CH_MAX_MEMBERS 64

struct aot_p2p_run;

struct aot_ch_chain {
    uint32_t id;
    uint32_t first;                 /* members[0]: the hash key */
    int n;
    uint32_t members[AOT_CH_MAX_MEMBERS];
    int reps;                       /* identical repetitions while learning */
    int confirmed;                  /* in chain mode */
    int disabled;                   /* broke too often, or its buffers overlap */
    int breaks;
    uint64_t starts, completions;
    uint64_t learned;               /* phases with these members, all told */
    struct aot_p2p_run *run;        /* chains.c: its governor and the mode of its occurrence,
                                     * from its first start on (NULL before) */
    UT_hash_handle hh;
};

/* Events the learner reports (trace and statistics). */
enum aot_ch_event { AOT_CH_EV_LEARN, AOT_CH_EV_CONFIRM, AOT_CH_EV_START, AOT_CH_EV_END,
                    AOT_CH_EV_BREAK, AOT_CH_EV_DISABLE, AOT_CH_EV_REJECT };

struct aot_ch_learner {
    int confirm;                    /* repetitions that confirm a chain */
    int max_breaks;                 /* breaks that disable a chain (0: never) */
    int split_on_repeat;            /* a phase also ends before a call with the signature that
                                     * began it (learning without touch probes) */
    uint32_t phase[AOT_CH_MAX_MEMBERS];
    int nphase;
    int overflow;                   /* the phase grew past AOT_CH_MAX_MEMBERS */
    struct aot_ch_chain *by_first;  /* hash: first member -> chain */
    struct aot_ch_chain **all;      /* by id */
    int nall, capall;
    struct aot_ch_chain *active;    /* chain mode: the chain being run */
    int pos;                        /* its next member */
    /* callbacks (may be NULL): events, and whether a chain may be confirmed */
    void (*event)(void *arg, enum aot_ch_event ev, const struct aot_ch_chain *c);
    int (*allowed)(void *arg, const struct aot_ch_chain *c);
    void *arg;
};

/* What to do with a call that can be a chain member. */
enum {
    AOT_CH_PLAIN = 0,               /* learning: run it as the program asked, then probe */
    AOT_CH_FIRST = 1,               /* first member of a confirmed chain: start unguarded */
    AOT_CH_NEXT = 2,                /* the expected next member: start unguarded */
    AOT_CH_LAST = 3,                /* the expected last member: start, then wait for all */
    AOT_CH_ACTION = 3,
    AOT_CH_BROKE = 4                /* flag: the active chain broke before this call; complete
                                     * its outstanding requests first */
};

void aot_ch_learner_init(struct aot_ch_learner *L, int confirm, int max_breaks);
void aot_ch_learner_free(struct aot_ch_learner *L);
int aot_ch_learn_call(struct aot_ch_learner *L, uint32_t sig);
/* A call that cannot be a member: ends the phase; AOT_CH_BROKE if the active chain broke. */
int aot_ch_learn_boundary(struct aot_ch_learner *L);
/* The program touched a buffer of the phase after its latest call: the phase ends there.
 * Returns 1 when a chain is active (the touch is one chain mode would have missed). */
int aot_ch_learn_touch(struct aot_ch_learner *L);
struct aot_ch_chain *aot_ch_chain_of(const struct aot_ch_learner *L, uint32_t first);
/* aot_ch_learn_call when the caller knows first_of = aot_ch_chain_of(L, sig) (NULL: look it
 * up).  A chain, once made, stays the chain of its first member until aot_ch_learner_free. */
int aot_ch_learn_call_known(struct aot_ch_learner *L, uint32_t sig,
                            struct aot_ch_chain *first_of);

/* ---------------------------------------------------------------- probe.c */

enum { AOT_CH_PROBE_READ = 1, AOT_CH_PROBE_WRITE = 2 };

int aot_ch_probe_init(char *err, size_t errlen);
void aot_ch_probe_finalize(void);
/* Protects the pages of [lo, hi): no access when the phase receives there (kind WRITE), else
 * read-only.  Collected with add, applied with arm. */
void aot_ch_probe_reset(void);
void aot_ch_probe_add(intptr_t lo, intptr_t hi, int recv);
void aot_ch_probe_arm(void);
/* mprotect calls made by the probes so far. */
uint64_t aot_ch_probe_syscalls(void);
/* Lifts every probe (before any MPI call).  Safe in signal context. */
void aot_ch_probe_lift(void);
extern volatile int aot_ch_probe_on;
/* Set by the handler: a probe was touched by the program. */
extern volatile int aot_ch_touched;
extern volatile uintptr_t aot_ch_touch_addr, aot_ch_touch_ip;
/* Whether [lo, hi) is on pages of a private, writable mapping (probes can restore them). */
int aot_ch_probe_mapping_ok(intptr_t lo, intptr_t hi);

#endif /* AOT_CHAINS_INTERNAL_H_INCLUDED */
