/*
 * coll_run.c: the entry points intercept/ calls, the private communicators, start-up and
 * shutdown of the repository.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A call goes: intercommunicator? -> PMPI.  Otherwise the decision (coll_select.c) from values
 * every rank shares: the communicator's size and the call's bytes (aot_coll_bytes, coll_bytes.h).
 * Native runs PMPI_<Collective> on the user's communicator; any other algorithm runs in the
 * communicator's context (struct aot_coll_ctx, coll_ctx.h) on a private duplicate, made at
 * the first call that needs it (every rank makes the same decision, so every rank calls
 * PMPI_Comm_dup in the same collective).  The context is cached in an attribute whose delete
 * callback frees it, the duplicate and what the context computed (coll_ctx.c) with the user's
 * communicator.  Each call gets a copy of the context with the chosen algorithm's parameter.
 * A broadcast algorithm gets the packed bytes of the message (aot_run_bcast_alg); broadcasts
 * of more than INT_MAX bytes go to PMPI (passed, reason DATATYPE).
 */
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_coll.h"
#include "aot_config.h"
#include "aot_functions.h"
#include "aot_log.h"
#include "aot_online_run.h"
#include "aot_state.h"
#include "aot_stats.h"
#include "aot_trace.h"
#include "aot_tuning_file.h"
#include "coll_algorithms.h"
#include "coll_bytes.h"
#include "coll_ctx.h"
#include "coll_registry.h"
#include "coll_run.h"
#include "coll_select.h"
#include "coll_switches.h"
#include "coll_util.h"

/* What the ranks of a communicator agreed on about its alltoallv calls (aot_a2av_bytes). */
struct aot_a2av_agreed {
    unsigned gen;               /* aot_policy_gen when `matters` was found; 0: not yet */
    int matters;                /* the decision depends on alltoallv's bytes here */
    uint64_t calls;             /* alltoallv calls on the communicator so far */
    uint64_t next;              /* the call that agrees next */
    int interval;               /* calls from the latest agreement to the next (0: none yet) */
    double agree_s, call_s;     /* the latest agreement's time, a call's mean time (s) */
    uint64_t bytes;             /* the latest agreement: mean block, and whether skewed */
    int skewed;
    struct aot_coll_choice choice;   /* ... and the choice it gave */
};

struct aot_comm_state {
    struct aot_coll_ctx ctx;    /* ctx.comm: the private duplicate, MPI_COMM_NULL until an
                                 * algorithm needs it */
    int inter;          /* intercommunicator: always native */
    int size, rank;
    struct aot_online_comm *online;   /* AUTOOPT_TUNE=online: its keys (coll_online_run.c) */
    struct aot_a2av_agreed a2av;      /* alltoallv's agreed block statistics (aot_a2av_bytes) */
};

static struct aot_coll_policy aot_policy;
static int aot_a2av_agreements = -1;     /* statistics counter */
static struct aot_tuning aot_tuning_table;
/* The name messages give the rules in use: the file's path, or the built-in file's. */
static char aot_tuning_name[512];
static int aot_keyval = MPI_KEYVAL_INVALID;
static int *aot_counter;             /* statistics counter id per algorithm */
static unsigned char *aot_logged;    /* per algorithm: bit 0 first use, bit 1 fallback */
static unsigned char aot_logged_repro[AOT_COLL_NKINDS];

static const char *const aot_coll_groups[AOT_COLL_NKINDS] = {
#define AOT_X(upper, lower) "coll." #lower,
    AOT_COLLECTIVES(AOT_X)
#undef AOT_X
};

/* ---------------------------------------------------------------- private communicators */

/* aot_policy_gen changes whenever the policy does (aot_coll_init, aot_coll_set_tuning), and
 * the decision caches below compare it.  aot_comm_gen changes when a communicator with
 * autoopt's state is freed: aot_memo_call compares it too, as MPI reuses handles.  (Not
 * aot_policy_gen: alltoallv's agreement schedule restarts when that changes, and a rank that
 * freed a communicator the others were not in would then agree alone.) */
static unsigned aot_policy_gen = 1;
static unsigned aot_comm_gen = 1;

static int aot_comm_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    struct aot_comm_state *s = val;
    (void) comm;
    (void) keyval;
    (void) extra;
    /* a decision remembered for this handle (aot_memo_call) must not outlive it */
    __atomic_add_fetch(&aot_comm_gen, 1, __ATOMIC_RELEASE);
    aot_online_release(s->online);
    aot_coll_ctx_destroy(&s->ctx);
    if (s->ctx.comm != MPI_COMM_NULL)
        PMPI_Comm_free(&s->ctx.comm);
    free(s);
    return MPI_SUCCESS;
}

static int aot_comm_state(MPI_Comm comm, struct aot_comm_state **out)
{
    struct aot_comm_state *s;
    void *val;
    int flag = 0, rc;

    rc = PMPI_Comm_get_attr(comm, aot_keyval, &val, &flag);
    if (rc != MPI_SUCCESS)
        return rc;
    if (flag) {
        *out = val;
        return MPI_SUCCESS;
    }
    s = calloc(1, sizeof(*s));
    if (!s)
        return MPI_ERR_NO_MEM;
    s->ctx.comm = MPI_COMM_NULL;
    rc = PMPI_Comm_test_inter(comm, &s->inter);
    if (rc == MPI_SUCCESS && !s->inter)
        rc = PMPI_Comm_size(comm, &s->size);
    if (rc == MPI_SUCCESS && !s->inter)
        rc = PMPI_Comm_rank(comm, &s->rank);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_set_attr(comm, aot_keyval, s);
    if (rc != MPI_SUCCESS) {
        free(s);
        return rc;
    }
    *out = s;
    return MPI_SUCCESS;
}

/* The context for running an algorithm with parameter param on comm (*ctx: a copy of the
 * communicator's context), the private duplicate made if it does not exist yet. */
