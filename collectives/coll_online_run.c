/*
 * coll_online_run.c: online tuning in a running job (AUTOOPT_TUNE=online, docs/online.md) --
 * the keys of each communicator, the agreement among its ranks, and at MPI_Finalize the
 * report and the tuning file AUTOOPT_TUNE_SAVE names.  The sessions themselves are the pure
 * core in coll_online.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Agreement.  A key's state changes only at calls that every rank of the communicator makes:
 * the n-th call of a key is the n-th call of that collective with that bucket and operation
 * commutativity on that communicator, which MPI's rule that all ranks call collectives in the
 * same order makes the same call everywhere (the bytes, the root and the operation of a call
 * are the same on every rank).  The call site is not part of the key: a program whose rank 0
 * calls from another line than the others would otherwise run two sessions that never meet.
 * The values a decision is taken from are reduced with MPI_MAX on autoopt's private duplicate
 * of the communicator, inside the call that ends a round of exploring or a window, by every
 * rank.
 *
 * Threads.  A key belongs to one communicator, and MPI forbids two threads to run collectives
 * on one communicator at once, so a key is never touched by two threads together.  The list of
 * communicators (for the report) is guarded by a mutex; statistics counters are atomic.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aot_cache.h"
#include "aot_config.h"
#include "aot_files.h"
#include "aot_log.h"
#include "aot_online.h"
#include "aot_online_run.h"
#include "aot_state.h"
#include "aot_stats.h"
#include "aot_tuning_file.h"
#include "coll_registry.h"
#include "coll_select.h"
#include "coll_shm.h"
#include "coll_util.h"

#define AOT_ONLINE_NBUCKETS 65

struct aot_online_comm {
    struct aot_online_key *keys[AOT_COLL_NKINDS][2][AOT_ONLINE_NBUCKETS];
    int size, rank;
    int nhosts, ppn;                /* hosts, ranks on the fullest (0: unknown); on one host
                                     * `shm` is a candidate */
    /* The key that explores, or NULL: one at a time, so that the periods it times differ by
     * its own candidates only.  Every rank sees the same calls on the communicator in the
     * same order, so every rank holds the same key here. */
    const struct aot_online_key *explorer;
    /* Calls made on the communicator since the exploring key's last one, or in which a
     * waiting key deferred to a costlier one: when the key that explores or the costlier one
     * is no longer called (the program moved on), the others go on after AOT_ONLINE_DEFER
     * such calls. */
    unsigned stalled;
    /* A timed call whose sample is still open (aot_online_end): it closes at the end of the
     * communicator's next tuned call, or as the key's period if that call is the key's own. */
    struct aot_online_key *open;
    double open_entry, open_period;
    enum aot_coll_kind open_kind;
    uint64_t open_bytes;
    double id;                      /* agreed at the first reduction; -1 until then */
    double ledger;                  /* the exploration loss of its keys, seconds (the budget) */
    struct aot_online_comm *next;   /* every communicator's keys stay until MPI_Finalize */
};

int aot_online_on, aot_online_all;
static double aot_online_t0;       /* MPI_Init: the budget's time so far starts here */
static const struct aot_coll_policy *aot_online_policy;
static struct aot_online_comm *aot_online_comms;
static pthread_mutex_t aot_online_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned aot_online_seq;
static int aot_online_ctr_explore = -1, aot_online_ctr_agree = -1, aot_online_ctr_switch = -1;

void aot_online_start(const struct aot_coll_policy *pol, int all)
{
    aot_online_policy = pol;
    aot_online_all = all;
    aot_online_t0 = PMPI_Wtime();
    aot_online_ctr_explore = aot_stats_register("coll.online", "exploring_calls");
    aot_online_ctr_agree = aot_stats_register("coll.online", "agreements");
    aot_online_ctr_switch = aot_stats_register("coll.online", "switches");
    aot_online_on = 1;
}

