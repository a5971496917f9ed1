/*
 * chains.c: learning, chain mode and breaks (docs/chains.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The calls that can be chain members are MPI_Send, MPI_Ssend, MPI_Recv and MPI_Sendrecv with a
 * signature that passes the checks of aot_ch_sig_setup (no wildcard, not on the stack, a private
 * writable mapping, an intracommunicator with MPI_ERRORS_ARE_FATAL, a receive that carries
 * data).  Every other hooked MPI call is a boundary.
 *
 * Learning (AOT_CH_PLAIN): the call runs as the program asked (blocking, through PMPI), then the
 * pages of every buffer of the current phase are probed (probe.c) until the next MPI call.  A
 * touch ends the phase after this call; learn.c compares phases and confirms chains.
 *
 * Chain mode: each member starts as PMPI_Isend/Issend/Irecv on the program's own buffers with no
 * guard; the last member waits for all of them.  A receive whose status the program reads is
 * waited for at once (its status is then exactly MPI's), the rest of the chain still overlaps.
 * A call other than the expected member (a boundary, another signature) first completes every
 * outstanding request, so nothing the program or MPI does afterwards can see a buffer that is
 * still in flight; MPI_Finalize completes them too (aot_chains_finalize).
 *
 * AUTOOPT_CHAIN_VERIFY=1: chain members run blocking and are probed like learning calls; a touch
 * between the first and the last member is reported with the address and the code that touched
 * it.  The results are those of the program as written.
 *
 * Paging: a call that paging would convert (AUTOOPT_CONVERT=1, at least AUTOOPT_CONVERT_MIN
 * bytes) is never a member: it stays paging's.  The calls chains take would have passed through
 * paging; before their buffers are handed to MPI, paging's pending requests on those bytes are
 * completed (aot_paging_complete), as paging does for a call that passes through.  A page that
 * paging guards is never probed: the gap then counts as touched (aot_paging_guards).  Chains
 * see paging only through aot_paging.h.
 *
 * Mechanisms: what a member's call does once its mode is chosen is mech/'s (the native calls and
 * posts, and the table of their requests: native_inline.h and mech/native.c; copied sends:
 * mech/copy.c).  This file decides and counts; it hands them the call and its spans.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "aot_cache.h"
#include "aot_calib.h"
#include "aot_p2p.h"
#include "aot_p2p_run.h"
#include "chains.h"
#include "native_inline.h"
#ifdef AOT_HAVE_PAGING
#include "aot_paging.h"
#endif

#define AOT_CH_COUNTERS(X) \
    X(signatures)         /* distinct call signatures */ \
    X(learn_calls)        /* member calls run in learning mode (probed) */ \
    X(probe_faults)       /* touches seen by a probe: a phase ended */ \
    X(phases_learned)     /* phases of two or more calls compared with a candidate */ \
    X(chains_confirmed) \
    X(chains_rejected)    /* confirmed but their buffers overlap */ \
    X(chain_starts) \
    X(chain_completions) \
    X(chain_breaks)       /* a different call arrived mid-chain */ \
    X(fast_calls)         /* members taken by the wrapper's fast path (aot_ch_fast_go) */ \
    X(chains_disabled)    /* broke AUTOOPT_CHAIN_MAX_BREAKS times */ \
    X(unguarded_requests) /* requests started in unguarded chain mode */ \
    X(guarded_members)    /* members handed to paging in (safe) chain mode */ \
    X(proc_null_sides)    /* sends and receives to MPI_PROC_NULL that chain mode left out */ \
    X(status_waits)       /* chain receives waited at once for their status */ \
    X(retired_signatures) /* learned long enough without becoming a member */ \
    X(verify_missed)      /* AUTOOPT_CHAIN_VERIFY: touches chain mode would have missed */ \
    X(probe_mprotects)    /* system calls that set or lifted touch probes */ \
    X(copied_sends)       /* sends of safe chains started from a private copy */ \
    X(copied_late)        /* ... that MPI had not completed when their call returned */ \
    X(copied_ruled_out)   /* chains whose copied mode was ruled out (aot_ch_copy_pays) */ \
    X(runs_native)        /* occurrences of safe chains run natively (the governor's choice) */ \
    X(runs_copied)        /* ... with copied sends */ \
    X(runs_guarded)       /* ... as guarded requests */ \
    X(fast_passes)        /* calls the wrapper's fast path passed to MPI (AOT_CH_FAST_PASS) */ \
    X(dozes)              /* stretches a native chain or a loop of passes dozed through */ \
    X(dozed_calls)        /* members passed to MPI while their chain dozed */

static struct {
#define AOT_X(name) int name;
    AOT_CH_COUNTERS(AOT_X)
#undef AOT_X
} aot_ch_ctr;
/* Signatures that can never be chain members, by reason (index: enum aot_ch_why; 0 unused). */
static int aot_ch_excluded[AOT_CH_NWHY];
static const char *const aot_ch_excluded_name[AOT_CH_NWHY] = {
    NULL, "excluded_not_p2p", "excluded_wildcard", "excluded_comm", "excluded_stack",
    "excluded_mapping", "excluded_overlap", "excluded_count", "excluded_paging",
};
/* Chains count on the thread calling MPI only (the probe handler sets flags, not counters). */
#define AOT_CH_COUNT(name, n) aot_stats_add_caller(aot_ch_ctr.name, (uint64_t) (n))

static struct aot_ch_learner aot_ch_L;
static int aot_ch_on;
static int aot_ch_retire_after;
/* Chain members may run on the fast path (at depth 1, not verifying; in safe chains only
 * natively or with copied sends). */
static int aot_ch_fast_members;
/* Safe chains: each occurrence runs in its governor's mode (struct aot_p2p_run). */
static int aot_ch_governed;

/* The requests of a chain's members wait in mech/'s native table until the chain ends. */
_Static_assert(AOT_NATIVE_MAX_REQS >= 2 * AOT_CH_MAX_MEMBERS + 2,
               "the native table holds two requests per member of the longest chain");

const struct aot_ch_learner *aot_ch_learner_get(void);
const struct aot_ch_learner *aot_ch_learner_get(void)
{
    return aot_ch_L.confirm > 0 ? &aot_ch_L : NULL;     /* initialized once */
}

static int aot_ch_member_fn(int fn)
{
    /* the members a chain can have are the fast functions of wrappers.spec */
    return fn >= 0 && fn < AOT_FN_COUNT && (aot_function_classes[fn] & AOT_FC_FAST);
}

/* ---------------------------------------------------------------- paging's requests */

/* Before MPI gets [lo, hi) itself: paging's requests on those bytes complete, and so do those
 * that guard any of its pages (a peer's process_vm_readv, or ours, fails on a no-access page;
 * see aot_paging_complete). */
static void aot_ch_resolve(intptr_t lo, intptr_t hi, int write)
{
#ifdef AOT_HAVE_PAGING
    if (aot_paging_pending() && hi > lo)
        aot_paging_complete(lo, hi, write);
#else
    (void) lo;
    (void) hi;
    (void) write;
#endif
}

/* Whether paging guards any page of [lo, hi): such pages cannot be probed. */
static int aot_ch_paging_guards(intptr_t lo, intptr_t hi)
{
#ifdef AOT_HAVE_PAGING
    if (aot_paging_pending() && hi > lo)
        return aot_paging_guards(lo, hi);
#else
    (void) lo;
    (void) hi;
#endif
    return 0;
}

/* ---------------------------------------------------------------- signatures */

static void aot_ch_span(const void *buf, int count, MPI_Datatype dt, intptr_t *lo, intptr_t *hi)
{
    MPI_Aint tlb, text, lb, ext;

    *lo = *hi = 0;
    if (count <= 0 || dt == MPI_DATATYPE_NULL)
        return;
    PMPI_Type_get_true_extent(dt, &tlb, &text);
    PMPI_Type_get_extent(dt, &lb, &ext);
    if (text <= 0)
        return;
    *lo = (intptr_t) buf + tlb;
    *hi = *lo + text;
    if (ext >= 0)
        *hi += (intptr_t) (count - 1) * ext;
    else
        *lo += (intptr_t) (count - 1) * ext;
}

/* The largest send span chains copy (larger sends are paging's anyway). */
#define AOT_CH_COPY_MAX (16 << 20)