static int aot_comm_private(struct aot_comm_state *s, MPI_Comm comm, long param,
                            struct aot_coll_ctx *ctx)
{
    if (s->ctx.comm == MPI_COMM_NULL) {
        MPI_Comm dup;
        int rc = PMPI_Comm_dup(comm, &dup);
        if (rc != MPI_SUCCESS)
            return rc;
        rc = aot_coll_ctx_init(&s->ctx, dup);
        if (rc != MPI_SUCCESS) {
            s->ctx.comm = MPI_COMM_NULL;
            PMPI_Comm_free(&dup);
            return rc;
        }
    }
    *ctx = aot_coll_ctx_with(&s->ctx, param);
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- decision bookkeeping */

static int aot_once(unsigned char *flags, unsigned char bit)
{
    return !(__atomic_fetch_or(flags, bit, __ATOMIC_RELAXED) & bit);
}

static const char *aot_why_text(enum aot_coll_why why)
{
    switch (why) {
    case AOT_WHY_FORCED: return "forced";
    case AOT_WHY_TUNED: return "tuning file";
    case AOT_WHY_RESTRICTED: return "restriction fallback";
    case AOT_WHY_REPRODUCIBLE: return "AUTOOPT_REPRODUCIBLE";
    case AOT_WHY_DEFAULT: break;
    }
    return "default";
}

/* Slots of the per-thread caches below: a program often calls one collective at a few sizes
 * in turn (online_loop: allreduce at 8 B, 1 KiB, 16 KiB and 128 KiB), and with one entry per
 * collective every call of such a loop missed.  A call's slot is its size's power of two (the
 * bucket online tuning keys by, aot_online_bucket) modulo AOT_MEMO_SLOTS, so sizes up to
 * 2^AOT_MEMO_SLOTS apart never share one. */
#define AOT_MEMO_SLOTS 8

static inline unsigned aot_memo_slot(uint64_t bytes)
{
    return (unsigned) aot_online_bucket(bytes) & (AOT_MEMO_SLOTS - 1);
}

/* The last decision of each collective per slot, per thread: a program calls a collective
 * with the same sizes again and again, and a tuning-file lookup (two binary searches) cost
 * about 40 ns a call, 15 % of a 0.25 us broadcast (docs/tuning.md).  aot_policy_gen changes
 * whenever the policy does (aot_coll_init, aot_coll_set_tuning), which empties every cache. */
struct aot_pick_cache {
    unsigned gen;               /* 0: empty */
    struct aot_coll_shape shape;
    int commutative;
    uint64_t bytes;
    struct aot_coll_decision d;
};
static __thread struct aot_pick_cache aot_pick_cache[AOT_COLL_NKINDS][AOT_MEMO_SLOTS];

static void aot_decide_cached(enum aot_coll_kind kind, const struct aot_coll_shape *sh,
                              uint64_t bytes, int commutative, struct aot_coll_decision *d)
{
    struct aot_pick_cache *e = &aot_pick_cache[kind][aot_memo_slot(bytes)];
    unsigned gen = __atomic_load_n(&aot_policy_gen, __ATOMIC_ACQUIRE);

    if (e->gen == gen && e->bytes == bytes && e->shape.size == sh->size
        && e->shape.nhosts == sh->nhosts && e->shape.ppn == sh->ppn
        && e->commutative == commutative) {
        *d = e->d;
        return;
    }
    aot_coll_decide_shape(&aot_policy, kind, sh, bytes, commutative, d);
    e->d = *d;
    e->bytes = bytes;
    e->shape = *sh;
    e->commutative = commutative;
    e->gen = gen;
}

/* Collectives that nothing can route past MPI's own algorithm: not forced, no tuning rule,
 * no online tuning, no reproducible reduction, and neither trace nor log asking about each
 * call.  Their calls go to MPI after two counter increments (aot_plain_call): the full path
 * (state lookup, type size, decision, counters) cost 30-40 ns a call, three times a one-rank
 * MPI_Bcast, and is the default configuration's.  Recomputed whenever the policy changes. */
static unsigned char aot_plain[AOT_COLL_NKINDS];
/* The same under AUTOOPT_TUNE=exact (the default) for allreduce and reduce, for the calls whose
 * result depends on the order of operations (floating-point sums...): online tuning leaves
 * them alone, so with nothing else to decide they go straight to MPI too (aot_plain_inexact_call).
 * Counted with callgrind (2 ranks, 8-byte MPI_DOUBLE MPI_SUM allreduce, 2026-12-07): 518
 * instructions a call in libautoopt through the full path, against 87 for AUTOOPT_TUNE=off. */
static unsigned char aot_plain_inexact[AOT_COLL_NKINDS];
static int aot_memo_on;       /* aot_memo_call may answer (below) */

static void aot_plain_update(void)
{
    int quiet = !aot_cfg.trace_dir && aot_cfg.verbose < 1;

    /* AUTOOPT_TUNE=exact leaves the calls under AOT_ONLINE_MIN_BYTES, and the reductions
     * whose result depends on the order, to the policy: the memory answers those */
    aot_memo_on = aot_cfg.tune_online != AOT_TUNE_ONLINE && quiet;
    for (int k = 0; k < AOT_COLL_NKINDS; k++) {
        int fixed = aot_policy.forced[k] < 0
                    && !(aot_policy.reproducible
                         && (k == AOT_COLL_ALLREDUCE || k == AOT_COLL_REDUCE))
                    && (!aot_policy.tuning || aot_tuning_covers(aot_policy.tuning, k, 1) < 0);
        aot_plain[k] = !aot_cfg.tune_online && quiet && fixed;
        aot_plain_inexact[k] = quiet && fixed && aot_cfg.tune_online == AOT_TUNE_EXACT
                               && (k == AOT_COLL_ALLREDUCE || k == AOT_COLL_REDUCE);
    }
}

/* A call that goes straight to MPI, counted as aot_pick counts a native choice; returns 1. */
static inline int aot_count_straight(enum aot_coll_kind kind, int fn)
{
    aot_stats_add_caller(aot_counter[kind], 1);
    aot_stats_pass_caller(fn, AOT_PASS_NO_SUBSYSTEM);
    return 1;
}

/* 1 when a call of kind goes straight to MPI (counted). */
static inline int aot_plain_call(enum aot_coll_kind kind, int fn)
{
    return aot_plain[kind] && aot_count_straight(kind, fn);
}

/* 1 when a reduction of kind with op on dt goes straight to MPI (counted): AUTOOPT_TUNE=exact
 * does not tune it, and nothing else would choose for it. */
static inline int aot_plain_inexact_call(enum aot_coll_kind kind, int fn, MPI_Op op,
                                         MPI_Datatype dt)
{
    return aot_plain_inexact[kind] && !aot_online_tunes(op, dt) && aot_count_straight(kind, fn);
}

/* The same for a collective the tuning file routes, at a call like the thread's previous one
 * of that collective in the call's slot (communicator, bytes, commutativity): the decision is
 * a function of these (aot_coll_decide_shape), so the memory holds it with the communicator's
 * state and the call skips the state lookup and the decision.  A native choice cost about
 * 35 ns a call on the full path, 0.2 us per 4-B broadcast on 4 ranks sharing 2 cores
 * (docs/tuning.md, "Never slower than native"); an algorithm's, with the state lookup, about
 * 150 ns (docs/tuning.md, "The decision's memory").  aot_comm_gen changes when a
 * communicator with autoopt's state is freed (aot_comm_delete), so a handle MPI reuses never
 * matches and the state it holds is never stale.  Off when a call must be seen (online
 * tuning, trace, AUTOOPT_VERBOSE).  Alltoallv keeps one entry, in slot 0, for the bytes its
 * ranks last agreed on (aot_a2av_memo_call), and allgatherv one, whose bytes need the
 * communicator's size (aot_allgatherv_memo_call). */
struct aot_memo {
    unsigned gen, comm_gen;     /* aot_policy_gen and aot_comm_gen when stored; 0: empty */
    MPI_Comm comm;
    uint64_t bytes;
    int commutative;
    struct aot_comm_state *s;   /* comm's state */
    struct aot_coll_choice choice;
};
static __thread struct aot_memo aot_memo[AOT_COLL_NKINDS][AOT_MEMO_SLOTS]
    __attribute__((tls_model("initial-exec")));

enum aot_memo_hit {
    AOT_MEMO_MISS,      /* the full path decides */
    AOT_MEMO_NATIVE,    /* MPI's own algorithm (counted) */
    AOT_MEMO_ALG        /* *s and *c: run algorithm c on s's private duplicate (counted) */
};

static void aot_count_choice(enum aot_coll_kind kind, int fn, int alg,
                             enum aot_pass_reason native_reason, uint64_t bytes);

static inline enum aot_memo_hit aot_memo_answer(const struct aot_memo *m,
                                                enum aot_coll_kind kind, int fn,
                                                uint64_t bytes, struct aot_comm_state **s,
                                                struct aot_coll_choice *c)
{
    if (m->choice.alg == (int) kind) {
        aot_count_straight(kind, fn);
        return AOT_MEMO_NATIVE;
    }
    *s = m->s;
    *c = m->choice;
    aot_count_choice(kind, fn, c->alg, AOT_PASS_NO_SUBSYSTEM, bytes);
    return AOT_MEMO_ALG;
}

static inline int aot_memo_holds(const struct aot_memo *m, MPI_Comm comm)
{
    return m->gen == __atomic_load_n(&aot_policy_gen, __ATOMIC_ACQUIRE)
           && m->comm_gen == __atomic_load_n(&aot_comm_gen, __ATOMIC_ACQUIRE) && m->comm == comm;
}

static inline enum aot_memo_hit aot_memo_call(enum aot_coll_kind kind, int fn, MPI_Comm comm,
                                              uint64_t bytes, int commutative,
                                              struct aot_comm_state **s,
                                              struct aot_coll_choice *c)
{
    const struct aot_memo *m = &aot_memo[kind][aot_memo_slot(bytes)];