enum aot_online_op_class aot_online_op_class(MPI_Op op)
{
    /* the common ones first: a call that goes straight to MPI asks at every call */
    static const struct { MPI_Op op; enum aot_online_op_class c; } ops[] = {
        {MPI_SUM, AOT_OP_SUM}, {MPI_MAX, AOT_OP_MAX}, {MPI_MIN, AOT_OP_MIN},
        {MPI_PROD, AOT_OP_PROD}, {MPI_LAND, AOT_OP_LAND}, {MPI_LOR, AOT_OP_LOR},
        {MPI_LXOR, AOT_OP_LXOR}, {MPI_BAND, AOT_OP_BAND}, {MPI_BOR, AOT_OP_BOR},
        {MPI_BXOR, AOT_OP_BXOR}, {MPI_MINLOC, AOT_OP_MINLOC}, {MPI_MAXLOC, AOT_OP_MAXLOC},
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (op == ops[i].op)
            return ops[i].c;
    return AOT_OP_OTHER;
}

/* The predefined C datatypes by class; any other (MPI_CHAR and MPI_WCHAR, which MPI does not
 * reduce, Fortran's, derived types) is AOT_TY_OTHER, left to MPI by AUTOOPT_TUNE=exact. */
enum aot_online_type_class aot_online_type_class(MPI_Datatype dt)
{
    static const struct { MPI_Datatype dt; enum aot_online_type_class c; } types[] = {
        {MPI_DOUBLE, AOT_TY_FLOAT}, {MPI_INT, AOT_TY_INT}, {MPI_FLOAT, AOT_TY_FLOAT}, {MPI_LONG, AOT_TY_INT}, {MPI_SHORT, AOT_TY_INT},
        {MPI_UNSIGNED_SHORT, AOT_TY_INT}, {MPI_UNSIGNED, AOT_TY_INT},
        {MPI_UNSIGNED_LONG, AOT_TY_INT}, {MPI_LONG_LONG_INT, AOT_TY_INT},
        {MPI_LONG_LONG, AOT_TY_INT}, {MPI_UNSIGNED_LONG_LONG, AOT_TY_INT},
        {MPI_SIGNED_CHAR, AOT_TY_INT}, {MPI_UNSIGNED_CHAR, AOT_TY_INT},
        {MPI_INT8_T, AOT_TY_INT}, {MPI_INT16_T, AOT_TY_INT}, {MPI_INT32_T, AOT_TY_INT},
        {MPI_INT64_T, AOT_TY_INT}, {MPI_UINT8_T, AOT_TY_INT}, {MPI_UINT16_T, AOT_TY_INT},
        {MPI_UINT32_T, AOT_TY_INT}, {MPI_UINT64_T, AOT_TY_INT}, {MPI_AINT, AOT_TY_INT},
        {MPI_OFFSET, AOT_TY_INT}, {MPI_COUNT, AOT_TY_INT},
        {MPI_LONG_DOUBLE, AOT_TY_FLOAT},
        {MPI_C_FLOAT_COMPLEX, AOT_TY_COMPLEX}, {MPI_C_COMPLEX, AOT_TY_COMPLEX},
        {MPI_C_DOUBLE_COMPLEX, AOT_TY_COMPLEX}, {MPI_C_LONG_DOUBLE_COMPLEX, AOT_TY_COMPLEX},
        {MPI_C_BOOL, AOT_TY_LOGICAL}, {MPI_BYTE, AOT_TY_BYTE},
        {MPI_2INT, AOT_TY_INT_PAIR}, {MPI_SHORT_INT, AOT_TY_INT_PAIR},
        {MPI_LONG_INT, AOT_TY_INT_PAIR},
        {MPI_FLOAT_INT, AOT_TY_FLOAT_PAIR}, {MPI_DOUBLE_INT, AOT_TY_FLOAT_PAIR},
        {MPI_LONG_DOUBLE_INT, AOT_TY_FLOAT_PAIR},
    };
    if (dt == MPI_DATATYPE_NULL)
        return AOT_TY_OTHER;
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (dt == types[i].dt)
            return types[i].c;
    return AOT_TY_OTHER;
}

int aot_online_tunes(MPI_Op op, MPI_Datatype dt)
{
    return aot_online_all || aot_online_exact(aot_online_op_class(op), aot_online_type_class(dt));
}

/* The cache's key of an online key ("coll <fingerprint> <ranks> <collective> <bucket>
 * <commutative>", docs/online.md), or 0 when the cache is off. */
static int aot_online_cache_key(char *buf, size_t len, int size, int kind, int bucket,
                                int commutative)
{
    const char *fp = aot_cache_fingerprint();

    if (!fp || !*fp)
        return 0;
    snprintf(buf, len, "coll %s %d %s %d %d", fp, size, aot_coll_kind_names[kind], bucket,
             commutative != 0);
    return 1;
}

/* A cached choice for the key (the same on every rank: rank 0's cache is broadcast) becomes
 * its base: a candidate already there, or one added (in place of the last when full).  Checked
 * as any candidate (a name that no longer parses, or a restriction, is ignored). */
static int aot_online_cached_base(enum aot_coll_kind kind, const struct aot_online_comm *o,
                                  uint64_t bytes, int commutative, struct aot_coll_choice *cand,
                                  int *n, int *base)
{
    struct aot_coll_choice c;
    char key[256], err[256];
    const char *v;
    int i;

    if (!aot_online_cache_key(key, sizeof(key), o->size, kind, aot_online_bucket(bytes),
                              commutative)
        || !(v = aot_cache_get(key))
        || aot_coll_parse_choice(kind, v, &c, err, sizeof(err)) != 0
        || aot_coll_check(c.alg, o->size, commutative) != 0)
        return 0;
    for (i = 0; i < *n; i++)
        if (cand[i].alg == c.alg && cand[i].param == c.param)
            break;
    if (i == *n) {
        i = *n < AOT_ONLINE_MAXCAND ? (*n)++ : AOT_ONLINE_MAXCAND - 1;
        cand[i] = c;
    }
    *base = i;
    return 1;
}

/* A key for this call: its candidates are fixed when it is made, from values every rank of
 * the communicator shares (the size, the bytes, the operation, the tuning table, the
 * communicator's hosts: the table's rules qualified by a shape apply to it, and on one host
 * `shm` is a candidate). */
static struct aot_online_key *aot_online_key_make(enum aot_coll_kind kind,
                                                  struct aot_online_comm *o,
                                                  uint64_t bytes, int commutative)
{
    const struct aot_coll_policy *pol = aot_online_policy;
    struct aot_coll_choice cand[AOT_ONLINE_MAXCAND];
    struct aot_online_key *k = malloc(sizeof(*k));
    int n, base;

    if (!k)
        return NULL;
    n = aot_online_candidates(kind, bytes, o->size, o->nhosts, o->ppn, commutative, pol->tuning,
                              o->nhosts == 1 ? (uint64_t) AOT_SHM_SLOT : 0, cand,
                              AOT_ONLINE_MAXCAND, &base);
    int cached = aot_online_cached_base(kind, o, bytes, commutative, cand, &n, &base);
    aot_online_init(k, cand, n, base, aot_cfg.tune_window, aot_cfg.tune_switch / 100.0);
    aot_online_set_budget(k, AOT_ONLINE_BUDGET, AOT_ONLINE_ALLOWANCE, &o->ledger);
    if (!aot_online_all)
        aot_online_set_floor(k, AOT_ONLINE_FLOOR);
    if (cached)
        aot_online_seed(k);
    return k;
}

/* Keeps o->explorer up to date after k's phase may have changed. */
static void aot_online_explorer(struct aot_online_comm *o, const struct aot_online_key *k)
{
    if (k->phase == AOT_ONLINE_EXPLORING)
        o->explorer = k;
    else if (o->explorer == k)
        o->explorer = NULL;
}

/* Whether k's call may start exploring (k's first call after its warm-up, or a monitored
 * key's window that finds its scores stale): no other key explores and, if k waits on its
 * base, it is the waiting key whose base costs most, or costlier keys have not been called
 * for AOT_ONLINE_DEFER calls.  The same on every rank: it follows from the calls made on the
 * communicator and from agreed costs. */
static int aot_online_may_explore(struct aot_online_comm *o, const struct aot_online_key *k)
{
    if (o->explorer == k) {
        o->stalled = 0;
        return 1;
    }
    if (o->explorer) {
        if (++o->stalled < AOT_ONLINE_DEFER)
            return 0;
        /* its key is no longer called: it stays half explored, and when it is called again
         * it goes on exploring, at the same time as another key perhaps (slower to converge,
         * and the two charge each other's differences, but every rank does the same) */
        o->explorer = NULL;
    }
    if (!aot_online_ready(k))
        return 1;
    if (o->stalled < AOT_ONLINE_DEFER
        && aot_online_pick((struct aot_online_key *const *) o->keys,
                            AOT_COLL_NKINDS * 2 * AOT_ONLINE_NBUCKETS) != k) {
        o->stalled++;
        return 0;
    }
    o->stalled = 0;
    return 1;
}

int aot_online_begin(struct aot_online_comm **slot, enum aot_coll_kind kind, int comm_size,
                     int comm_rank, void (*shape)(void *, int *, int *),
                     int (*private_comm)(void *, MPI_Comm *), void *arg,
                     uint64_t bytes, int commutative, struct aot_coll_choice *c,
                     struct aot_online_call *call)
{
    const struct aot_coll_policy *pol = aot_online_policy;
    struct aot_online_comm *o = *slot;
    struct aot_online_key **kp;
    int timed;