/* Why a new signature can never be a member (enum aot_ch_why). */
static int aot_ch_sig_setup(struct aot_ch_sig *s, const struct aot_mech_call *c)
{
    MPI_Errhandler eh;
    int inter = 0, fatal;
    MPI_Count size = 0;               /* _x: an int is MPI_UNDEFINED above INT_MAX bytes */

    if (!aot_ch_member_fn(c->fn))
        return AOT_CH_NOT_P2P;
    if (c->has_r && (c->source == MPI_ANY_SOURCE || c->rtag == MPI_ANY_TAG))
        return AOT_CH_WILDCARD;
    if ((c->has_s && c->scount < 0) || (c->has_r && c->rcount < 0))
        return AOT_CH_COUNT;
    if (c->has_r) {
        PMPI_Type_size_x(c->rdt, &size);
        if (size == 0 || c->rcount == 0)
            return AOT_CH_COUNT;      /* a pure synchronization: its completion is its effect */
    }
#ifdef AOT_HAVE_PAGING
    /* what paging converts stays paging's (docs/chains.md, "Chains and paging") */
    if (aot_paging_would_convert(c->has_s ? c->scount : 0, c->sdt, c->has_r ? c->rcount : 0,
                                 c->rdt))
        return AOT_CH_PAGING;
#endif
    PMPI_Comm_get_errhandler(c->comm, &eh);
    fatal = eh == MPI_ERRORS_ARE_FATAL;
    PMPI_Errhandler_free(&eh);
    PMPI_Comm_test_inter(c->comm, &inter);
    if (!fatal || inter)
        return AOT_CH_COMM;
    if (c->has_s)
        aot_ch_span(c->sbuf, c->scount, c->sdt, &s->slo, &s->shi);
    if (c->has_r)
        aot_ch_span(c->rbuf, c->rcount, c->rdt, &s->rlo, &s->rhi);
    if ((s->shi > s->slo && aot_on_stack((uintptr_t) s->slo, (uintptr_t) s->shi)) ||
        (s->rhi > s->rlo && aot_on_stack((uintptr_t) s->rlo, (uintptr_t) s->rhi)))
        return AOT_CH_STACK;
    if (!aot_ch_probe_mapping_ok(s->slo, s->shi) || !aot_ch_probe_mapping_ok(s->rlo, s->rhi))
        return AOT_CH_MAPPING;
    if (s->shi > s->slo && s->rhi > s->rlo && s->slo < s->rhi && s->rlo < s->shi)
        return AOT_CH_SELF_OVERLAP;
    if (c->has_s && s->shi > s->slo) {
        /* copied sends copy the whole span: only when it is dense enough */
        MPI_Count ssize = 0;
        PMPI_Type_size_x(c->sdt, &ssize);
        s->copy.ok = (uint64_t) (s->shi - s->slo) <= 4 * (uint64_t) ssize * (uint64_t) c->scount
                                                   + 4096 &&
                     s->shi - s->slo <= AOT_CH_COPY_MAX;
    }
    return AOT_CH_OK;
}

/* The fast path's view of a new signature (struct aot_ch_sig, fast_pc).  A call at the same
 * return address with the same arguments has this signature: at depth 1 without injection the
 * site is that one frame, whether it came from the wrapper or from unwinding. */
static void aot_ch_fast_setup(struct aot_ch_sig *s, const struct aot_mech_call *c)
{
    const int has = c->has_s + 2 * c->has_r;

    s->fast_go = (c->has_s && c->dest != MPI_PROC_NULL) +
                 2 * (c->has_r && c->source != MPI_PROC_NULL);
    s->fast_null = (has & 1) + (has >> 1) - (s->fast_go & 1) - (s->fast_go >> 1);
    s->fast_pc = NULL;
    if (s->nframes == 1 && !s->file && aot_cfg.site_depth == 1)
        s->fast_pc = s->frames[0];
    s->fast_member = aot_ch_fast_members && !s->why &&
                     (!c->has_r || c->status == MPI_STATUS_IGNORE);
    s->fast_pass = 0;
}

/* s can never be a chain member (excluded, or retired now): when paging will not act on its
 * calls either, the wrappers' fast path may hand them to MPI (aot_ch_fast_pass). */
static void aot_ch_pass_setup(struct aot_ch_sig *s)
{
    const struct aot_ch_key *k = &s->key;

    if (!s->fast_pc || s->why == AOT_CH_PAGING)
        return;
#ifdef AOT_HAVE_PAGING
    s->fast_pass = aot_paging_pass_reason(k->fn, k->scount, k->sdt, k->dest, k->rcount, k->rdt,
                                          k->source, k->rtag, k->status_ignore);
#else
    (void) k;
    s->fast_pass = AOT_PASS_DISABLED;
#endif
}

static struct aot_ch_sig *aot_ch_signature(const struct aot_mech_call *c)
{
    struct aot_ch_key k;
    const void *frames[AOT_CH_MAX_DEPTH];
    const char *file;
    int nframes, line, created;
    struct aot_ch_sig *s;

    memset(&k, 0, sizeof(k));
    k.fn = c->fn;
    k.comm = c->comm;
    if (c->has_s) {
        k.dest = c->dest;
        k.stag = c->stag;
        k.scount = c->scount;
        k.sdt = c->sdt;
        k.sbuf = c->sbuf;
    }
    if (c->has_r) {
        k.source = c->source;
        k.rtag = c->rtag;
        k.rcount = c->rcount;
        k.rdt = c->rdt;
        k.rbuf = c->rbuf;
        k.status_ignore = c->status == MPI_STATUS_IGNORE;
    }
    s = aot_ch_sig_quick(&k);
    if (s)
        return s;
    k.site = aot_ch_site(1, aot_cfg.site_depth, frames, &nframes, &file, &line);
    s = aot_ch_sig_get(&k, frames, nframes, file, line, &created);
    if (!s)
        return NULL;
    if (created) {
        AOT_CH_COUNT(signatures, 1);
        s->why = aot_ch_on ? aot_ch_sig_setup(s, c) : AOT_CH_NOT_P2P;
        aot_ch_fast_setup(s, c);
        if (aot_ch_on && s->why) {
            aot_stats_add_caller(aot_ch_excluded[s->why], 1);
            aot_ch_pass_setup(s);
        }
        if (aot_ch_on && aot_cfg.verbose >= 2) {
            char where[256];
            aot_ch_sig_where(s, where, sizeof(where));
            aot_log(2, "chains: signature %u: %s at %s: %s", s->id, aot_function_names[c->fn],
                    where, aot_ch_why_text[s->why]);
        }
    }
    return s;
}

/* ---------------------------------------------------------------- requests */

/* A member's call through PMPI, as the program made it, once paging's requests on its bytes
 * completed. */
static int aot_ch_blocking(const struct aot_mech_call *c, const struct aot_ch_sig *s)
{
    if (c->has_s)
        aot_ch_resolve(s->slo, s->shi, 0);
    if (c->has_r)
        aot_ch_resolve(s->rlo, s->rhi, 1);
    return aot_native_call(c);
}

/* aot_native_post of the call whose key is k (the sides go, the status as given). */
static inline __attribute__((always_inline)) int aot_ch_post(const struct aot_ch_key *k, int go,
                                                        MPI_Status *status)
{
    return aot_native_post(k->fn, k->sbuf, k->scount, k->sdt, k->dest, k->stag, k->rbuf,
                           k->rcount, k->rdt, k->source, k->rtag, k->comm, go, status);
}

/* Chain mode: start the call.  A side whose peer is MPI_PROC_NULL has no effect (MPI 4.0,
 * 3.11): it starts no request, unless the program reads the receive's status, which MPI then
 * fills in as usual. */
static int aot_ch_start(const struct aot_mech_call *c, const struct aot_ch_sig *s)
{
    const int has_s = c->has_s && c->dest != MPI_PROC_NULL;
    const int has_r = c->has_r && (c->source != MPI_PROC_NULL || c->status != MPI_STATUS_IGNORE);

    if (has_s + has_r < c->has_s + c->has_r)
        AOT_CH_COUNT(proc_null_sides, c->has_s + c->has_r - has_s - has_r);
    if (has_s)
        aot_ch_resolve(s->slo, s->shi, 0);
    if (has_r)
        aot_ch_resolve(s->rlo, s->rhi, 1);
    return aot_ch_post(&s->key, has_s + 2 * has_r, c->status);
}

/*
 * Safe chain mode (AUTOOPT_CHAINS=1, the default): a member that is not the chain's last starts
 * as paging's request, whatever its size: a receive lands in a private shadow while the
 * program's bytes are no-access, a send is copied (up to 16 KiB) or read-only.  A touch of those
 * bytes before the chain ends waits for exactly the requests that own them, so the program sees
 * what blocking calls would have shown it, however rarely it touches them.  A receive whose
 * status the program reads, and every member when paging is not there, runs blocking.  how:
 * AOT_GUARDED_PENDING, or AOT_GUARDED_WAITED for the last member (aot_ch_finish_safe).
 */