    if (!aot_memo_holds(m, comm) || m->bytes != bytes || m->commutative != commutative)
        return AOT_MEMO_MISS;
    return aot_memo_answer(m, kind, fn, bytes, s, c);
}

/* The two queries a routed call makes before aot_memo_call, without asking MPI where the
 * answer cannot change: every predefined reduction operation is commutative (MPI 4.0,
 * section 6.9.2), and a predefined datatype's size comes from aot_coll_type_size's per-thread
 * memory (coll_util.h).  Predefined handles are never freed, so neither answer can go stale.
 * MPICH 4.0.2 spends about 5 ns in PMPI_Type_size and 7 ns in PMPI_Op_commutative, which a
 * 2-rank allreduce of 8 B pays twice over (each rank's delay holds up the other). */
static inline int aot_op_commutative(MPI_Op op, int *commute)
{
    if (op == MPI_SUM || op == MPI_MAX || op == MPI_MIN || op == MPI_PROD || op == MPI_BAND
        || op == MPI_BOR || op == MPI_BXOR || op == MPI_LAND || op == MPI_LOR
        || op == MPI_LXOR || op == MPI_MAXLOC || op == MPI_MINLOC) {
        *commute = 1;
        return MPI_SUCCESS;
    }
    return PMPI_Op_commutative(op, commute);
}

/* A tuning file with rules for kind but none for communicators of this size was probably
 * measured on another job size: said once per collective, by rank 0 of the communicator.
 * The last size found covered is remembered, so a program that uses one size scans once. */
static void aot_warn_uncovered(enum aot_coll_kind kind, int comm_size, int comm_rank)
{
    static unsigned char warned[AOT_COLL_NKINDS];
    static int covered_size[AOT_COLL_NKINDS];

    /* a collective of 1 rank has nothing to choose: no rule is missing (ARMCI, for one,
     * makes a communicator of 1 rank per process) */
    if (comm_size <= 1 || __atomic_load_n(&warned[kind], __ATOMIC_RELAXED)
        || __atomic_load_n(&covered_size[kind], __ATOMIC_RELAXED) == comm_size)
        return;
    if (aot_tuning_covers(aot_policy.tuning, kind, comm_size) != 0) {
        __atomic_store_n(&covered_size[kind], comm_size, __ATOMIC_RELAXED);
        return;
    }
    if (aot_once(&warned[kind], 1) && comm_rank == 0)
        aot_log(0, "%s: the tuning file %s has no rules for communicators of %d ranks: MPI's "
                "own algorithm runs (was it measured on another job size? docs/tuning.md)",
                aot_coll_kind_names[kind], aot_tuning_name, comm_size);
}

/* Counts the algorithm a call runs: its counter, and for a call of the program (fn >= 0) the
 * function's optimized or passed count (native: `native_reason`) and the trace record. */
static void aot_count_choice(enum aot_coll_kind kind, int fn, int alg,
                             enum aot_pass_reason native_reason, uint64_t bytes)
{
    aot_stats_add(aot_counter[alg], 1);
    if (fn < 0)
        return;
    if (alg == (int) kind)
        aot_stats_pass(fn, native_reason);
    else
        aot_stats_optimized(fn);
    aot_trace(AOT_TR_COLL_ALG, fn, bytes, (uint64_t) alg, aot_coll_algs[alg].name);
}

/* Decides, logs the first use of each algorithm and each fallback once (on rank 0 of the
 * communicator, so a job prints it once), and counts.  fn < 0: a nested call (counted only
 * under the algorithm's counter). */
static enum aot_pass_reason aot_pick(enum aot_coll_kind kind, int fn,
                                     const struct aot_coll_shape *sh, int comm_rank,
                                     uint64_t bytes, int commutative, struct aot_coll_choice *c)
{
    enum aot_pass_reason why;
    struct aot_coll_decision d;
    const struct aot_coll_alg *a;
    int comm_size = sh->size;

    aot_decide_cached(kind, sh, bytes, commutative, &d);
    a = &aot_coll_algs[d.choice.alg];
    if (d.failed && aot_once(&aot_logged[d.rejected], 2) && comm_rank == 0)
        aot_log(0, "%s: %s %s (communicator of %d ranks); falls back to native",
                aot_coll_kind_names[kind], aot_coll_algs[d.rejected].name,
                aot_coll_restriction_text(d.failed), comm_size);
    if (d.why == AOT_WHY_REPRODUCIBLE && !d.failed && aot_once(&aot_logged_repro[kind], 1)
        && comm_rank == 0)
        AOT_LOG(1, "%s: %s does not fix the order of operations; AUTOOPT_REPRODUCIBLE=1 uses %s",
                aot_coll_kind_names[kind], aot_coll_algs[d.rejected].name, a->name);
    if (aot_cfg.verbose >= 1 && aot_once(&aot_logged[d.choice.alg], 1) && comm_rank == 0)
        aot_log(1, "%s: %s (%s)", aot_coll_kind_names[kind], a->name, aot_why_text(d.why));
    if (fn >= 0 && d.why == AOT_WHY_DEFAULT && aot_policy.tuning)
        aot_warn_uncovered(kind, comm_size, comm_rank);
    why = d.failed ? AOT_PASS_RESTRICTION : AOT_PASS_NO_SUBSYSTEM;
    aot_count_choice(kind, fn, d.choice.alg, why, bytes);
    *c = d.choice;
    return why;
}

/* The hosts of a communicator and the ranks on its fullest host, for online tuning: the
 * tuning table's rules qualified by a shape apply to the communicator's keys, and on one host
 * the `shm` algorithms are candidates.  The first time, aot_coll_hier is collective on the
 * private duplicate: aot_online_begin asks once per communicator, at a call every rank makes.
 * 0 and 0 when unknown (only unqualified rules apply then, and `shm` is not offered). */
struct aot_online_arg {
    struct aot_comm_state *s;
    MPI_Comm comm;
};

static void aot_online_shape(void *arg, int *nhosts, int *ppn)
{
    const struct aot_online_arg *a = arg;
    struct aot_coll_shape sh;
    struct aot_coll_ctx ctx;

    *nhosts = *ppn = 0;
    if (aot_comm_private(a->s, a->comm, 0, &ctx) == MPI_SUCCESS
        && aot_coll_shape_of(&ctx, &sh) == MPI_SUCCESS) {
        *nhosts = sh.nhosts;
        *ppn = sh.ppn;
    }
}

/* The private duplicate, for an agreement aot_online_begin makes before the call. */
static int aot_online_private(void *arg, MPI_Comm *pc)
{
    const struct aot_online_arg *a = arg;
    struct aot_coll_ctx ctx;
    int rc = aot_comm_private(a->s, a->comm, 0, &ctx);

    *pc = rc == MPI_SUCCESS ? ctx.comm : MPI_COMM_NULL;
    return rc;
}

/* AUTOOPT_TUNE=online: the session of the call's key chooses, and the choice is counted as
 * aot_pick counts its own; 0 when online tuning leaves the call to aot_pick. */
static int aot_pick_online(struct aot_comm_state *s, MPI_Comm comm, enum aot_coll_kind kind,
                           int fn, uint64_t bytes, int commutative, struct aot_coll_choice *c,
                           struct aot_online_call *oc)
{
    struct aot_online_arg arg = {s, comm};

    oc->k = NULL;
    if (!aot_online_on
        || !aot_online_begin(&s->online, kind, s->size, s->rank, aot_online_shape,
                             aot_online_private, &arg, bytes, commutative, c, oc))
        return 0;
    aot_count_choice(kind, fn, c->alg, AOT_PASS_NO_SUBSYSTEM, bytes);
    return 1;
}

/* The shape of ctx's communicator as the decision needs it: the host counts only when the
 * tuning file qualifies rules by them (the first time, aot_coll_hier is collective on
 * ctx->comm: every rank decides the same call, so every rank gets here together).  ctx NULL,
 * or a hierarchy that failed on every rank alike: unknown (0). */
static void aot_shape(const struct aot_coll_ctx *ctx, int size, struct aot_coll_shape *sh)
{
    sh->size = size;
    sh->nhosts = sh->ppn = 0;
    if (ctx && aot_policy.tuning && aot_policy.tuning->shaped)
        aot_coll_shape_of(ctx, sh);
}

/* The shape of the user's communicator comm, as the decision needs it. */
static void aot_comm_shape(struct aot_comm_state *s, MPI_Comm comm, struct aot_coll_shape *sh)
{
    struct aot_coll_ctx ctx;

    if (aot_policy.tuning && aot_policy.tuning->shaped
        && aot_comm_private(s, comm, 0, &ctx) == MPI_SUCCESS)
        aot_shape(&ctx, s->size, sh);
    else
        aot_shape(NULL, s->size, sh);
}

/* Or'ed into a reduction's commutativity on its way to aot_choose: its result depends on the
 * order of its operations (aot_online_tunes), so AUTOOPT_TUNE=exact leaves it to the policy. */
#define AOT_CALL_INEXACT 2

/* AUTOOPT_TUNE=exact with the built-in table (no AUTOOPT_TUNING): the table's rules do not
 * apply to a reduction whose result depends on the order, which runs MPI's own. */
static int aot_builtin_exact_only;

static inline int aot_inexact(MPI_Op op, MPI_Datatype dt)
{
    return aot_online_on && !aot_online_tunes(op, dt) ? AOT_CALL_INEXACT : 0;
}

static void aot_choose(struct aot_comm_state *s, MPI_Comm comm, enum aot_coll_kind kind,
                       int fn, uint64_t bytes, int commutative, struct aot_coll_choice *c,
                       struct aot_online_call *oc)
{
    struct aot_coll_shape sh;
    int inexact = commutative & AOT_CALL_INEXACT;