    call->k = NULL;
    if (comm_size < 2 || pol->forced[kind] >= 0
        || (pol->reproducible && (kind == AOT_COLL_ALLREDUCE || kind == AOT_COLL_REDUCE)))
        return 0;
    if (!o) {
        o = calloc(1, sizeof(*o));
        if (!o)
            return 0;
        o->size = comm_size;
        o->rank = comm_rank;
        /* the first call tuned online on the communicator: the same call on every rank */
        shape(arg, &o->nhosts, &o->ppn);
        o->id = -1;
        pthread_mutex_lock(&aot_online_lock);
        o->next = aot_online_comms;
        aot_online_comms = o;
        pthread_mutex_unlock(&aot_online_lock);
        *slot = o;
    }
    kp = &o->keys[kind][commutative != 0][aot_online_bucket(bytes)];
    if (!*kp && !(*kp = aot_online_key_make(kind, o, bytes, commutative)))
        return 0;
    call->k = *kp;
    call->o = o;
    call->kind = kind;
    call->bytes = bytes;
    call->close = NULL;
    call->n = 0;
    if (o->open == *kp) {
        /* the key's own call follows its timed one: a span up to its end would hold this
         * call's candidate too, so the sample is the timed call's period, reported and (when
         * it completes a round or window) agreed on before this call's candidate is chosen:
         * every rank is at this call */
        o->open = NULL;
        call->n = aot_online_record(*kp, o->open_period);
        if (call->n > 0) {
            MPI_Comm pc;
            if (private_comm(arg, &pc) != MPI_SUCCESS
                || aot_online_agree(call, pc) != MPI_SUCCESS)
                (*kp)->n = 0;   /* the samples are dropped; the round or window starts over */
            call->n = 0;
        }
    } else if (o->open) {
        /* another key's timed call is open: this call's end closes it */
        call->close = o->open;
        call->close_entry = o->open_entry;
        call->close_kind = o->open_kind;
        call->close_bytes = o->open_bytes;
        o->open = NULL;
    }
    if (((*kp)->phase == AOT_ONLINE_WARMING || (*kp)->heavy)
        && (call->n = aot_online_due(*kp)) > 0) {
        /* the base's cost, timed in the warm-up, or a heavy key's round or window: agreed
         * here, at a call every rank makes */
        MPI_Comm pc;
        if (private_comm(arg, &pc) != MPI_SUCCESS || aot_online_agree(call, pc) != MPI_SUCCESS)
            (*kp)->n = 0;   /* the cost stays unknown: the key is picked last */
        call->n = 0;
    }
    *c = *aot_online_next(*kp, aot_online_may_explore(o, *kp), &timed);
    aot_online_explorer(o, *kp);
    call->t0 = timed ? PMPI_Wtime() : 0;
    if (timed && (*kp)->phase == AOT_ONLINE_EXPLORING)
        aot_stats_add(aot_online_ctr_explore, 1);
    return 1;
}

int aot_online_end(struct aot_online_call *call)
{
    struct aot_online_comm *o = call->o;
    struct aot_online_key *k = call->k;
    double now;

    if (!k)
        return 0;
    now = PMPI_Wtime();
    call->n = 0;
    if (k->timed && k->heavy && k->phase != AOT_ONLINE_WARMING) {
        /* a heavy key's sample: the call itself, agreed now when it ends a round or a window
         * (its next call may never come: an FFT calls its alltoall a handful of times), or at
         * the key's next call when another key's span is agreed now (below) */
        call->n = aot_online_record(k, now - call->t0);
    } else if (k->timed && k->phase == AOT_ONLINE_WARMING) {
        /* the base's cost: the call itself, agreed at the key's next call */
        aot_online_record(k, now - call->t0);
    } else if (k->timed) {
        /* the sample stays open until the communicator's next tuned call has ended */
        o->open = k;
        o->open_entry = call->t0;
        o->open_period = now - k->mark;
        o->open_kind = call->kind;
        o->open_bytes = call->bytes;
    }
    k->mark = now;
    if (call->close) {
        /* the span of the key whose timed call came before: from its entry to now, so that
         * it is charged for the wait it left to this call */
        int n = aot_online_record(call->close, now - call->close_entry);
        if (n > 0) {
            call->n = n;
            call->k = call->close;
            call->kind = call->close_kind;
            call->bytes = call->close_bytes;
        }
    }
    return call->n > 0;
}

static void aot_online_describe(const struct aot_online_key *k, char *buf, size_t len)
{
    char w[128];
    aot_coll_format_choice(&k->cand[k->winner], w, sizeof(w));
    if (k->winner == 0 || k->score[0] <= 0 || k->score[k->winner] <= 0)
        snprintf(buf, len, "%s", w);
    else if (k->score[k->winner] < k->score[0])
        snprintf(buf, len, "%s (%.2fx faster than native)", w, k->score[0] / k->score[k->winner]);
    else
        snprintf(buf, len, "%s (%.2fx slower than native)", w, k->score[k->winner] / k->score[0]);
}

int aot_online_agree(struct aot_online_call *call, MPI_Comm pc)
{
    struct aot_online_key *k = call->k;
    struct aot_online_comm *o = call->o;
    double buf[AOT_ONLINE_AGREE_MAX + 2];
    enum aot_online_phase before = k->phase;
    int winner = k->winner, n = call->n, rc;

    memcpy(buf, k->buf, (size_t) n * sizeof(*buf));
    /* The communicator's name in the report: world rank of its rank 0, and a number. */
    buf[n] = o->id >= 0 ? o->id
             : o->rank == 0 ? (double) aot_world_rank * 65536.0
                                  + (double) __atomic_fetch_add(&aot_online_seq, 1,
                                                                __ATOMIC_RELAXED)
                            : -1.0;
    /* the time since MPI_Init, agreed: the budget's */
    buf[n + 1] = PMPI_Wtime() - aot_online_t0;
    rc = PMPI_Allreduce(MPI_IN_PLACE, buf, n + 2, MPI_DOUBLE, MPI_MAX, pc);
    if (rc != MPI_SUCCESS)
        return rc;
    o->id = buf[n];
    k->elapsed = buf[n + 1];
    aot_online_agreed(k, buf, n);
    aot_online_explorer(o, k);
    aot_stats_add(aot_online_ctr_agree, 1);
    if (before == AOT_ONLINE_EXPLORING && k->phase != AOT_ONLINE_EXPLORING
        && aot_cfg.verbose >= 1 && o->rank == 0) {
        char d[256];
        aot_online_describe(k, d, sizeof(d));
        aot_log(1, "online: %s on %d ranks, %llu B: %s after %d candidates (%d raced out), "
                "%llu calls", aot_coll_kind_names[call->kind], o->size,
                (unsigned long long) call->bytes, d, k->tried, k->raced_out,
                (unsigned long long) k->explore_calls);
    }
    if (k->winner != winner && before == AOT_ONLINE_MONITORING) {
        aot_stats_add(aot_online_ctr_switch, 1);
        if (aot_cfg.verbose >= 1 && o->rank == 0) {
            char d[256];
            aot_online_describe(k, d, sizeof(d));
            aot_log(1, "online: %s on %d ranks, %llu B: switched to %s",
                    aot_coll_kind_names[call->kind], o->size, (unsigned long long) call->bytes,
                    d);
        }
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------- report and save */

/* One key as every rank sends it to rank 0 of MPI_COMM_WORLD at MPI_Finalize. */
struct aot_online_rec {
    double id;
    int32_t kind, size, bucket, commutative, phase, tried, switches, reexplored, alg, pad;
    int64_t param;
    uint64_t calls, explore_calls;
    double native_s, winner_s;
};

/* Rank 0's merged view: one entry per key, with each rank's winner. */
struct aot_online_entry {
    struct aot_online_rec r;
    int *alg_by_rank;               /* -1: the rank has no such key */
    int64_t *param_by_rank;
    int agree;
};

static struct aot_online_entry *aot_online_table;
static int aot_online_nentries, aot_online_warming;

/* Records of communicators already freed (aot_online_release), and of keys that never left
 * warm-up; under aot_online_lock. */
static struct aot_online_rec *aot_online_retired;
static int aot_online_nretired, aot_online_cretired, aot_online_warm_retired;

/* Appends the records of o's decided keys to *v (n used, cap allocated); counts the keys still
 * in warm-up.  -1 when out of memory. */
static int aot_online_records(const struct aot_online_comm *o, struct aot_online_rec **v,
                              int *n, int *cap, int *warming)
{
    for (int kind = 0; kind < AOT_COLL_NKINDS; kind++)
        for (int cm = 0; cm < 2; cm++)
            for (int b = 0; b < AOT_ONLINE_NBUCKETS; b++) {
                const struct aot_online_key *k = o->keys[kind][cm][b];
                struct aot_online_rec *r;
                if (!k)
                    continue;
                if (k->tried == 0 && k->phase != AOT_ONLINE_EXPLORING && !k->floored
                    && !k->seeded) {
                    (*warming)++;
                    continue;
                }
                if (*n == *cap) {
                    int ncap = *cap ? 2 * *cap : 16;
                    struct aot_online_rec *nv = realloc(*v, (size_t) ncap * sizeof(**v));
                    if (!nv)
                        return -1;
                    *v = nv;
                    *cap = ncap;
                }
                r = &(*v)[(*n)++];
                memset(r, 0, sizeof(*r));
                r->id = o->id;
                r->kind = kind;
                r->size = o->size;
                r->bucket = b;
                r->commutative = cm;
                r->phase = k->floored ? AOT_ONLINE_FLOORED : (int) k->phase;
                r->tried = k->tried;
                r->switches = k->switches;
                r->reexplored = k->reexplored;
                r->alg = k->cand[k->winner].alg;
                r->param = k->cand[k->winner].param;
                r->calls = k->calls;
                r->explore_calls = k->explore_calls;
                r->native_s = k->score[0];
                r->winner_s = k->score[k->winner];
                if (k->floored) {
                    /* the base's agreed cost is its only score */
                    r->winner_s = k->cost;
                    r->native_s = k->base == 0 ? k->cost : -1;
                }
            }
    return 0;
}

void aot_online_release(struct aot_online_comm *o)
{
    struct aot_online_comm **pp;

    if (!o)
        return;
    pthread_mutex_lock(&aot_online_lock);
    for (pp = &aot_online_comms; *pp && *pp != o; pp = &(*pp)->next)
        ;
    if (*pp)
        *pp = o->next;
    /* what the report and AUTOOPT_TUNE_SAVE need outlives the communicator; a record lost
     * to a failed allocation only shortens the report */
    aot_online_records(o, &aot_online_retired, &aot_online_nretired, &aot_online_cretired,
                       &aot_online_warm_retired);
    pthread_mutex_unlock(&aot_online_lock);
    for (int kind = 0; kind < AOT_COLL_NKINDS; kind++)
        for (int cm = 0; cm < 2; cm++)
            for (int b = 0; b < AOT_ONLINE_NBUCKETS; b++)
                free(o->keys[kind][cm][b]);
    free(o);
}

static int aot_online_collect(struct aot_online_rec **out, int *warming)
{
    struct aot_online_rec *v = NULL;
    int n = 0, cap = 0;

    pthread_mutex_lock(&aot_online_lock);
    *warming = aot_online_warm_retired;
    if (aot_online_nretired && (v = malloc((size_t) aot_online_nretired * sizeof(*v)))) {
        memcpy(v, aot_online_retired, (size_t) aot_online_nretired * sizeof(*v));
        n = cap = aot_online_nretired;
    }
    for (struct aot_online_comm *o = aot_online_comms; o; o = o->next)
        if (aot_online_records(o, &v, &n, &cap, warming) != 0)
            break;
    pthread_mutex_unlock(&aot_online_lock);
    *out = v;
    return n;
}

static int aot_online_rec_cmp(const void *a, const void *b)
{
    const struct aot_online_rec *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    if (x->commutative != y->commutative)
        return x->commutative - y->commutative;
    return x->bucket - y->bucket;
}

/* Rank 0: merges every rank's records into aot_online_table. */
static void aot_online_merge(const struct aot_online_rec *all, const int *counts, int nranks)
{
    int total = 0, off = 0;
    struct aot_online_rec *sorted;

    for (int r = 0; r < nranks; r++)
        total += counts[r];
    sorted = malloc((size_t) (total ? total : 1) * sizeof(*sorted));
    aot_online_table = calloc((size_t) (total ? total : 1), sizeof(*aot_online_table));
    if (!sorted || !aot_online_table) {
        free(sorted);
        return;
    }
    memcpy(sorted, all, (size_t) total * sizeof(*sorted));
    qsort(sorted, (size_t) total, sizeof(*sorted), aot_online_rec_cmp);
    for (int i = 0; i < total; i++) {
        struct aot_online_entry *e;
        if (aot_online_nentries
            && aot_online_rec_cmp(&aot_online_table[aot_online_nentries - 1].r, &sorted[i]) == 0)
            continue;
        e = &aot_online_table[aot_online_nentries++];
        e->r = sorted[i];
        e->alg_by_rank = malloc((size_t) nranks * sizeof(int));
        e->param_by_rank = malloc((size_t) nranks * sizeof(int64_t));
        if (!e->alg_by_rank || !e->param_by_rank) {
            aot_online_nentries--;
            break;
        }
        for (int r = 0; r < nranks; r++)
            e->alg_by_rank[r] = -1;
    }
    /* each rank's winner, in rank order */
    for (int r = 0; r < nranks; r++) {
        for (int i = 0; i < counts[r]; i++) {
            const struct aot_online_rec *x = &all[off + i];
            for (int j = 0; j < aot_online_nentries; j++)
                if (aot_online_rec_cmp(&aot_online_table[j].r, x) == 0) {
                    aot_online_table[j].alg_by_rank[r] = x->alg;
                    aot_online_table[j].param_by_rank[r] = x->param;
                    /* the most calls any rank saw */
                    if (x->calls > aot_online_table[j].r.calls)
                        aot_online_table[j].r.calls = x->calls;
                    break;
                }
        }
        off += counts[r];
    }
    for (int j = 0; j < aot_online_nentries; j++) {
        struct aot_online_entry *e = &aot_online_table[j];
        int first = -1;
        e->agree = 1;
        for (int r = 0; r < nranks; r++) {
            if (e->alg_by_rank[r] < 0)
                continue;
            if (first < 0)
                first = r;
            else if (e->alg_by_rank[r] != e->alg_by_rank[first]
                     || e->param_by_rank[r] != e->param_by_rank[first])
                e->agree = 0;
        }
    }
    free(sorted);
}

static void aot_online_emit_tuning(FILE *f, void *arg)
{
    const struct aot_tuning *t = arg;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];

    aot_tuning_write(t, f);
    fprintf(f, "# written by autoopt at MPI_Finalize (AUTOOPT_TUNE=online, AUTOOPT_TUNE_SAVE) "
               "from the decisions of a %d-rank job\n", aot_world_size);
    if (aot_coll_mpi_version(lib, (int) sizeof(lib)) == 0) {
        for (char *c = lib; *c; c++)
            if (*c == '"')          /* the reader ends the value at a quote */
                *c = ' ';
        fprintf(f, "# setup mpi=\"%s\"\n", lib);
    }
}

/* A failed save ends the process with status 1 once the program has exited (atexit), so
 * that a job script sees it; _exit because exit() may not be called from an atexit handler. */
static void aot_online_save_failed(void)
{
    fflush(NULL);
    _exit(1);
}

/* The tuning file as text, checked by the reader that AUTOOPT_TUNING uses (aot_tuning_parse):
 * what is saved is what the next run reads, by construction.  0, or -1 with err. */
static int aot_online_render(const struct aot_tuning *t, const char *path, char **text,
                             size_t *len, char *err, size_t errlen)
{
    struct aot_tuning back;
    FILE *f = open_memstream(text, len);
    int rc;

    *text = NULL;
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    aot_online_emit_tuning(f, (void *) t);
    if (fclose(f) != 0 || !*text) {
        free(*text);
        *text = NULL;
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    aot_tuning_init(&back);
    rc = aot_tuning_parse(&back, *text, *len, path, err, errlen);
    aot_tuning_free(&back);
    if (rc != 0) {
        free(*text);
        *text = NULL;
    }
    return rc;
}

/* Rank 0: the decided keys as a tuning file.  Two communicators of one size may have decided
 * one bucket differently: the key with the most calls wins, commutative operations first
 * (a tuning file does not distinguish them; a rule an operation cannot run falls back to native
 * by the algorithm's restriction).  A rule covers its key's bucket, except for alltoallv, whose
 * key is the communicator size alone (its calls have bytes 0, coll_run.c) and whose rules the
 * reader takes as 'bytes 0-inf' only.  0, or -1 after one error line (nothing is written). */
static int aot_online_save(const char *path)
{
    struct aot_tuning t;
    char err[4400], (*notes)[160], *text = NULL;
    size_t len = 0;
    int *taken, rc = -1;

    aot_tuning_init(&t);
    notes = calloc((size_t) (aot_online_nentries ? aot_online_nentries : 1), sizeof(*notes));
    taken = calloc((size_t) (aot_online_nentries ? aot_online_nentries : 1), sizeof(*taken));
    if (!notes || !taken) {
        snprintf(err, sizeof(err), "out of memory");
        goto out;
    }
    for (int i = 0; i < aot_online_nentries; i++) {
        const struct aot_online_entry *e = &aot_online_table[i], *best = e;
        struct aot_coll_choice in_force, saved;
        struct aot_tuning_rule rule;
        int bi = i;
        if (taken[i] || !e->agree)
            continue;
        for (int j = i + 1; j < aot_online_nentries; j++) {
            const struct aot_online_entry *x = &aot_online_table[j];
            if (taken[j] || !x->agree
                || x->r.kind != e->r.kind || x->r.size != e->r.size
                || x->r.bucket != e->r.bucket)
                continue;
            taken[j] = 1;
            if (x->r.commutative > best->r.commutative
                || (x->r.commutative == best->r.commutative && x->r.calls > best->r.calls)) {
                best = x;
                bi = j;
            }
        }
        taken[i] = 1;
        memset(&rule, 0, sizeof(rule));
        rule.kind = best->r.kind;
        rule.ranks_lo = rule.ranks_hi = best->r.size;
        aot_online_bucket_range(best->r.bucket, &rule.bytes_lo, &rule.bytes_hi);
        if (rule.kind == AOT_COLL_ALLTOALLV) {
            rule.bytes_lo = 0;
            rule.bytes_hi = AOT_TUNING_INF_BYTES;
        }
        /* the choice in force only where it was measured faster than native */
        in_force.alg = best->r.alg;
        in_force.param = (long) best->r.param;
        aot_online_saved(best->r.kind, &in_force, best->r.native_s, best->r.winner_s,
                         best->r.tried, best->r.calls, &saved, notes[bi], sizeof(notes[bi]));
        rule.alg = saved.alg;
        rule.param = (long) saved.param;
        rule.note = notes[bi];
        if (aot_tuning_add(&t, &rule, err, sizeof(err)) != 0)
            goto out;
    }
    if (aot_online_render(&t, path, &text, &len, err, sizeof(err)) != 0)
        goto out;
    if (aot_file_replace_text(path, text, len, err, sizeof(err)) != 0)
        goto out;
    AOT_LOG(1, "online: %zu rules saved to %s", t.n, path);
    rc = 0;
out:
    if (rc != 0) {
        aot_log(0, "error: AUTOOPT_TUNE_SAVE=%s: nothing saved: %s", path, err);
        atexit(aot_online_save_failed);
    }
    aot_tuning_free(&t);
    free(text);
    free(notes);
    free(taken);
    return rc;
}

/* Rank 0: every decided key whose ranks agree goes into the cache of decisions: its winner
 * where it was measured faster than native, else native (aot_online_saved). */
static void aot_online_keep(void)
{
    for (int i = 0; i < aot_online_nentries; i++) {
        const struct aot_online_entry *e = &aot_online_table[i];
        struct aot_coll_choice in_force = {e->r.alg, (long) e->r.param}, saved;
        char key[256], note[160], name[128];
        if (!e->agree || e->r.tried == 0 || e->r.phase == AOT_ONLINE_EXPLORING
            || !aot_online_cache_key(key, sizeof(key), e->r.size, e->r.kind, e->r.bucket,
                                     e->r.commutative))
            continue;
        aot_online_saved(e->r.kind, &in_force, e->r.native_s, e->r.winner_s, e->r.tried,
                         e->r.calls, &saved, note, sizeof(note));
        aot_coll_format_choice(&saved, name, sizeof(name));
        aot_cache_put(key, name);
    }
}

void aot_online_finish(void)
{
    struct aot_online_rec *mine = NULL, *all = NULL;
    int n, warming, *counts = NULL, *displs = NULL, total = 0;

    if (!aot_online_on)
        return;
    n = aot_online_collect(&mine, &warming);
    if (aot_world_rank == 0) {
        counts = calloc((size_t) aot_world_size, sizeof(int));
        displs = calloc((size_t) aot_world_size, sizeof(int));
    }
    PMPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&warming, &aot_online_warming, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (aot_world_rank == 0 && counts && displs) {
        for (int r = 0; r < aot_world_size; r++) {
            displs[r] = total * (int) sizeof(*all);
            total += counts[r];
            counts[r] *= (int) sizeof(*all);
        }
        all = malloc((size_t) (total ? total : 1) * sizeof(*all));
    }
    PMPI_Gatherv(mine, n * (int) sizeof(*mine), MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
                 MPI_COMM_WORLD);
    if (aot_world_rank == 0 && all) {
        for (int r = 0; r < aot_world_size; r++)
            counts[r] /= (int) sizeof(*all);
        aot_online_merge(all, counts, aot_world_size);
        aot_online_keep();
        if (aot_cfg.tune_save)
            aot_online_save(aot_cfg.tune_save);
    }
    free(mine);
    free(all);
    free(counts);
    free(displs);
}

/* ---------------------------------------------------------------- statistics section */

static const char *aot_online_phase_name(int phase)
{
    switch (phase) {
    case AOT_ONLINE_EXPLORING: return "exploring";
    case AOT_ONLINE_MONITORING: return "monitoring";
    case AOT_ONLINE_FIXED: return "fixed";
    case AOT_ONLINE_FLOORED: return "too-cheap";
    default: return "warm-up";
    }
}

static void aot_online_alg_name(int alg, int64_t param, char *buf, size_t len)
{
    struct aot_coll_choice c = {alg, (long) param};
    if (alg < 0)
        snprintf(buf, len, "-");
    else
        aot_coll_format_choice(&c, buf, len);
}

void aot_online_stats_text(FILE *f)
{
    if (!aot_online_on)
        return;
    fprintf(f, "  online tuning: %d key%s decided or exploring, %d still in warm-up (called "
               "fewer than %d times) on some rank\n", aot_online_nentries,
            aot_online_nentries == 1 ? "" : "s", aot_online_warming, AOT_ONLINE_WARMUP);
    if (!aot_online_nentries)
        return;
    fprintf(f, "    %-10s %5s %-18s %-11s %-24s %5s %7s %7s %8s %10s %10s %8s %s\n",
            "collective", "ranks", "bytes", "phase", "winner", "tried", "explore", "again",
            "switches", "native_us", "winner_us", "speedup", "all ranks");
    for (int i = 0; i < aot_online_nentries; i++) {
        const struct aot_online_entry *e = &aot_online_table[i];
        char w[128], range[64];
        uint64_t lo, hi;
        aot_online_bucket_range(e->r.bucket, &lo, &hi);
        snprintf(range, sizeof(range), "%llu-%llu", (unsigned long long) lo,
                 (unsigned long long) hi);
        aot_online_alg_name(e->r.alg, e->r.param, w, sizeof(w));
        fprintf(f, "    %-10s %5d %-18s %-11s %-24s %5d %7llu %7d %8d %10.2f %10.2f %7.2fx %s\n",
                aot_coll_kind_names[e->r.kind], e->r.size, range,
                aot_online_phase_name(e->r.phase), w, e->r.tried,
                (unsigned long long) e->r.explore_calls, e->r.reexplored, e->r.switches,
                e->r.native_s * 1e6,
                e->r.winner_s * 1e6, e->r.winner_s > 0 ? e->r.native_s / e->r.winner_s : 0,
                e->agree ? "same winner" : "DIFFERENT WINNERS");
    }
}

void aot_online_stats_json(FILE *f)
{
    if (!aot_online_on)
        return;
    fprintf(f, "{\"warmup_keys\": %d, \"keys\": [", aot_online_warming);
    for (int i = 0; i < aot_online_nentries; i++) {
        const struct aot_online_entry *e = &aot_online_table[i];
        char w[128];
        uint64_t lo, hi;
        aot_online_bucket_range(e->r.bucket, &lo, &hi);
        aot_online_alg_name(e->r.alg, e->r.param, w, sizeof(w));
        fprintf(f, "%s\n    {\"comm\": %.0f, \"collective\": \"%s\", \"ranks\": %d, "
                   "\"bytes_lo\": %llu, \"bytes_hi\": %llu, \"commutative\": %d, "
                   "\"phase\": \"%s\", \"winner\": \"%s\", \"tried\": %d, "
                   "\"explore_calls\": %llu, \"calls\": %llu, \"reexplored\": %d, "
                   "\"switches\": %d, "
                   "\"native_us\": %.3f, \"winner_us\": %.3f, \"winner_by_rank\": [",
                i ? "," : "", e->r.id, aot_coll_kind_names[e->r.kind], e->r.size,
                (unsigned long long) lo, (unsigned long long) hi, e->r.commutative,
                aot_online_phase_name(e->r.phase), w, e->r.tried,
                (unsigned long long) e->r.explore_calls, (unsigned long long) e->r.calls,
                e->r.reexplored, e->r.switches, e->r.native_s * 1e6, e->r.winner_s * 1e6);
        for (int r = 0, first = 1; r < aot_world_size; r++) {
            if (e->alg_by_rank[r] < 0)
                continue;
            aot_online_alg_name(e->alg_by_rank[r], e->param_by_rank[r], w, sizeof(w));
            fprintf(f, "%s\"%s\"", first ? "" : ", ", w);
            first = 0;
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]}");
}