static int aot_ch_start_safe(const struct aot_mech_call *c, const struct aot_ch_sig *s, int how)
{
#ifdef AOT_HAVE_PAGING
    const void *site = aot_tls.site_file ? (const void *) (aot_tls.site_file + aot_tls.site_line)
                                         : aot_tls.caller;
    int rc;

    if (aot_paging_started() && (!c->has_r || c->status == MPI_STATUS_IGNORE)) {
        AOT_CH_COUNT(guarded_members, 1);
        /* a member paging cannot convert runs natively inside aot_guarded_start, counted
         * there (calls == optimized + passed) */
        aot_guarded_start(c->fn, c->sbuf, c->scount, c->sdt, c->dest, c->stag, c->rbuf,
                          c->rcount, c->rdt, c->source, c->rtag, c->comm, how, site, &rc);
        return rc;
    }
#endif
    (void) how;
    /* MPI's own call, and the statistics say why (calls == optimized + passed) */
    if (c->has_r && c->status != MPI_STATUS_IGNORE) {
        AOT_CH_COUNT(status_waits, 1);
        aot_stats_pass_caller(c->fn, AOT_PASS_STATUS_READ);
    } else {
        aot_stats_pass_caller(c->fn, AOT_PASS_DISABLED);    /* paging is not running */
    }
    return aot_ch_blocking(c, s);
}

/*
 * Safe chain mode, the last member: it is posted like the others but without a guard, and its
 * own requests complete before it returns, as a blocking call's would (a receive whose status
 * the program reads runs blocking, as in aot_ch_start_safe).  Then the requests of the earlier
 * members complete, so that their guards are gone before the program computes on the buffers.
 * Posted and completed with the chain's other requests rather than as one blocking call, the
 * chain ran 1.07-1.09x hand-written MPI_Isend on the emulated cluster instead of 1.12-1.16x
 * (docs/overhead.md, "the chain's last member").
 */
static int aot_ch_finish_safe(const struct aot_mech_call *c, const struct aot_ch_sig *s,
                              const struct aot_ch_chain *ch)
{
    int rc = aot_ch_start_safe(c, s, AOT_GUARDED_WAITED);

    if (c->has_s)
        aot_ch_resolve(s->slo, s->shi, 1);
    if (c->has_r)
        aot_ch_resolve(s->rlo, s->rhi, 1);
    for (int i = 0; ch && i < ch->n - 1; i++) {
        const struct aot_ch_sig *m = aot_ch_sig_by_id(ch->members[i]);
        if (m) {
            aot_ch_resolve(m->slo, m->shi, 1);
            aot_ch_resolve(m->rlo, m->rhi, 1);
        }
    }
    return rc;
}

/* ---------------------------------------------------------------- modes and the governor */

/*
 * A safe chain (AUTOOPT_CHAINS=1) runs each occurrence in one of three modes, chosen by its
 * governor (src/govern.c, docs/govern.md) from the chain's own period, the time from one
 * start of the chain to the next:
 *   native   every member as the program made it, through PMPI;
 *   copied   a send is copied into a private buffer and started with MPI_Isend, the call
 *            returns at once (buffered-send semantics, which MPI allows for MPI_Send); a
 *            receive runs blocking; the copies complete at the chain's last member, at a break
 *            and at MPI_Finalize.  MPI_Ssend members run natively (their return means the
 *            message was matched);
 *   guarded  the members are paging's guarded requests (aot_ch_start_safe).
 * None of them changes which message matches which receive, so a rank decides alone.
 * AUTOOPT_P2P_MODE forces one.  The modes (enum aot_p2p_mode) and their names are the ones
 * converting call sites use too (aot_p2p.h), and so is the governor's wrapper, struct
 * aot_p2p_run (aot_p2p_run.h: set-up, each occurrence's mode, the cache, the statistics rows).
 * The period is from one start of the chain to the next (its clock); fresh marks a mode chosen
 * for a start the fast path declined; copy_ran counts copied occurrences since the last look
 * (aot_ch_copy_pays).
 */

/* -1: the governor chooses; else the mode AUTOOPT_P2P_MODE forces. */
static int aot_ch_forced = -1;

/* The chain's verdict of an earlier run (docs/govern.md, "The cache of decisions") is its
 * governor's starting point.  The key's signature holds what makes the chain the same in another
 * run and on another rank of the same loop: each member's call site (object and offset, or
 * file:line), function, tags and bytes; not its peers, buffers or communicator handle. */
static void aot_ch_run_seed(const struct aot_ch_chain *c, struct aot_p2p_run *r)
{
    uint64_t h = AOT_CACHE_FNV_BASIS;
    const struct aot_ch_sig *first = aot_ch_sig_by_id(c->first);

    if (!first)
        return;
    for (int i = 0; i < c->n; i++) {
        const struct aot_ch_sig *m = aot_ch_sig_by_id(c->members[i]);
        int64_t what[5];
        if (!m)
            return;
        what[0] = m->key.fn;
        what[1] = m->key.stag;
        what[2] = m->key.rtag;
        what[3] = (int64_t) (m->shi - m->slo);
        what[4] = (int64_t) (m->rhi - m->rlo);
        h = aot_cache_hash_bytes(h, what, sizeof(what));
        if (m->file) {
            h = aot_cache_hash_bytes(h, m->file, strlen(m->file) + 1);
            h = aot_cache_hash_bytes(h, &m->line, sizeof(m->line));
        }
        for (int f = 0; !m->file && f < m->nframes; f++)
            h = aot_cache_hash_code(h, m->frames[f]);
    }
    aot_run_seed(r, first->key.comm, h);
}

/* The governor of a chain at its first start: the modes that cannot apply are excluded, and
 * guarded mode gets its calibrated cost as a prior. */
static struct aot_p2p_run *aot_ch_run_new(struct aot_ch_chain *c)
{
    struct aot_p2p_run *r = aot_mem_zalloc(sizeof(*r));
    unsigned excluded = 0;
    int copies = 0, guards = 0;
    size_t pages = 1;

    if (!r)
        return NULL;
    for (int i = 0; i < c->n; i++) {
        const struct aot_ch_sig *m = aot_ch_sig_by_id(c->members[i]);
        if (!m)
            continue;
        copies += m->copy.ok;
        if (i < c->n - 1) {
            /* what paging guards for a member: each side's pages (the prior counts the
             * largest for each) */
            size_t sp = aot_calib_span_pages((size_t) (m->shi - m->slo));
            size_t rp = aot_calib_span_pages((size_t) (m->rhi - m->rlo));
            guards += (m->shi > m->slo) + (m->rhi > m->rlo);
            pages = sp > pages ? sp : pages;
            pages = rp > pages ? rp : pages;
        }
    }
    if (!copies)
        excluded |= 1u << AOT_MODE_COPY;
#ifdef AOT_HAVE_PAGING
    if (!aot_paging_started())
#endif
        excluded |= 1u << AOT_MODE_GUARDED;
    aot_run_init(r, excluded, guards, pages);
    if (aot_ch_forced < 0)
        aot_ch_run_seed(c, r);
    c->run = r;
    return r;
}

/*
 * Whether copied mode can pay for chain c.  A copied send returns before MPI has sent its
 * message; that is all the mode changes.  Where MPI completes the send within the member's
 * call anyway (an eager message: MPI buffers it, MPI_Send returns at once), the native call
 * returns as soon, and the copy is only a cost: then the mode is ruled out, so that re-checks
 * stop spending periods on it, and a win it was given on noise ends (docs/govern.md, "Copied
 * sends that cannot pay").  Looked at between explorations, after copied occurrences ran
 * (every 8 while copied is the chosen mode).
 */
#define AOT_CH_COPY_EVIDENCE 16     /* copied sends seen before ruling the mode out */
static void aot_ch_copy_pays(const struct aot_ch_chain *c, struct aot_p2p_run *r)
{
    uint64_t sent = 0, late = 0;

    if (!aot_gov_decided(&r->gov) || aot_gov_holding(&r->gov))
        return;
    r->copy_ran = 0;
    for (int i = 0; i < c->n; i++) {
        const struct aot_ch_sig *m = aot_ch_sig_by_id(c->members[i]);
        if (m) {
            sent += m->copy.sent;
            late += m->copy.late;
        }
    }
    if (sent >= AOT_CH_COPY_EVIDENCE && late == 0 &&
        aot_run_rule_out(r, AOT_MODE_COPY, "MPI completed every copied send within its call"))
        AOT_CH_COUNT(copied_ruled_out, 1);
}

/* A start of chain c: the period since its previous start goes to its governor, which names
 * the mode of this occurrence. */