    commutative &= 1;
    oc->k = NULL;
    if (!inexact && (aot_cfg.tune_online != AOT_TUNE_EXACT || bytes >= AOT_ONLINE_MIN_BYTES)
        && aot_pick_online(s, comm, kind, fn, bytes, commutative, c, oc))
        return;
    if (inexact && aot_builtin_exact_only && aot_policy.forced[kind] < 0
        && !aot_policy.reproducible) {
        /* the default never reorders a floating-point sum: the built-in table's rules (a
         * site's, not the user's) are for the reductions online tuning may tune */
        c->alg = (int) kind;
        c->param = 0;
        aot_count_choice(kind, fn, c->alg, AOT_PASS_NO_SUBSYSTEM, bytes);
        return;
    }
    aot_comm_shape(s, comm, &sh);
    if (aot_pick(kind, fn, &sh, s->rank, bytes, commutative, c) == AOT_PASS_NO_SUBSYSTEM
        && aot_memo_on) {
        struct aot_memo *m
            = &aot_memo[kind][kind == AOT_COLL_ALLTOALLV || kind == AOT_COLL_ALLGATHERV
                              ? 0 : aot_memo_slot(bytes)];
        m->comm = comm;
        m->bytes = bytes;
        m->commutative = commutative;
        m->s = s;
        m->choice = *c;
        m->gen = __atomic_load_n(&aot_policy_gen, __ATOMIC_ACQUIRE);
        m->comm_gen = __atomic_load_n(&aot_comm_gen, __ATOMIC_ACQUIRE);
    }
}

/* aot_choose for a call the memory did not answer; one it answered with an algorithm
 * (AOT_MEMO_ALG) is not tuned online. */
static void aot_decide(enum aot_memo_hit memo, struct aot_comm_state *s, MPI_Comm comm,
                       enum aot_coll_kind kind, int fn, uint64_t bytes, int commutative,
                       struct aot_coll_choice *c, struct aot_online_call *oc)
{
    if (memo == AOT_MEMO_ALG)
        oc->k = NULL;
    else
        aot_choose(s, comm, kind, fn, bytes, commutative, c, oc);
}

/* After a call tuned online: the agreement, when this call ends a block or a window. */
static int aot_online_done(struct aot_comm_state *s, MPI_Comm comm, struct aot_online_call *oc,
                           int rc)
{
    struct aot_coll_ctx ctx;
    int rc2;

    if (!oc->k || !aot_online_end(oc))
        return rc;
    rc2 = aot_comm_private(s, comm, 0, &ctx);
    if (rc2 == MPI_SUCCESS)
        rc2 = aot_online_agree(oc, ctx.comm);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* ---------------------------------------------------------------- MPI_IN_PLACE */

/* Allgather-type algorithms get the rank's own block as an explicit send buffer. */
static int aot_run_allgather_alg(const struct aot_coll_choice *c, const void *sbuf, int scount,
                                 MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                                 const struct aot_coll_ctx *ctx)
{
    if (sbuf == MPI_IN_PLACE) {
        MPI_Aint lb, ext;
        PMPI_Type_get_extent(rdt, &lb, &ext);
        sbuf = AOT_AT(rbuf, (MPI_Aint) ctx->rank * rcount, ext);
        scount = rcount;
        sdt = rdt;
    }
    return aot_coll_algs[c->alg].fn.allgather(sbuf, scount, sdt, rbuf, rcount, rdt, ctx);
}

/* Alltoall algorithms read a copy of the receive buffer. */
static int aot_run_alltoall_alg(const struct aot_coll_choice *c, const void *sbuf, int scount,
                                MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt,
                                const struct aot_coll_ctx *ctx)
{
    struct aot_dt d;
    void *raw = NULL, *tmp;
    int p = ctx->size, rc;

    if (sbuf != MPI_IN_PLACE)
        return aot_coll_algs[c->alg].fn.alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, ctx);
    rc = aot_coll_dt(rdt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    tmp = aot_coll_tmp((MPI_Aint) p * rcount, &d, &raw);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    rc = aot_coll_copy(rbuf, p * rcount, rdt, tmp, p * rcount, rdt);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_algs[c->alg].fn.alltoall(tmp, rcount, rdt, rbuf, rcount, rdt, ctx);
    aot_coll_free(raw);
    return rc;
}

/* ---------------------------------------------------------------- packed broadcasts */

/* Broadcast algorithms run on the bytes of the packed message (count bytes of MPI_BYTE), so
 * that the ones that cut it into pieces or segments cut every rank's message at the same
 * bytes: MPI lets each rank pass its own datatype as long as the type signatures match
 * (MPI_INT x 4096 here, four ints x 1024 there).  A contiguous datatype is used in place; any
 * other is packed at the root and unpacked elsewhere, through a scratch buffer, as MPICH's
 * broadcasts do.  bytes <= INT_MAX (aot_coll_bcast passes larger messages to MPI). */
static int aot_run_bcast_alg(const struct aot_coll_choice *c, void *buf, int count,
                             MPI_Datatype dt, int root, const struct aot_coll_ctx *ctx)
{
    struct aot_dt d;
    int bytes, rc = aot_coll_dt(dt, &d);
    void *tmp;

    if (rc != MPI_SUCCESS)
        return rc;
    bytes = count * d.size;
    if (d.contig || bytes == 0)
        return aot_coll_algs[c->alg].fn.bcast((char *) buf + d.true_lb, bytes, MPI_BYTE, root,
                                              ctx);
    tmp = aot_coll_alloc((size_t) bytes);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    if (ctx->rank == root)
        rc = aot_coll_pack(buf, count, dt, tmp, bytes);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_algs[c->alg].fn.bcast(tmp, bytes, MPI_BYTE, root, ctx);
    if (rc == MPI_SUCCESS && ctx->rank != root)
        rc = aot_coll_unpack(tmp, bytes, buf, count, dt);
    aot_coll_free(tmp);
    return rc;
}

/* ---------------------------------------------------------------- nested selection */

int aot_coll_run_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    struct aot_coll_choice c;
    struct aot_coll_shape sh;
    struct aot_coll_ctx sub;
    int tsz;

    PMPI_Type_size(rdt, &tsz);
    aot_shape(ctx, ctx->size, &sh);
    aot_pick(AOT_COLL_ALLGATHER, -1, &sh, ctx->rank,
             aot_coll_bytes(AOT_COLL_ALLGATHER, ctx->size, rcount, tsz, NULL), 1, &c);
    if (c.alg == AOT_COLL_ALLGATHER)
        return PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, ctx->comm);
    sub = aot_coll_ctx_with(ctx, c.param);
    return aot_run_allgather_alg(&c, sbuf, scount, sdt, rbuf, rcount, rdt, &sub);
}

int aot_coll_run_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    struct aot_coll_choice c;
    struct aot_coll_shape sh;
    struct aot_coll_ctx sub;
    int tsz;

    PMPI_Type_size(rdt, &tsz);
    aot_shape(ctx, ctx->size, &sh);
    aot_pick(AOT_COLL_ALLTOALL, -1, &sh, ctx->rank,
             aot_coll_bytes(AOT_COLL_ALLTOALL, ctx->size, rcount, tsz, NULL), 1, &c);
    if (c.alg == AOT_COLL_ALLTOALL)
        return PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, ctx->comm);
    sub = aot_coll_ctx_with(ctx, c.param);
    return aot_run_alltoall_alg(&c, sbuf, scount, sdt, rbuf, rcount, rdt, &sub);
}

/* ---------------------------------------------------------------- entry points */

/* The state of comm, or NULL when the call must go to PMPI (intercommunicator, or an argument
 * MPI should report on). */
static struct aot_comm_state *aot_enter(MPI_Comm comm, int fn)
{
    struct aot_comm_state *s;

    if (comm == MPI_COMM_NULL || aot_comm_state(comm, &s) != MPI_SUCCESS)
        return NULL;
    if (s->inter) {
        aot_stats_pass(fn, AOT_PASS_INTERCOMM);
        return NULL;
    }
    return s;
}