static int aot_ch_occurrence(struct aot_ch_chain *c)
{
    struct aot_p2p_run *r = c->run ? c->run : aot_ch_run_new(c);

    if (!r)
        return AOT_MODE_NATIVE;
    if (r->fresh)
        return aot_run_next(r, aot_ch_forced, c);      /* chosen and counted already */
    aot_run_next(r, aot_ch_forced, c);
    if (r->mode == AOT_MODE_COPY) {
        r->copy_ran++;
        AOT_CH_COUNT(runs_copied, 1);
    } else if (r->mode == AOT_MODE_GUARDED) {
        AOT_CH_COUNT(runs_guarded, 1);
    } else {
        AOT_CH_COUNT(runs_native, 1);
    }
    if (r->copy_ran && (r->mode != AOT_MODE_COPY || r->copy_ran >= 8) && aot_ch_forced < 0)
        aot_ch_copy_pays(c, r);
    return r->mode;
}

/* The mode of the running occurrence of c (native when it has none). */
static inline int aot_ch_mode_of(const struct aot_ch_chain *c)
{
    return c && c->run ? c->run->mode : AOT_MODE_NATIVE;
}

/* Copied mode (mech/copy.c) for the call whose key is k: the send side goes from s's private
 * copy with MPI_Isend; -1 when it cannot (the caller runs the call natively). */
static int aot_ch_start_copy(const struct aot_ch_key *k, struct aot_ch_sig *s, int go,
                             MPI_Status *status)
{
    const struct aot_mech_call c = {
        .fn = k->fn, .sbuf = k->sbuf, .scount = k->scount, .sdt = k->sdt, .dest = k->dest,
        .stag = k->stag, .rbuf = (void *) k->rbuf, .rcount = k->rcount, .rdt = k->rdt,
        .source = k->source, .rtag = k->rtag, .comm = k->comm, .status = status,
        .has_s = k->fn != AOT_FN_MPI_Recv,
        .has_r = k->fn == AOT_FN_MPI_Recv || k->fn == AOT_FN_MPI_Sendrecv };

    return aot_copy_start(&c, go, &s->copy, &s->span, aot_ch_resolve);
}

/* A member that runs natively in a safe chain: counted as passed, by the governor's choice
 * or because AUTOOPT_P2P_MODE forces it. */
static inline void aot_ch_count_native(int fn)
{
    aot_stats_pass_caller(fn, aot_ch_forced == AOT_MODE_NATIVE ? AOT_PASS_DISABLED
                              : aot_ch_forced >= 0            ? AOT_PASS_FORCED_MODE
                                                              : AOT_PASS_NOT_PAYING);
}

/* A member in the occurrence's mode (guarded: see aot_ch_route_call). */
static int aot_ch_run_member(const struct aot_mech_call *c, struct aot_ch_sig *s, int mode)
{
    if (mode == AOT_MODE_COPY) {
        const int go = (c->has_s && c->dest != MPI_PROC_NULL) +
                       2 * (c->has_r && c->source != MPI_PROC_NULL);
        int rc = aot_ch_start_copy(&s->key, s, go, c->status);
        if (rc != -1)
            return rc;
    }
    aot_ch_count_native(c->fn);
    return aot_ch_blocking(c, s);
}

/* The fast path's native member: the call as the program made it (the status ignored). */
static int aot_ch_native_key(const struct aot_ch_key *k)
{
    aot_ch_count_native(k->fn);
    return aot_native_pmpi(k->fn, k->sbuf, k->scount, k->sdt, k->dest, k->stag, (void *) k->rbuf,
                           k->rcount, k->rdt, k->source, k->rtag, k->comm, MPI_STATUS_IGNORE);
}

/* One line per chain for the statistics (rank 0's chains; the counters sum every rank's). */
static void aot_ch_stats_text(FILE *f)
{
    int shown = 0;

    for (int i = 0; i < aot_ch_L.nall && shown < 20; i++) {
        const struct aot_ch_chain *c = aot_ch_L.all[i];
        const struct aot_ch_sig *first;
        char where[256];

        if (!c || !c->run)
            continue;
        first = aot_ch_sig_by_id(c->first);
        where[0] = '\0';
        if (first)
            aot_ch_sig_where(first, where, sizeof(where));
        if (!shown++)
            fprintf(f, "  chains of rank 0 (mode: occurrences native/copied/guarded; why):\n");
        fprintf(f, "    chain %u, %d calls from %s %s: ", c->id, c->n,
                first ? aot_function_names[first->key.fn] : "?", where);
        aot_run_text_row(f, c->run, aot_ch_forced);
    }
}

static void aot_ch_stats_json(FILE *f)
{
    int first = 1;

    fprintf(f, "[");
    for (int i = 0; i < aot_ch_L.nall; i++) {
        const struct aot_ch_chain *c = aot_ch_L.all[i];

        if (!c || !c->run)
            continue;
        fprintf(f, "%s\n    {\"chain\": %u, \"members\": %d, ", first ? "" : ",", c->id, c->n);
        aot_run_json_row(f, c->run, aot_ch_forced, "runs");
        fputc('}', f);
        first = 0;
    }
    fprintf(f, "%s]", first ? "" : "\n  ");
}

/* ---------------------------------------------------------------- probes */

/* 0, or -1 when a page cannot be probed (paging guards it for another request): the caller
 * then counts the gap as touched, which can only make a phase shorter. */
static int aot_ch_probe_sig(const struct aot_ch_sig *s)
{
    if (aot_ch_paging_guards(s->slo, s->shi) || aot_ch_paging_guards(s->rlo, s->rhi))
        return -1;
    if (s->shi > s->slo)
        aot_ch_probe_add(s->slo, s->shi, 0);
    if (s->rhi > s->rlo)
        aot_ch_probe_add(s->rlo, s->rhi, 1);
    return 0;
}

/* Probe the buffers of n signatures until the next MPI call. */
static void aot_ch_probe_ids(const uint32_t *ids, int n)
{
    aot_ch_probe_reset();
    for (int i = 0; i < n; i++) {
        const struct aot_ch_sig *s = aot_ch_sig_by_id(ids[i]);
        if (s && aot_ch_probe_sig(s) != 0) {
            aot_ch_probe_reset();
            aot_ch_touch_addr = 0;
            aot_ch_touch_ip = 0;
            aot_ch_touched = 1;       /* not observable: assume the program touches */
            return;
        }
    }
    aot_ch_probe_arm();
}

/* ---------------------------------------------------------------- learner events */

static void aot_ch_log_chain(const char *what, const struct aot_ch_chain *c)
{
    char where[256];
    const struct aot_ch_sig *s = aot_ch_sig_by_id(c->first);
    if (!s)
        return;
    aot_ch_sig_where(s, where, sizeof(where));
    aot_log(1, "chains: chain %u %s: %d members, first %s at %s (breaks %d)", c->id, what, c->n,
            aot_function_names[s->key.fn], where, c->breaks);
}

static void aot_ch_event(void *arg, enum aot_ch_event ev, const struct aot_ch_chain *c)
{
    int fn = -1;
    const struct aot_ch_sig *first = aot_ch_sig_by_id(c->first);
    (void) arg;
    if (first)
        fn = first->key.fn;
    switch (ev) {
    case AOT_CH_EV_LEARN:
        AOT_CH_COUNT(phases_learned, 1);
        aot_trace(AOT_TR_CHAIN_LEARN, fn, c->id, (uint64_t) c->reps, NULL);
        break;
    case AOT_CH_EV_CONFIRM:
        AOT_CH_COUNT(chains_confirmed, 1);
        for (int i = 0; i < c->n; i++) {
            struct aot_ch_sig *s = aot_ch_sig_by_id(c->members[i]);
            if (s)
                s->in_chain = 1;
        }
        aot_trace(AOT_TR_CHAIN_CONFIRM, fn, c->id, (uint64_t) c->n, NULL);
        if (aot_cfg.verbose >= 1)
            aot_ch_log_chain("confirmed", c);
        break;
    case AOT_CH_EV_REJECT:
        AOT_CH_COUNT(chains_rejected, 1);
        aot_trace(AOT_TR_CHAIN_BREAK, fn, c->id, UINT64_MAX, "rejected: buffers overlap");
        if (aot_cfg.verbose >= 1)
            aot_ch_log_chain("rejected (its buffers overlap)", c);
        break;
    case AOT_CH_EV_START:
        AOT_CH_COUNT(chain_starts, 1);
        aot_trace(AOT_TR_CHAIN_START, fn, c->id, 0, NULL);
        break;
    case AOT_CH_EV_END:
        AOT_CH_COUNT(chain_completions, 1);
        aot_trace(AOT_TR_CHAIN_END, fn, c->id, (uint64_t) c->n, NULL);
        break;
    case AOT_CH_EV_BREAK:
        AOT_CH_COUNT(chain_breaks, 1);
        aot_trace(AOT_TR_CHAIN_BREAK, fn, c->id, (uint64_t) aot_ch_L.pos, "broken");
        if (aot_cfg.verbose >= 1)
            aot_ch_log_chain("broken", c);
        break;
    case AOT_CH_EV_DISABLE:
        AOT_CH_COUNT(chains_disabled, 1);
        for (int i = 0; i < c->n; i++) {
            struct aot_ch_sig *s = aot_ch_sig_by_id(c->members[i]);
            if (s)
                s->in_chain = 0;
        }
        aot_trace(AOT_TR_CHAIN_BREAK, fn, c->id, UINT64_MAX - 1, "disabled");
        if (aot_cfg.verbose >= 1)
            aot_ch_log_chain("disabled", c);
        break;
    }
}

/* No receive buffer of a member may meet any buffer of another member: the requests run at
 * the same time. */
static int aot_ch_allowed(void *arg, const struct aot_ch_chain *c)
{
    (void) arg;
    for (int i = 0; i < c->n; i++) {
        const struct aot_ch_sig *a = aot_ch_sig_by_id(c->members[i]);
        if (!a || a->rhi <= a->rlo)
            continue;
        for (int j = 0; j < c->n; j++) {
            const struct aot_ch_sig *b = aot_ch_sig_by_id(c->members[j]);
            if (!b || i == j)
                continue;
            if ((b->shi > b->slo && a->rlo < b->shi && b->slo < a->rhi) ||
                (b->rhi > b->rlo && a->rlo < b->rhi && b->rlo < a->rhi))
                return 0;
        }
    }
    return 1;
}

/* ---------------------------------------------------------------- verify reports */

static void aot_ch_report_missed(void)
{
    static int reported;
    const struct aot_ch_chain *c = aot_ch_L.active;
    char where[256], who[256];
    Dl_info di;

    AOT_CH_COUNT(verify_missed, 1);
    if (!c || reported >= 20)
        return;
    reported++;
    where[0] = '\0';
    {
        const struct aot_ch_sig *s = aot_ch_sig_by_id(c->members[aot_ch_L.pos - 1]);
        if (s)
            aot_ch_sig_where(s, where, sizeof(where));
    }
    if (dladdr((void *) aot_ch_touch_ip, &di) && di.dli_fname) {
        const char *base = strrchr(di.dli_fname, '/');
        if (di.dli_sname)
            snprintf(who, sizeof(who), "%s+0x%lx (%s)", di.dli_sname,
                     (unsigned long) (aot_ch_touch_ip - (uintptr_t) di.dli_saddr),
                     base ? base + 1 : di.dli_fname);
        else                          /* addr2line -e module offset */
            snprintf(who, sizeof(who), "%s+0x%lx", di.dli_fname,
                     (unsigned long) (aot_ch_touch_ip - (uintptr_t) di.dli_fbase));
    } else {
        snprintf(who, sizeof(who), "%#lx", (unsigned long) aot_ch_touch_ip);
    }
    aot_log(0, "AUTOOPT_CHAIN_VERIFY: chain %u: address %#lx touched by %s after member %d of %d "
            "(at %s): guard-free chain mode would have missed this access",
            c->id, (unsigned long) aot_ch_touch_addr, who, aot_ch_L.pos, c->n, where);
}

/* ---------------------------------------------------------------- arming the hooks */

/*
 * The enter hook of a call that is not a member (aot_chains_enter) has work only while chains
 * hold state that such a call ends or must see: a phase being learned, an active chain, its
 * outstanding requests, a touch probe set or fired (the trace has a hook bit of its own).  With
 * none of these (a program between chains, a program that chains do not serve, one already
 * written with MPI_Isend) the hook would do nothing, so AOT_ARM_CHAINS is cleared and the
 * wrappers of calls that autoopt leaves alone test one word and call MPI.  Checked at the end
 * of every chains entry point; the locked update runs only when the answer changes.
 */