int aot_coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                       MPI_Comm comm)
{
    enum aot_memo_hit memo = AOT_MEMO_MISS;
    struct aot_comm_state *s = NULL;
    struct aot_online_call oc;
    struct aot_coll_choice c;
    int tsz, commute, rc;
    struct aot_coll_ctx ctx;

    if (aot_plain_call(AOT_COLL_ALLREDUCE, AOT_FN_MPI_Allreduce)
        || aot_plain_inexact_call(AOT_COLL_ALLREDUCE, AOT_FN_MPI_Allreduce, op, dt)
        || count < 0 || aot_coll_type_size(dt, &tsz) != MPI_SUCCESS
        || aot_op_commutative(op, &commute) != MPI_SUCCESS
        || (memo = aot_memo_call(AOT_COLL_ALLREDUCE, AOT_FN_MPI_Allreduce, comm,
                                 aot_coll_bytes(AOT_COLL_ALLREDUCE, 0, count, tsz, NULL),
                                 commute, &s, &c)) == AOT_MEMO_NATIVE
        || (memo == AOT_MEMO_MISS && !(s = aot_enter(comm, AOT_FN_MPI_Allreduce))))
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    aot_decide(memo, s, comm, AOT_COLL_ALLREDUCE, AOT_FN_MPI_Allreduce,
               aot_coll_bytes(AOT_COLL_ALLREDUCE, s->size, count, tsz, NULL),
               commute | aot_inexact(op, dt), &c, &oc);
    if (c.alg == AOT_COLL_ALLREDUCE)
        rc = PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    else if ((rc = aot_comm_private(s, comm, c.param, &ctx)) == MPI_SUCCESS)
        rc = aot_coll_algs[c.alg].fn.allreduce(sbuf, rbuf, count, dt, op, &ctx);
    return aot_online_done(s, comm, &oc, rc);
}

int aot_coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    enum aot_memo_hit memo = AOT_MEMO_MISS;
    struct aot_comm_state *s = NULL;
    struct aot_online_call oc;
    struct aot_coll_choice c;
    uint64_t bytes;
    int tsz, rc;
    struct aot_coll_ctx ctx;

    if (aot_plain_call(AOT_COLL_BCAST, AOT_FN_MPI_Bcast))
        return PMPI_Bcast(buf, count, dt, root, comm);
    if (count < 0 || root < 0 || aot_coll_type_size(dt, &tsz) != MPI_SUCCESS)
        return PMPI_Bcast(buf, count, dt, root, comm);
    bytes = aot_coll_bytes(AOT_COLL_BCAST, 0, count, tsz, NULL);
    memo = aot_memo_call(AOT_COLL_BCAST, AOT_FN_MPI_Bcast, comm, bytes, 1, &s, &c);
    if (memo == AOT_MEMO_NATIVE)
        return PMPI_Bcast(buf, count, dt, root, comm);
    if (memo == AOT_MEMO_MISS)
        s = aot_enter(comm, AOT_FN_MPI_Bcast);
    if (!s || root >= s->size)
        return PMPI_Bcast(buf, count, dt, root, comm);
    if (memo == AOT_MEMO_ALG) {
        oc.k = NULL;
    } else if (bytes > INT_MAX) {   /* no int count of bytes */
        aot_stats_pass(AOT_FN_MPI_Bcast, AOT_PASS_DATATYPE);
        return PMPI_Bcast(buf, count, dt, root, comm);
    } else {
        aot_choose(s, comm, AOT_COLL_BCAST, AOT_FN_MPI_Bcast, bytes, 1, &c, &oc);
    }
    if (c.alg == AOT_COLL_BCAST)
        rc = PMPI_Bcast(buf, count, dt, root, comm);
    else if ((rc = aot_comm_private(s, comm, c.param, &ctx)) == MPI_SUCCESS)
        rc = aot_run_bcast_alg(&c, buf, count, dt, root, &ctx);
    return aot_online_done(s, comm, &oc, rc);
}

int aot_coll_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    int root, MPI_Comm comm)
{
    enum aot_memo_hit memo = AOT_MEMO_MISS;
    struct aot_comm_state *s = NULL;
    struct aot_online_call oc;
    struct aot_coll_choice c;
    int tsz, commute, rc;
    struct aot_coll_ctx ctx;

    if (aot_plain_call(AOT_COLL_REDUCE, AOT_FN_MPI_Reduce)   /* in-place workaround: native.c */
        || aot_plain_inexact_call(AOT_COLL_REDUCE, AOT_FN_MPI_Reduce, op, dt))
        return aot_reduce_pmpi(sbuf, rbuf, count, dt, op, root, comm);
    if (count < 0 || root < 0 || aot_coll_type_size(dt, &tsz) != MPI_SUCCESS
        || aot_op_commutative(op, &commute) != MPI_SUCCESS)
        return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    memo = aot_memo_call(AOT_COLL_REDUCE, AOT_FN_MPI_Reduce, comm,
                         aot_coll_bytes(AOT_COLL_REDUCE, 0, count, tsz, NULL), commute, &s, &c);
    if (memo == AOT_MEMO_NATIVE)
        return aot_reduce_pmpi(sbuf, rbuf, count, dt, op, root, comm);
    if (memo == AOT_MEMO_MISS)
        s = aot_enter(comm, AOT_FN_MPI_Reduce);
    if (!s || root >= s->size)
        return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    aot_decide(memo, s, comm, AOT_COLL_REDUCE, AOT_FN_MPI_Reduce,
               aot_coll_bytes(AOT_COLL_REDUCE, s->size, count, tsz, NULL),
               commute | aot_inexact(op, dt), &c, &oc);
    if (c.alg == AOT_COLL_REDUCE)   /* with the MPICH in-place workaround, see native.c */
        rc = aot_reduce_pmpi(sbuf, rbuf, count, dt, op, root, comm);
    else if ((rc = aot_comm_private(s, comm, c.param, &ctx)) == MPI_SUCCESS)
        rc = aot_coll_algs[c.alg].fn.reduce(sbuf, rbuf, count, dt, op, root, &ctx);
    return aot_online_done(s, comm, &oc, rc);
}

int aot_coll_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                       MPI_Datatype rdt, MPI_Comm comm)
{
    enum aot_memo_hit memo = AOT_MEMO_MISS;
    struct aot_comm_state *s = NULL;
    struct aot_online_call oc;
    struct aot_coll_choice c;
    int tsz, rc;
    struct aot_coll_ctx ctx;

    if (aot_plain_call(AOT_COLL_ALLGATHER, AOT_FN_MPI_Allgather)
        || rcount < 0 || aot_coll_type_size(rdt, &tsz) != MPI_SUCCESS
        || (memo = aot_memo_call(AOT_COLL_ALLGATHER, AOT_FN_MPI_Allgather, comm,
                                 aot_coll_bytes(AOT_COLL_ALLGATHER, 0, rcount, tsz, NULL), 1,
                                 &s, &c)) == AOT_MEMO_NATIVE
        || (memo == AOT_MEMO_MISS && !(s = aot_enter(comm, AOT_FN_MPI_Allgather))))
        return PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    aot_decide(memo, s, comm, AOT_COLL_ALLGATHER, AOT_FN_MPI_Allgather,
               aot_coll_bytes(AOT_COLL_ALLGATHER, s->size, rcount, tsz, NULL), 1, &c, &oc);
    if (c.alg == AOT_COLL_ALLGATHER)
        rc = PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    else if ((rc = aot_comm_private(s, comm, c.param, &ctx)) == MPI_SUCCESS)
        rc = aot_run_allgather_alg(&c, sbuf, scount, sdt, rbuf, rcount, rdt, &ctx);
    return aot_online_done(s, comm, &oc, rc);
}

/* Allgatherv's memory (aot_memo, slot 0): its bytes are the mean receive count's, which takes
 * the communicator's size, so the entry is found by the communicator and the state it holds
 * gives the size.  Counted as the full path counts; *s is set. */
static inline enum aot_memo_hit aot_allgatherv_memo_call(MPI_Comm comm, const int *rcounts,
                                                         int tsz, struct aot_comm_state **s,
                                                         struct aot_coll_choice *c)
{
    const struct aot_memo *m = &aot_memo[AOT_COLL_ALLGATHERV][0];