static inline void aot_ch_arm_sync(void)
{
    const int need = aot_ch_probe_on || aot_ch_touched || aot_native_pending() ||
                     aot_ch_L.active || aot_ch_L.nphase || aot_ch_L.overflow;
    const int have = (aot_hooks_armed & AOT_ARM_CHAINS) != 0;

    if (__builtin_expect(need == have, 1))
        return;
    if (need)
        __atomic_fetch_or(&aot_hooks_armed, AOT_ARM_CHAINS, __ATOMIC_RELAXED);
    else
        __atomic_fetch_and(&aot_hooks_armed, ~AOT_ARM_CHAINS, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- the call path */

/* A call that cannot be a member ends the phase being learned and breaks an active chain;
 * with neither (most calls of a program in chain mode) there is nothing to tell the learner. */
static inline int aot_ch_boundary(void)
{
    if (!aot_ch_L.active && !aot_ch_L.nphase && !aot_ch_L.overflow)
        return 0;
    return aot_ch_learn_boundary(&aot_ch_L);
}

/* ---------------------------------------------------------------- the fast path */

/*
 * In steady state a program's member calls follow each other exactly: the next member of the
 * running chain, or after a chain's last member the first member of the chain that followed it
 * last time.  aot_ch_next is that call's signature, while the fast path may take it: set after
 * each member call of a running chain, cleared by every call that takes the general path
 * (aot_chains_enter).  The generated wrapper offers a member function's calls to
 * aot_chains_fast_* before its hooks, which have nothing to do for such a call (see
 * aot_ch_fast_go); a call with other arguments, or at another site, goes the general way and
 * gets the same treatment there, only at a higher price.
 */
static struct aot_ch_sig *aot_ch_next;

/* After member s of a running chain ran with learner answer act: the call expected next. */
static void aot_ch_fast_expect(int act, const struct aot_ch_sig *s)
{
    const struct aot_ch_chain *c = aot_ch_L.active;
    struct aot_ch_sig *t = NULL;

    if (aot_ch_fast_members) {
        switch (act & AOT_CH_ACTION) {
        case AOT_CH_FIRST:
        case AOT_CH_NEXT:
            if (c)
                t = aot_ch_sig_by_id(c->members[aot_ch_L.pos]);
            break;
        case AOT_CH_LAST:
            /* the learner answers FIRST for a call that starts a confirmed chain */
            t = s->next;
            if (t && !t->first_of)
                t->first_of = aot_ch_chain_of(&aot_ch_L, t->id);
            c = t ? t->first_of : NULL;
            if (!c || !c->confirmed || c->disabled || c->n < 2)
                t = NULL;
            break;
        default:
            break;
        }
    }
    if (c && (act & AOT_CH_ACTION) != AOT_CH_LAST && aot_ch_mode_of(c) == AOT_MODE_GUARDED)
        t = NULL;                     /* guarded members take the general path */
    aot_ch_next = t && t->fast_pc && t->fast_member ? t : NULL;
}

/* After a call of s that went to MPI as the program made it: the call expected next, when the
 * fast path may pass it to MPI too. */
static inline struct aot_ch_sig *aot_ch_pass_next(const struct aot_ch_sig *s)
{
    struct aot_ch_sig *t = s->next;
    return t && t->fast_pass ? t : NULL;
}

/*
 * Dozing.  A safe chain that runs natively, because its governor settled on native or because
 * AUTOOPT_P2P_MODE=native forces it, gains nothing from being followed call by call until the
 * governor's next re-check (aot_gov_quiet).  Following costs little CPU, but each call's
 * learner, clock and counters touch cache lines that a rank sharing its core with others has
 * lost since its previous call: a few percent of a small exchange (docs/overhead.md).  After
 * such an occurrence's last member, when the chain's members follow each other in a closed
 * loop that the fast path serves, the chain dozes: the wrappers of the fast functions pass
 * the next (occurrences x members) calls to MPI, counting them (aot_doze_calls).  The chain
 * wakes (aot_ch_wake) when the stretch is used up, at any call that reaches chains (a routed
 * call, a hook, a fast call found armed) and at MPI_Finalize; the learner's counts, the
 * statistics and the governor's schedule (aot_gov_credit) are then brought up to date, so that
 * every rank's governor stays in step whether it dozed or not.  Nothing is pending while a
 * chain dozes (it is entered with no request and no hook armed), so every call is MPI's own
 * and any call, the expected member or not, is correct.  A program that leaves the loop
 * during a stretch has its calls counted as the chain's until the stretch ends.
 */
#define AOT_CH_DOZE_MAX 4096u   /* occurrences: a forced or finished governor wakes this often */
#define AOT_CH_DOZE_MIN 2u      /* shorter stretches are not worth the wake */
static const int aot_ch_doze_fns[] = {
    AOT_FN_MPI_Send, AOT_FN_MPI_Ssend, AOT_FN_MPI_Recv, AOT_FN_MPI_Sendrecv,
};
#define AOT_CH_NDOZE_FNS ((int) (sizeof(aot_ch_doze_fns) / sizeof(aot_ch_doze_fns[0])))
/* A loop whose calls all take the fast path's pass (signatures that can never be members and
 * that paging passes, struct aot_ch_sig, fast_pass) dozes too: after this many such calls in a
 * row, the next AOT_CH_PASS_DOZE go to MPI unexamined (counted with reason DOZING); a new
 * call in that stretch is learned when it ends. */
#define AOT_CH_PASS_RUN 256u
#define AOT_CH_PASS_DOZE 4096u
static unsigned aot_ch_pass_run;        /* fast passes in a row (reset by every other call) */
static struct {
    int passes;                 /* a loop of passes dozes (c is NULL) */
    struct aot_ch_chain *c;     /* the dozing chain, NULL: none */
    struct aot_ch_sig *first;   /* its first member */
    uint64_t calls;             /* the stretch, in calls */
    uint64_t t0;                /* when it fell asleep */
    uint64_t at[AOT_CH_NDOZE_FNS];  /* aot_calls of the fast functions then */
} aot_ch_dz;

/* Whether a chain or a loop of passes dozes (a stretch may be used up: the next call that
 * reaches chains wakes it). */
static inline int aot_ch_dozing(void)
{
    return aot_ch_dz.c != NULL || aot_ch_dz.passes;
}

/* A stretch of calls starts: the wrappers pass the next `calls` fast-function calls to MPI. */
static void aot_ch_doze_begin(uint64_t calls)
{
    aot_ch_dz.calls = calls;
    aot_ch_dz.t0 = aot_now_ns();
    for (int i = 0; i < AOT_CH_NDOZE_FNS; i++)
        aot_ch_dz.at[i] = aot_calls[aot_ch_doze_fns[i]];
    AOT_CH_COUNT(dozes, 1);
    aot_doze_calls = calls;
}

/* The stretch ends: its calls are counted as passed with reason why (counted: the function of
 * the call that ended it, which its wrapper has counted already, or -1); returns how many ran. */
static uint64_t aot_ch_doze_end(int counted, enum aot_pass_reason why)
{
    const uint64_t ran = aot_ch_dz.calls - aot_doze_calls;

    aot_doze_calls = 0;
    aot_ch_pass_run = 0;
    for (int i = 0; i < AOT_CH_NDOZE_FNS; i++) {
        const int fn = aot_ch_doze_fns[i];
        const uint64_t n = aot_calls[fn] - aot_ch_dz.at[i] - (fn == counted);
        if (n)
            aot_stats_pass_caller_n(fn, why, n);
    }
    AOT_CH_COUNT(dozed_calls, ran);
    return ran;
}

/* Brings everything a dozing chain or loop of passes skipped up to date (counted: as for
 * aot_ch_doze_end).  The next call takes the fast path if it is the chain's first member
 * (woken between occurrences), else the general path. */
static __attribute__((noinline)) void aot_ch_wake(int counted)
{
    struct aot_ch_chain *c = aot_ch_dz.c;
    struct aot_p2p_run *r;
    uint64_t ran, done, occ;
    int pos;

    if (aot_ch_dz.passes) {
        aot_ch_dz.passes = 0;
        aot_ch_doze_end(counted, AOT_PASS_DOZING);
        aot_ch_next = NULL;     /* the previous signature is not known: the general path */
        return;
    }
    if (!c)
        return;
    aot_ch_dz.c = NULL;
    ran = aot_ch_doze_end(counted, aot_ch_forced == AOT_MODE_NATIVE ? AOT_PASS_DISABLED
                                   : aot_ch_forced >= 0            ? AOT_PASS_FORCED_MODE
                                                                  : AOT_PASS_NOT_PAYING);
    r = c->run;
    done = ran / (uint64_t) c->n;
    pos = (int) (ran % (uint64_t) c->n);
    occ = done + (pos > 0);
    for (int i = 0; i < c->n; i++) {
        struct aot_ch_sig *s = aot_ch_sig_by_id(c->members[i]);
        const uint64_t n = done + (i < pos);
        if (!s || !n)
            continue;
        s->calls += n;
        if (s->fast_null)
            AOT_CH_COUNT(proc_null_sides, (uint64_t) s->fast_null * n);
    }
    AOT_CH_COUNT(fast_calls, ran);
    c->starts += occ;
    c->completions += done;
    AOT_CH_COUNT(chain_starts, occ);
    AOT_CH_COUNT(chain_completions, done);
    r->runs[AOT_MODE_NATIVE] += occ;
    r->clock.seen += occ;           /* the occurrence numbers of AUTOOPT_VERBOSE=2 */
    AOT_CH_COUNT(runs_native, occ);
    if (aot_ch_forced < 0)
        aot_run_credit(r, occ, (double) (aot_now_ns() - aot_ch_dz.t0));
    /* the next start counts in the schedule without a period, as the one it would measure */
    r->clock.t_start = 0;
    r->clock.resumed = 1;
    if (pos) {
        /* woken inside an occurrence: the general path takes the call, the learner knowing
         * no chain to be running */
        aot_ch_sig_resume(aot_ch_sig_by_id(c->members[pos - 1]));
        aot_ch_next = NULL;
    } else {
        aot_ch_sig_resume(aot_ch_sig_by_id(c->members[c->n - 1]));
        aot_ch_next = aot_ch_dz.first;
    }
}

/* After the last member of c's occurrence, run natively on the fast path: c dozes when its
 * governor has quiet occurrences ahead and its members form a loop the fast path serves. */
static void aot_ch_doze(struct aot_ch_chain *c)
{
    const struct aot_p2p_run *r = c->run;
    struct aot_ch_sig *first = aot_ch_sig_by_id(c->first), *s = first;
    uint64_t q;

    if (!r || !first || aot_ch_next != first || aot_native_pending() || aot_native_holding() ||
        (aot_hooks_armed & ~(AOT_ARM_TIMING | AOT_ARM_CHAINS)))
        return;
    if (aot_ch_forced == AOT_MODE_NATIVE)
        q = AOT_CH_DOZE_MAX;
    else if (aot_ch_forced >= 0)
        return;
    else
        q = aot_run_quiet(r);
    if (q < AOT_CH_DOZE_MIN)
        return;
    for (int i = 0; i < c->n; i++, s = s->next) {
        if (!s || s->id != c->members[i] || !s->fast_member || !s->fast_pc || s->fast_pass)
            return;
    }
    if (s != first)
        return;
    aot_ch_dz.c = c;
    aot_ch_dz.first = first;
    aot_ch_doze_begin((q < AOT_CH_DOZE_MAX ? q : AOT_CH_DOZE_MAX) * (uint64_t) c->n);
}

/* After a fast pass, with nothing armed: the loop dozes once it has passed AOT_CH_PASS_RUN
 * calls in a row. */
static void aot_ch_doze_passes(void)
{
    if (++aot_ch_pass_run < AOT_CH_PASS_RUN || aot_ch_dz.c || aot_ch_dz.passes ||
        aot_native_pending() || aot_native_holding() || (aot_hooks_armed & ~AOT_ARM_TIMING))
        return;
    aot_ch_dz.passes = 1;
    aot_ch_doze_begin(AOT_CH_PASS_DOZE);
}

/*
 * s, the expected call (its arguments matched), can never be a chain member and paging passes
 * it whatever its state (fast_pass): unless chains hold state that the call must end (then
 * AOT_ARM_CHAINS is set) or another subsystem wants the call (any other bit but timing), it
 * goes to MPI here, with the statistics the general path would have kept.
 */
#define AOT_CH_FAST_PASS(s, pmpi) \
    do { \
        const int armed_ = aot_hooks_armed; \
        int rc_; \
        if (armed_ & ~AOT_ARM_TIMING) \
            return AOT_CHAINS_DECLINED; \
        if (armed_ & AOT_ARM_TIMING) \
            aot_stats_time_enter(); \
        (s)->calls++; \
        aot_ch_sig_follow(s); \
        aot_stats_pass_caller((s)->key.fn, (enum aot_pass_reason) (s)->fast_pass); \
        rc_ = (pmpi); \
        aot_ch_next = aot_ch_pass_next(s); \
        AOT_CH_COUNT(fast_passes, 1); \
        if (armed_ & AOT_ARM_TIMING) \
            aot_stats_time_leave((s)->key.fn); \
        aot_ch_doze_passes(); \
        return rc_; \
    } while (0)

/*
 * Runs s, the expected call (its arguments matched), unless the hooks would have work to do:
 * paging holds a request (AOT_ARM_PAGING), the trace records calls, a touch probe is armed or
 * has fired, or the call comes through an injected call site.  Then AOT_CHAINS_DECLINED, with
 * nothing changed.  Otherwise the same steps as aot_ch_route for an expected member, where
 * aot_ch_start's checks are settled in advance: no paging request to complete, the status
 * ignored, the sides to start known (struct aot_ch_sig, fast_go), so aot_ch_post is called
 * directly.
 */
static int aot_ch_fast_go(struct aot_ch_sig *s)
{
    const int armed = aot_hooks_armed;
    struct aot_ch_chain *ran = aot_ch_L.active;
    int act, rc, mode = -1;

    if ((armed & ~(AOT_ARM_TIMING | AOT_ARM_CHAINS)) || aot_ch_probe_on || aot_ch_touched ||
        aot_tls.site_file || !s->fast_member)
        return AOT_CHAINS_DECLINED;
    if (aot_ch_governed) {
        /* a safe chain: the running occurrence's mode, or this start's; guarded members take
         * the general path (a start's mode stays chosen for it: struct aot_p2p_run, fresh) */
        struct aot_ch_chain *c = aot_ch_L.active;
        if (c) {
            mode = aot_ch_mode_of(c);
        } else {
            if (!s->first_of)
                return AOT_CHAINS_DECLINED;
            mode = aot_ch_occurrence(s->first_of);
            if (mode == AOT_MODE_GUARDED && s->first_of->run)
                s->first_of->run->fresh = 1;
        }
        if (mode == AOT_MODE_GUARDED)
            return AOT_CHAINS_DECLINED;
    }
    if (armed & AOT_ARM_TIMING)                 /* AUTOOPT_STATS: timed as the hooks would */
        aot_stats_time_enter();
    s->calls++;
    aot_ch_sig_follow(s);
    /* FIRST, NEXT or LAST, as aot_ch_next promised (first_of: set by aot_ch_fast_expect) */
    act = aot_ch_learn_call_known(&aot_ch_L, s->id, aot_ch_L.active ? NULL : s->first_of);
    if (mode < 0) {
        rc = aot_ch_post(&s->key, s->fast_go, MPI_STATUS_IGNORE);
    } else if (mode != AOT_MODE_COPY ||
               (rc = aot_ch_start_copy(&s->key, s, s->fast_go, MPI_STATUS_IGNORE)) == -1) {
        rc = aot_ch_native_key(&s->key);
    }
    if (s->fast_null)
        AOT_CH_COUNT(proc_null_sides, s->fast_null);
    AOT_CH_COUNT(fast_calls, 1);
    aot_ch_pass_run = 0;
    if ((act & AOT_CH_ACTION) == AOT_CH_LAST)
        aot_native_complete();
    aot_ch_fast_expect(act, s);
    /* aot_ch_arm_sync, knowing what the fast path leaves: no probe, no touch, no phase (the
     * learner answered FIRST, NEXT or LAST), requests only while a chain is active */
    if ((aot_ch_L.active != NULL) != ((armed & AOT_ARM_CHAINS) != 0))
        aot_ch_arm_sync();
    if (mode == AOT_MODE_NATIVE && ran && (act & AOT_CH_ACTION) == AOT_CH_LAST)
        aot_ch_doze(ran);
    if (armed & AOT_ARM_TIMING)
        aot_stats_time_leave(s->key.fn);
    return rc;
}

/* The passes themselves, out of line: the argument checks above stay small enough to be
 * inlined into the wrappers, for chain members as before. */
static __attribute__((noinline)) int aot_ch_pass_send(struct aot_ch_sig *s, const void *buf,
                                                      int count, MPI_Datatype dt, int dest,
                                                      int tag, MPI_Comm comm)
{
    if (s->key.fn == AOT_FN_MPI_Ssend)
        AOT_CH_FAST_PASS(s, PMPI_Ssend(buf, count, dt, dest, tag, comm));
    AOT_CH_FAST_PASS(s, PMPI_Send(buf, count, dt, dest, tag, comm));
}

static __attribute__((noinline)) int aot_ch_pass_recv(struct aot_ch_sig *s, void *buf, int count,
                                                      MPI_Datatype dt, int source, int tag,
                                                      MPI_Comm comm, MPI_Status *status)
{
    AOT_CH_FAST_PASS(s, PMPI_Recv(buf, count, dt, source, tag, comm, status));
}

static __attribute__((noinline)) int aot_ch_pass_sendrecv(
    struct aot_ch_sig *s, const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
    void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag, MPI_Comm comm,
    MPI_Status *status)
{
    AOT_CH_FAST_PASS(s, PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source,
                                      rtag, comm, status));
}

int aot_chains_fast_send(int fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                         MPI_Comm comm)
{
    struct aot_ch_sig *s;

    if (aot_ch_dozing())
        aot_ch_wake(fn);     /* the stretch is used up, or a hook was armed */
    s = aot_ch_next;

    if (!s || s->fast_pc != aot_tls.caller || s->key.fn != fn || s->key.sbuf != buf ||
        s->key.scount != count || s->key.sdt != dt || s->key.dest != dest ||
        s->key.stag != tag || s->key.comm != comm)
        return AOT_CHAINS_DECLINED;
    if (s->fast_pass)
        return aot_ch_pass_send(s, buf, count, dt, dest, tag, comm);
    return aot_ch_fast_go(s);
}

int aot_chains_fast_recv(void *buf, int count, MPI_Datatype dt, int source, int tag,
                         MPI_Comm comm, MPI_Status *status)
{
    struct aot_ch_sig *s;

    if (aot_ch_dozing())
        aot_ch_wake(AOT_FN_MPI_Recv);     /* the stretch is used up, or a hook was armed */
    s = aot_ch_next;

    if (!s || s->fast_pc != aot_tls.caller || s->key.fn != AOT_FN_MPI_Recv ||
        s->key.rbuf != buf || s->key.rcount != count || s->key.rdt != dt ||
        s->key.source != source || s->key.rtag != tag || s->key.comm != comm ||
        (status == MPI_STATUS_IGNORE) != s->key.status_ignore)
        return AOT_CHAINS_DECLINED;
    if (s->fast_pass)
        return aot_ch_pass_recv(s, buf, count, dt, source, tag, comm, status);
    return aot_ch_fast_go(s);
}

int aot_chains_fast_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                             void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                             MPI_Comm comm, MPI_Status *status)
{
    struct aot_ch_sig *s;

    if (aot_ch_dozing())
        aot_ch_wake(AOT_FN_MPI_Sendrecv);     /* the stretch is used up, or a hook was armed */
    s = aot_ch_next;

    if (!s || s->fast_pc != aot_tls.caller || s->key.fn != AOT_FN_MPI_Sendrecv ||
        s->key.sbuf != sbuf || s->key.rbuf != rbuf || s->key.scount != scount ||
        s->key.rcount != rcount || s->key.dest != dest || s->key.source != source ||
        s->key.stag != stag || s->key.rtag != rtag || s->key.sdt != sdt ||
        s->key.rdt != rdt || s->key.comm != comm ||
        (status == MPI_STATUS_IGNORE) != s->key.status_ignore)
        return AOT_CHAINS_DECLINED;
    if (s->fast_pass)
        return aot_ch_pass_sendrecv(s, sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source,
                                    rtag, comm, status);
    return aot_ch_fast_go(s);
}

/* ---------------------------------------------------------------- the general path */

void aot_chains_enter(int fn)
{
    aot_ch_next = NULL;
    if (aot_ch_probe_on)
        aot_ch_probe_lift();
    if (!aot_ch_on)
        return;
    if (aot_ch_touched) {
        aot_ch_touched = 0;
        AOT_CH_COUNT(probe_faults, 1);
        if (aot_ch_learn_touch(&aot_ch_L))
            aot_ch_report_missed();
    }
    if (aot_ch_member_fn(fn))
        return;                       /* the route decides, with the signature */
    aot_ch_boundary();
    aot_native_complete();            /* also after a break */
    aot_ch_arm_sync();
}

static int aot_ch_route_call(const struct aot_mech_call *c)
{
    struct aot_ch_sig *s;

    if (aot_ch_dozing())
        aot_ch_wake(c->fn);
    s = aot_ch_signature(c);
    const struct aot_ch_chain *ran;
    int act, rc, mode = -1;          /* the occurrence's mode; -1: unguarded or verify */

    if (s) {
        s->calls++;
        if (aot_trace_on)
            aot_trace_call_sig(s->id);
    }
    if (!aot_ch_on)
        return AOT_CHAINS_DECLINED;
    if (!s || s->why || s->retired) {
        if (aot_ch_boundary() & AOT_CH_BROKE)
            aot_native_complete();
        aot_ch_next = s ? aot_ch_pass_next(s) : NULL;
        /* a call the fast path did not predict, but a pass all the same */
        if (s && s->fast_pass)
            aot_ch_doze_passes();
        else
            aot_ch_pass_run = 0;
        return AOT_CHAINS_DECLINED;
    }
    aot_ch_pass_run = 0;
    ran = aot_ch_L.active;           /* after its last member the learner forgets it */
    act = aot_ch_learn_call(&aot_ch_L, s->id);
    if (act & AOT_CH_BROKE)
        aot_native_complete();
    if (aot_cfg.chains == AOT_CHAINS_SAFE && !aot_cfg.chain_verify) {
        switch (act & AOT_CH_ACTION) {
        case AOT_CH_FIRST:
            mode = aot_ch_occurrence(aot_ch_L.active);
            break;
        case AOT_CH_NEXT:
            mode = aot_ch_mode_of(aot_ch_L.active);
            break;
        case AOT_CH_LAST:
            mode = aot_ch_mode_of(ran);
            break;
        default:
            break;
        }
    }
    aot_ch_fast_expect(act, s);
    switch (act & AOT_CH_ACTION) {
    case AOT_CH_PLAIN:
        aot_stats_pass_caller(c->fn, AOT_PASS_LEARNING);   /* not yet a member: MPI's own call */
        rc = aot_ch_blocking(c, s);
        AOT_CH_COUNT(learn_calls, 1);
        if (++s->learn_calls >= (uint32_t) aot_ch_retire_after && !s->in_chain) {
            s->retired = 1;
            AOT_CH_COUNT(retired_signatures, 1);
            aot_ch_pass_setup(s);
            aot_ch_learn_boundary(&aot_ch_L);
            return rc;
        }
        /* safe chains learn without probes (their modes are correct whatever the program
         * touches, and a probe costs two mprotect calls): see split_on_repeat */
        if (!aot_ch_governed && !aot_ch_L.overflow && aot_ch_L.nphase > 0)
            aot_ch_probe_ids(aot_ch_L.phase, aot_ch_L.nphase);
        return rc;
    case AOT_CH_FIRST:
    case AOT_CH_NEXT:
        if (aot_cfg.chain_verify) {
            const struct aot_ch_chain *ch = aot_ch_L.active;
            aot_stats_pass_caller(c->fn, AOT_PASS_CHAIN_VERIFY);
            rc = aot_ch_blocking(c, s);
            if (ch)
                aot_ch_probe_ids(ch->members, aot_ch_L.pos);
            return rc;
        }
        if (mode == AOT_MODE_GUARDED)
            return aot_ch_start_safe(c, s, AOT_GUARDED_PENDING);
        if (mode >= 0)
            return aot_ch_run_member(c, s, mode);
        return aot_ch_start(c, s);
    default: /* AOT_CH_LAST */
        if (aot_cfg.chain_verify) {
            aot_stats_pass_caller(c->fn, AOT_PASS_CHAIN_VERIFY);
            return aot_ch_blocking(c, s);
        }
        if (mode == AOT_MODE_GUARDED)
            return aot_ch_finish_safe(c, s, ran);
        if (mode >= 0) {
            rc = aot_ch_run_member(c, s, mode);
            aot_native_complete();
            return rc;
        }
        rc = aot_ch_start(c, s);
        aot_native_complete();
        return rc;
    }
}