    if (!aot_memo_holds(m, comm)
        || m->bytes != aot_coll_bytes(AOT_COLL_ALLGATHERV, m->s->size, 0, tsz, rcounts))
        return AOT_MEMO_MISS;
    *s = m->s;
    return aot_memo_answer(m, AOT_COLL_ALLGATHERV, AOT_FN_MPI_Allgatherv, m->bytes, s, c);
}

int aot_coll_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                        const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm)
{
    enum aot_memo_hit memo;
    struct aot_comm_state *s = NULL;
    struct aot_online_call oc;
    struct aot_coll_choice c;
    int tsz, rc, inter = 1;
    struct aot_coll_ctx ctx;

    /* with the one-rank workaround (native.c) on intracommunicators only: the displacements of
     * an intercommunicator's call index its remote group */
    if (aot_plain_call(AOT_COLL_ALLGATHERV, AOT_FN_MPI_Allgatherv))
        return PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter
               ? aot_allgatherv_pmpi(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm)
               : PMPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    if (aot_coll_type_size(rdt, &tsz) != MPI_SUCCESS
        || ((memo = aot_allgatherv_memo_call(comm, rcounts, tsz, &s, &c)) == AOT_MEMO_MISS
            && !(s = aot_enter(comm, AOT_FN_MPI_Allgatherv))))
        return PMPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    if (memo == AOT_MEMO_NATIVE)  /* an intracommunicator's: the workaround applies */
        return aot_allgatherv_pmpi(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    aot_decide(memo, s, comm, AOT_COLL_ALLGATHERV, AOT_FN_MPI_Allgatherv,
               aot_coll_bytes(AOT_COLL_ALLGATHERV, s->size, 0, tsz, rcounts), 1, &c, &oc);
    if (c.alg == AOT_COLL_ALLGATHERV) {  /* with the MPICH one-rank workaround, see native.c */
        rc = aot_allgatherv_pmpi(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
    } else if ((rc = aot_comm_private(s, comm, c.param, &ctx)) == MPI_SUCCESS) {
        if (sbuf == MPI_IN_PLACE) {
            MPI_Aint lb, ext;
            PMPI_Type_get_extent(rdt, &lb, &ext);
            sbuf = AOT_AT(rbuf, displs[s->rank], ext);
            scount = rcounts[s->rank];
            sdt = rdt;
        }
        rc = aot_coll_algs[c.alg].fn.allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt,
                                                &ctx);
    }
    return aot_online_done(s, comm, &oc, rc);
}

int aot_coll_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                      MPI_Datatype rdt, MPI_Comm comm)
{
    enum aot_memo_hit memo = AOT_MEMO_MISS;
    struct aot_comm_state *s = NULL;
    struct aot_online_call oc;
    struct aot_coll_choice c;
    int tsz, rc;
    struct aot_coll_ctx ctx;

    if (aot_plain_call(AOT_COLL_ALLTOALL, AOT_FN_MPI_Alltoall)
        || rcount < 0 || aot_coll_type_size(rdt, &tsz) != MPI_SUCCESS
        || (memo = aot_memo_call(AOT_COLL_ALLTOALL, AOT_FN_MPI_Alltoall, comm,
                                 aot_coll_bytes(AOT_COLL_ALLTOALL, 0, rcount, tsz, NULL), 1,
                                 &s, &c)) == AOT_MEMO_NATIVE
        || (memo == AOT_MEMO_MISS && !(s = aot_enter(comm, AOT_FN_MPI_Alltoall))))
        return PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    aot_decide(memo, s, comm, AOT_COLL_ALLTOALL, AOT_FN_MPI_Alltoall,
               aot_coll_bytes(AOT_COLL_ALLTOALL, s->size, rcount, tsz, NULL), 1, &c, &oc);
    if (c.alg == AOT_COLL_ALLTOALL)
        rc = PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
    else if ((rc = aot_comm_private(s, comm, c.param, &ctx)) == MPI_SUCCESS)
        rc = aot_run_alltoall_alg(&c, sbuf, scount, sdt, rbuf, rcount, rdt, &ctx);
    return aot_online_done(s, comm, &oc, rc);
}

/*
 * alltoallv's bytes (coll_bytes.h): no rank knows the call's blocks alone, so where the
 * decision depends on them (aot_coll_bytes_matter: the tuning file's alltoallv rules for this
 * communicator differ by size) the ranks agree on them: one allreduce on the private duplicate
 * of each rank's send bytes (summed), its largest block and what the agreements cost it
 * (both maximized).  The largest report of the cost holds the wait of the rank that arrived
 * first, which the call would have absorbed anyway; of the two tried instead on 2026-11-28,
 * the smallest made small alltoallv calls up to 1.27 x slower than MPI's own on the emulated
 * cluster and the mean still left sizes on a former size's choice (docs/tuning-format.md).
 * Every rank then holds the same figures, so every rank decides alike and computes the same
 * next agreement (aot_coll_a2av_interval); the calls in between reuse the latest figures
 * (every rank counts the same calls).  *bytes: 0 where the bytes do not matter (or online
 * tuning, whose alltoallv keys are the size alone, runs), UINT64_MAX for a skewed call, which
 * runs natively.
 */
static MPI_Datatype aot_a2av_type = MPI_DATATYPE_NULL;
static MPI_Op aot_a2av_op = MPI_OP_NULL;

/* (sum, max, max) triples of uint64 */
static void aot_a2av_combine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const uint64_t *a = in;
    uint64_t *b = inout;
    (void) dt;
    for (int i = 0; i < 3 * *len; i += 3) {
        b[i] += a[i];
        for (int j = 1; j < 3; j++)
            if (a[i + j] > b[i + j])
                b[i + j] = a[i + j];
    }
}

static pthread_once_t aot_a2av_once = PTHREAD_ONCE_INIT;

static void aot_a2av_make(void)
{
    if (PMPI_Type_contiguous(3, MPI_UINT64_T, &aot_a2av_type) != MPI_SUCCESS
        || PMPI_Type_commit(&aot_a2av_type) != MPI_SUCCESS
        || PMPI_Op_create(aot_a2av_combine, 1, &aot_a2av_op) != MPI_SUCCESS)
        aot_a2av_op = MPI_OP_NULL;
}

static int aot_a2av_bytes(struct aot_comm_state *s, MPI_Comm comm, const int *scounts,
                          MPI_Datatype sdt, uint64_t *bytes)
{
    struct aot_a2av_agreed *a = &s->a2av;
    unsigned gen = __atomic_load_n(&aot_policy_gen, __ATOMIC_ACQUIRE);
    struct aot_coll_decision d;
    struct aot_coll_shape sh;
    struct aot_coll_ctx ctx;
    uint64_t mine[3], all[3];
    double t0;
    int tsz, rc;

    *bytes = 0;
    if (aot_online_on)
        return MPI_SUCCESS;
    if (a->gen != gen) {
        aot_comm_shape(s, comm, &sh);
        a->matters = aot_coll_bytes_matter(&aot_policy, AOT_COLL_ALLTOALLV, &sh);
        a->gen = gen;
        a->next = a->calls;
        a->interval = 0;
    }
    if (!a->matters)
        return MPI_SUCCESS;
    if (a->calls++ != a->next) {
        *bytes = a->skewed ? UINT64_MAX : a->bytes;
        return MPI_SUCCESS;
    }
    pthread_once(&aot_a2av_once, aot_a2av_make);
    if (aot_a2av_op == MPI_OP_NULL)
        return MPI_ERR_INTERN;
    if ((rc = PMPI_Type_size(sdt, &tsz)) != MPI_SUCCESS
        || (rc = aot_comm_private(s, comm, 0, &ctx)) != MPI_SUCCESS)
        return rc;
    aot_coll_a2av_local(scounts, s->size, tsz, &mine[0], &mine[1]);
    /* the latest agreement's time per mille of a call's (0 before a call was timed) */
    mine[2] = a->call_s > 0 ? (uint64_t) (1000 * a->agree_s / a->call_s) : 0;
    t0 = PMPI_Wtime();
    rc = PMPI_Allreduce(mine, all, 1, aot_a2av_type, aot_a2av_op, ctx.comm);
    if (rc != MPI_SUCCESS)
        return rc;
    a->agree_s = PMPI_Wtime() - t0;
    aot_stats_add(aot_a2av_agreements, 1);
    a->bytes = aot_coll_a2av_bytes(all[0], all[1], s->size, &a->skewed);
    aot_comm_shape(s, comm, &sh);
    aot_coll_decide_shape(&aot_policy, AOT_COLL_ALLTOALLV, &sh, a->bytes, 1, &d);
    if (a->skewed)
        d.choice.alg = -1;
    a->interval = aot_coll_a2av_interval(a->interval, a->interval > 0
                                         && d.choice.alg == a->choice.alg
                                         && d.choice.param == a->choice.param, all[2]);
    a->choice = d.choice;
    a->next = a->calls - 1 + (uint64_t) a->interval;
    *bytes = a->skewed ? UINT64_MAX : a->bytes;
    return MPI_SUCCESS;
}

/* Whether an alltoallv call is timed for the agreements' cost (aot_a2av_bytes): the last
 * AOT_A2AV_TIMED calls before each agreement, where the bytes matter.  Two clock reads are
 * 40-50 ns, a few percent of a small alltoallv, so the calls in between are not timed. */
#define AOT_A2AV_TIMED 8

static inline int aot_a2av_times(const struct aot_a2av_agreed *a)
{
    return a->matters && a->next - a->calls < AOT_A2AV_TIMED;
}

/* After a timed alltoallv: its time, into the mean a call takes (the latest 8 timed). */
static void aot_a2av_timed(struct aot_comm_state *s, double t0)
{
    struct aot_a2av_agreed *a = &s->a2av;
    double t = PMPI_Wtime() - t0;

    a->call_s = a->call_s > 0 ? a->call_s + (t - a->call_s) / 8 : t;
}

/* Alltoallv's memory (aot_memo, slot 0): the decision for the bytes the ranks last agreed on
 * (0 where they do not matter), until the next agreement is due.  The call is counted as the
 * full path counts it, and *s is set. */
static inline enum aot_memo_hit aot_a2av_memo_call(MPI_Comm comm, struct aot_comm_state **s,
                                                   struct aot_coll_choice *c)
{
    const struct aot_memo *m = &aot_memo[AOT_COLL_ALLTOALLV][0];
    struct aot_a2av_agreed *a;

    if (!aot_memo_holds(m, comm))
        return AOT_MEMO_MISS;
    a = &m->s->a2av;
    if (a->gen != m->gen
        || (a->matters ? a->calls == a->next || a->skewed || a->bytes != m->bytes
                       : m->bytes != 0))
        return AOT_MEMO_MISS;
    if (a->matters)
        a->calls++;
    *s = m->s;
    c->alg = AOT_COLL_ALLTOALLV;
    return aot_memo_answer(m, AOT_COLL_ALLTOALLV, AOT_FN_MPI_Alltoallv, m->bytes, s, c);
}

/* Alltoallv algorithms read a copy of the receive buffer. */
static int aot_run_alltoallv_alg(struct aot_comm_state *s, const struct aot_coll_choice *c,
                                 const void *sbuf, const int *scounts, const int *sdispls,
                                 MPI_Datatype sdt, void *rbuf, const int *rcounts,
                                 const int *rdispls, MPI_Datatype rdt,
                                 const struct aot_coll_ctx *ctx)
{
    struct aot_dt d;
    void *raw = NULL, *tmp;
    int n = 0, rc;

    if (sbuf != MPI_IN_PLACE)
        return aot_coll_algs[c->alg].fn.alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts,
                                                  rdispls, rdt, ctx);
    for (int i = 0; i < s->size; i++)
        if (rcounts[i] > 0 && rdispls[i] + rcounts[i] > n)
            n = rdispls[i] + rcounts[i];
    rc = aot_coll_dt(rdt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    tmp = aot_coll_tmp(n, &d, &raw);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    rc = aot_coll_copy(rbuf, n, rdt, tmp, n, rdt);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_algs[c->alg].fn.alltoallv(tmp, rcounts, rdispls, rdt, rbuf, rcounts,
                                                rdispls, rdt, ctx);
    aot_coll_free(raw);
    return rc;
}

int aot_coll_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                       MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                       MPI_Datatype rdt, MPI_Comm comm)
{
    enum aot_memo_hit memo;
    struct aot_comm_state *s = NULL;
    struct aot_online_call oc;
    struct aot_coll_choice c;
    struct aot_coll_ctx ctx;
    uint64_t bytes = 0;
    double t0;
    int rc, timed;

    if (aot_plain_call(AOT_COLL_ALLTOALLV, AOT_FN_MPI_Alltoallv)
        || ((memo = aot_a2av_memo_call(comm, &s, &c)) == AOT_MEMO_MISS
            && !(s = aot_enter(comm, AOT_FN_MPI_Alltoallv))))
        return PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
    if (memo != AOT_MEMO_MISS) {
        oc.k = NULL;
    } else {
        rc = aot_a2av_bytes(s, comm, sbuf == MPI_IN_PLACE ? rcounts : scounts,
                            sbuf == MPI_IN_PLACE ? rdt : sdt, &bytes);
        if (rc != MPI_SUCCESS)
            return rc;
        if (bytes == UINT64_MAX) {
            aot_stats_pass(AOT_FN_MPI_Alltoallv, AOT_PASS_SKEWED);
            timed = aot_a2av_times(&s->a2av);
            t0 = timed ? PMPI_Wtime() : 0;
            rc = PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt,
                                comm);
            if (timed)
                aot_a2av_timed(s, t0);
            return rc;
        }
        aot_choose(s, comm, AOT_COLL_ALLTOALLV, AOT_FN_MPI_Alltoallv, bytes, 1, &c, &oc);
    }
    timed = aot_a2av_times(&s->a2av);
    t0 = timed ? PMPI_Wtime() : 0;
    if (c.alg == AOT_COLL_ALLTOALLV)
        rc = PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm);
    else if ((rc = aot_comm_private(s, comm, c.param, &ctx)) == MPI_SUCCESS)
        rc = aot_run_alltoallv_alg(s, &c, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls,
                                   rdt, &ctx);
    if (timed)
        aot_a2av_timed(s, t0);
    return aot_online_done(s, comm, &oc, rc);
}

int aot_coll_barrier(MPI_Comm comm)
{
    enum aot_memo_hit memo = AOT_MEMO_MISS;
    struct aot_comm_state *s = NULL;
    struct aot_online_call oc;
    struct aot_coll_choice c;
    struct aot_coll_ctx ctx;
    int rc;

    if (aot_plain_call(AOT_COLL_BARRIER, AOT_FN_MPI_Barrier)
        || (memo = aot_memo_call(AOT_COLL_BARRIER, AOT_FN_MPI_Barrier, comm, 0, 1, &s, &c))
           == AOT_MEMO_NATIVE
        || (memo == AOT_MEMO_MISS && !(s = aot_enter(comm, AOT_FN_MPI_Barrier))))
        return PMPI_Barrier(comm);
    aot_decide(memo, s, comm, AOT_COLL_BARRIER, AOT_FN_MPI_Barrier,
               aot_coll_bytes(AOT_COLL_BARRIER, s->size, 0, 0, NULL), 1, &c, &oc);
    if (c.alg == AOT_COLL_BARRIER)
        rc = PMPI_Barrier(comm);
    else if ((rc = aot_comm_private(s, comm, c.param, &ctx)) == MPI_SUCCESS)
        rc = aot_coll_algs[c.alg].fn.barrier(&ctx);
    return aot_online_done(s, comm, &oc, rc);
}

/* ---------------------------------------------------------------- start-up and shutdown */

/* A file autoopt-tune wrote says what it was measured with ('# setup ... mpi="..."'): a job
 * that runs another MPI library is told once, on rank 0. */
static void aot_check_setup(const char *path, const char *text)
{
    char ours[MPI_MAX_LIBRARY_VERSION_STRING], theirs[256];
    const char *p = strstr(text, "# setup "), *m, *e;
    int len;

    if (!p || (p != text && p[-1] != '\n'))
        return;
    e = strchr(p, '\n');
    m = strstr(p, " mpi=\"");
    if (!m || (e && m > e))
        return;
    m += 6;
    len = (int) strcspn(m, "\"\n");
    snprintf(theirs, sizeof(theirs), "%.*s", len, m);
    if (aot_coll_mpi_version(ours, (int) sizeof(ours)) != 0)
        return;
    if (strcmp(ours, theirs) != 0) {
        char q[AOT_QUOTE_LEN];
        aot_log(0, "%s: measured with %s, this job runs %s: its choices may not fit this "
                "library (tune again: docs/tuning.md)", path,
                aot_quote_str(theirs, q, sizeof(q)), ours);
    }
}