/* Every routed call leaves chains' state as aot_ch_arm_sync expects it. */
static int aot_ch_route(const struct aot_mech_call *c)
{
    int rc = aot_ch_route_call(c);
    aot_ch_arm_sync();
    return rc;
}

int aot_chains_send(int fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm)
{
    struct aot_mech_call c = { .fn = fn, .sbuf = buf, .scount = count, .sdt = dt, .dest = dest,
                             .stag = tag, .comm = comm, .status = MPI_STATUS_IGNORE,
                             .has_s = 1 };
    return aot_ch_route(&c);
}

int aot_chains_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                    MPI_Status *status)
{
    struct aot_mech_call c = { .fn = AOT_FN_MPI_Recv, .rbuf = buf, .rcount = count, .rdt = dt,
                             .source = source, .rtag = tag, .comm = comm, .status = status,
                             .has_r = 1 };
    return aot_ch_route(&c);
}

int aot_chains_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                        void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                        MPI_Comm comm, MPI_Status *status)
{
    struct aot_mech_call c = { .fn = AOT_FN_MPI_Sendrecv, .sbuf = sbuf, .scount = scount,
                             .sdt = sdt, .dest = dest, .stag = stag, .rbuf = rbuf,
                             .rcount = rcount, .rdt = rdt, .source = source, .rtag = rtag,
                             .comm = comm, .status = status, .has_s = 1, .has_r = 1 };
    return aot_ch_route(&c);
}

/* ---------------------------------------------------------------- init / finalize */

int aot_chains_init(char *err, size_t errlen)
{
#define AOT_X(name) aot_ch_ctr.name = aot_stats_register("chains", #name);
    AOT_CH_COUNTERS(AOT_X)
#undef AOT_X
    for (int w = 1; w < AOT_CH_NWHY; w++)
        aot_ch_excluded[w] = aot_stats_register("chains", aot_ch_excluded_name[w]);
    aot_native_init(aot_ch_ctr.unguarded_requests, aot_ch_ctr.status_waits);
    aot_copy_init(aot_ch_ctr.copied_sends, aot_ch_ctr.copied_late);
    aot_ch_site_init();
    if (aot_ch_probe_init(err, errlen) != 0)
        return -1;
    aot_ch_learner_init(&aot_ch_L, aot_cfg.chain_confirm, aot_cfg.chain_max_breaks);
    aot_ch_L.event = aot_ch_event;
    aot_ch_L.allowed = aot_ch_allowed;
    /* a signature probed this often without becoming a chain member is left alone */
    aot_ch_retire_after = 8 * aot_cfg.chain_confirm + 16;
    aot_ch_on = 1;
    aot_ch_arm_sync();                /* nothing to do yet: armed by the first phase */
    /* verify mode runs chain members blocking and guarded, safe mode through paging; deeper
     * sites need unwinding: the fast path serves unguarded chain mode at depth 1 only */
    aot_ch_fast_members = !aot_cfg.chain_verify && aot_cfg.site_depth == 1;
    /* safe chains run each occurrence in the mode their governor chooses (or the one
     * AUTOOPT_P2P_MODE forces) */
    aot_ch_governed = aot_cfg.chains == AOT_CHAINS_SAFE && !aot_cfg.chain_verify;
    aot_ch_forced = aot_p2p_forced_mode(aot_cfg.p2p_mode);
    if (aot_ch_governed) {
        aot_ch_L.split_on_repeat = 1;
        aot_stats_section("chains", aot_ch_stats_text, aot_ch_stats_json);
    }
    /* the fast path also hands calls that neither chains nor paging will act on to MPI */
    aot_fast_armed = aot_cfg.site_depth == 1;
    AOT_LOG(1, "chains on: confirm after %d repetitions, at most %d breaks, site depth %d%s%s",
            aot_cfg.chain_confirm, aot_cfg.chain_max_breaks, aot_cfg.site_depth,
            aot_cfg.chains == AOT_CHAINS_UNGUARDED ? ", unguarded" : "",
            aot_cfg.chain_verify ? ", verify" : "");
    return 0;
}

void aot_chains_finalize(void)
{
    if (!aot_ch_on)
        return;
    aot_ch_wake(-1);
    aot_fast_armed = 0;
    aot_ch_next = NULL;
    aot_ch_probe_lift();
    if (aot_ch_L.active)
        aot_ch_learn_boundary(&aot_ch_L);
    aot_native_complete();
    aot_ch_probe_finalize();
    AOT_CH_COUNT(probe_mprotects, aot_ch_probe_syscalls());
    for (int i = 0; aot_ch_forced < 0 && i < aot_ch_L.nall; i++)
        if (aot_ch_L.all[i] && aot_ch_L.all[i]->run)
            aot_run_keep(aot_ch_L.all[i]->run);
    aot_ch_on = 0;
    __atomic_fetch_and(&aot_hooks_armed, ~AOT_ARM_CHAINS, __ATOMIC_RELAXED);
}