/* A tuning file compiled into the library (-DAUTOOPT_BUILTIN_TUNING=FILE, collectives/
 * CMakeLists.txt): defined only in libautoopt.so, so the references are weak and NULL in the
 * static archive the tools and unit tests link. */
extern const char aot_builtin_tuning_text[] __attribute__((weak));
extern const char aot_builtin_tuning_name[] __attribute__((weak));
extern const size_t aot_builtin_tuning_len __attribute__((weak));

/* Rank 0 of MPI_COMM_WORLD reads the tuning file and broadcasts it, so that every rank parses
 * the same text, reaches the same decisions and fails with the same message. */
static int aot_read_tuning(const char *path, char *err, size_t errlen)
{
    char *text = NULL;
    long len = 0;
    size_t n = 0;
    int rank, rc;

    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        if (aot_tuning_slurp(path, &text, &n, err, errlen) == 0) {
            len = (long) n;
        } else {
            aot_coll_name_setting("AUTOOPT_TUNING", err, errlen);
            len = -(long) strlen(err) - 1;
        }
    }
    rc = PMPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "%s: cannot broadcast the tuning file", path);
        free(text);
        return -1;
    }
    if (len < 0) {
        /* every rank reports rank 0's message */
        PMPI_Bcast(err, (int) (-len), MPI_CHAR, 0, MPI_COMM_WORLD);
        return -1;
    }
    if (rank != 0) {
        text = malloc((size_t) len + 1);
        if (!text) {
            snprintf(err, errlen, "%s: out of memory", path);
            return -1;
        }
    }
    rc = PMPI_Bcast(text, (int) len, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS) {
        text[len] = '\0';
        rc = aot_tuning_parse(&aot_tuning_table, text, (size_t) len, path, err, errlen);
        if (rc == 0 && rank == 0)
            aot_check_setup(path, text);
    } else {
        snprintf(err, errlen, "%s: cannot broadcast the tuning file", path);
        rc = -1;
    }
    free(text);
    return rc == 0 ? 0 : -1;
}

int aot_coll_init(char *err, size_t errlen)
{
    char msg[1024];
    int rc;

    aot_tuning_init(&aot_tuning_table);
    aot_policy.tuning = NULL;
    aot_policy.reproducible = aot_cfg.reproducible;
    __atomic_add_fetch(&aot_policy_gen, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < AOT_COLL_NKINDS; k++) {
        struct aot_coll_choice c;
        aot_policy.forced[k] = -1;
        aot_policy.forced_param[k] = 0;
        if (!aot_cfg.coll_force[k])
            continue;
        if (aot_coll_parse_choice(k, aot_cfg.coll_force[k], &c, msg, sizeof(msg)) != 0) {
            char q[AOT_QUOTE_LEN];
            snprintf(err, errlen, "%s=%s: %s", aot_coll_env_names[k],
                     aot_quote_str(aot_cfg.coll_force[k], q, sizeof(q)), msg);
            return -1;
        }
        aot_policy.forced[k] = c.alg;
        aot_policy.forced_param[k] = c.param;
    }

    aot_counter = malloc((size_t) aot_coll_nalgs * sizeof(*aot_counter));
    aot_logged = calloc((size_t) aot_coll_nalgs, 1);
    if (!aot_counter || !aot_logged) {
        snprintf(err, errlen, "collectives: out of memory");
        return -1;
    }
    for (int i = 0; i < aot_coll_nalgs; i++)
        aot_counter[i] = aot_stats_register(aot_coll_groups[aot_coll_algs[i].kind],
                                            aot_coll_algs[i].name);
    aot_a2av_agreements = aot_stats_register("coll.alltoallv", "agreements");

    rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, aot_comm_delete, &aot_keyval, NULL);
    if (rc != MPI_SUCCESS) {
        snprintf(err, errlen, "collectives: cannot create a communicator keyval");
        return -1;
    }

    /* AUTOOPT_TUNING=none: no rules, not even built-in ones; a path: that file; unset: the
     * built-in file if the library has one */
    if (aot_cfg.tuning_path && strcmp(aot_cfg.tuning_path, "none") != 0) {
        if (aot_read_tuning(aot_cfg.tuning_path, err, errlen) != 0)
            return -1;
        snprintf(aot_tuning_name, sizeof(aot_tuning_name), "%s", aot_cfg.tuning_path);
        aot_policy.tuning = &aot_tuning_table;
        AOT_LOG(1, "collectives: %zu rules from %s", aot_tuning_table.n, aot_cfg.tuning_path);
    } else if (!aot_cfg.tuning_path && aot_builtin_tuning_text) {
        snprintf(aot_tuning_name, sizeof(aot_tuning_name), "the built-in tuning file (%s)",
                 aot_builtin_tuning_name);
        /* checked at build time by the same reader (aot-tuning-check) */
        if (aot_tuning_parse(&aot_tuning_table, aot_builtin_tuning_text, aot_builtin_tuning_len,
                             aot_tuning_name, err, errlen) != 0)
            return -1;
        if (aot_world_rank == 0)
            aot_check_setup(aot_tuning_name, aot_builtin_tuning_text);
        aot_policy.tuning = &aot_tuning_table;
        AOT_LOG(1, "collectives: %zu rules from %s", aot_tuning_table.n, aot_tuning_name);
    }
    if (aot_cfg.topology_path && aot_coll_topo_init(aot_cfg.topology_path, err, errlen) != 0)
        return -1;
    for (int k = 0; k < AOT_COLL_NKINDS; k++)
        if (aot_policy.forced[k] >= 0 && aot_world_rank == 0)
            AOT_LOG(1, "collectives: %s forced to %s", aot_coll_kind_names[k],
                    aot_coll_algs[aot_policy.forced[k]].name);
    aot_plain_update();
    if (aot_cfg.tune_online) {
        int all = aot_cfg.tune_online == AOT_TUNE_ONLINE;
        aot_online_start(&aot_policy, all);
        aot_builtin_exact_only = !all && !aot_cfg.tuning_path && aot_policy.tuning;
        aot_stats_section("online", aot_online_stats_text, aot_online_stats_json);
        if (aot_world_rank == 0)
            AOT_LOG(1, "collectives: online tuning (AUTOOPT_TUNE=%s)%s",
                    all ? "online" : "exact: reductions only where the order cannot change "
                                     "the result",
                    aot_cfg.reproducible ? "; allreduce and reduce keep their reproducible "
                                           "algorithm (AUTOOPT_REPRODUCIBLE=1)" : "");
    }
    return 0;
}

void aot_coll_finish(void)
{
    aot_online_finish();
}

void aot_coll_set_tuning(const struct aot_tuning *t)
{
    aot_policy.tuning = t;
    aot_plain_update();
    __atomic_add_fetch(&aot_policy_gen, 1, __ATOMIC_RELEASE);
}

void aot_coll_finalize(void)
{
    if (aot_keyval != MPI_KEYVAL_INVALID) {
        void *val;
        int flag = 0;
        /* MPI deletes no attributes of MPI_COMM_WORLD at finalize; free the duplicates now. */
        if (PMPI_Comm_get_attr(MPI_COMM_WORLD, aot_keyval, &val, &flag) == MPI_SUCCESS && flag)
            PMPI_Comm_delete_attr(MPI_COMM_WORLD, aot_keyval);
        if (PMPI_Comm_get_attr(MPI_COMM_SELF, aot_keyval, &val, &flag) == MPI_SUCCESS && flag)
            PMPI_Comm_delete_attr(MPI_COMM_SELF, aot_keyval);
        PMPI_Comm_free_keyval(&aot_keyval);
    }
    aot_policy.tuning = NULL;
    __atomic_add_fetch(&aot_policy_gen, 1, __ATOMIC_RELEASE);
    aot_tuning_free(&aot_tuning_table);
    aot_coll_topo_free();
    aot_coll_scratch_release();
    if (aot_a2av_op != MPI_OP_NULL)
        PMPI_Op_free(&aot_a2av_op);
    if (aot_a2av_type != MPI_DATATYPE_NULL)
        PMPI_Type_free(&aot_a2av_type);
    /* aot_counter and aot_logged stay: a collective after MPI_Finalize is an error anyway,
     * and statistics may still be read. */
}
