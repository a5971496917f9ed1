/*
 * aot_online.h: the pure core of online tuning (AUTOOPT_TUNE=online, docs/online.md): one
 * tuning session per key (collective, communicator, message-size bucket, commutativity), after
 * STAR-MPI (Faraj, Yuan and Lowenthal, ICS 2006): measure-select, then monitor-adapt.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * No MPI calls and no global state.  The runner (coll_online_run.c) asks, at every call of a
 * key, which candidate to run and whether to time it; it reports the time; when the core says
 * so it reduces the core's buffer with MPI_MAX over the communicator's ranks and hands the
 * result back.  Every decision is a function of the number of calls made and of those agreed
 * values only, never of a rank's own clock, so every rank of the communicator runs the same
 * algorithm at the same call.
 *
 * What is timed is the call's span, from its entry to the end of the communicator's next
 * tuned collective, so that an algorithm is charged for what it leaves behind (ranks leaving
 * it at different times make the next collective wait), not only for its own call; when the
 * next collective is the key's own call, the span would hold that call's candidate too, and
 * the key's period (from the end of its previous call to the end of this one) is timed
 * instead.  The runner measures and reports both; the core calls either a sample.  For a
 * sample to compare algorithms, only one key of a communicator explores at a time (the runner
 * says which may: may_explore); the other keys keep their algorithm meanwhile.
 *
 * A session:
 *   warm-up     AOT_ONLINE_WARMUP calls of the base candidate: a key called fewer times
 *               never explores (it could not pay the exploration back).  AOT_ONLINE_COST_N of
 *               them, from call AOT_ONLINE_COST_FROM on, are timed from entry to exit (a span
 *               would hold the next key's call) and agreed: the base's cost.  After them
 *               the key waits, still on its base, until no other key of its communicator
 *               explores and it is the waiting key whose base costs most
 *               (aot_online_pick): a key's gain, once chosen, is likely to grow with what its
 *               base costs, and every key explores for about as many calls, so the costliest
 *               go first.  The base is native, or the tuning table's choice for the call when
 *               the table has a rule for it (the key then starts from that choice and
 *               explores only its neighbourhood: aot_online_candidates).
 *   explore     the live candidates take turns, 1 + AOT_ONLINE_SETTLE calls each, the last
 *               one timed; at the end of each round the ranks agree on the round's per-call
 *               maxima (one reduction).  From round AOT_ONLINE_RACE0 on, a candidate whose
 *               best sample is above AOT_ONLINE_RACE times the leader's score leaves the race
 *               (after F-Race, as the offline tuner's aot_tune_race); exploring ends when one
 *               candidate is left or after AOT_ONLINE_REPS rounds.  A candidate's score is the
 *               mean of its best rounds/2+1 agreed samples.  The winner is the lowest score;
 *               a candidate other than the base must beat the base's score by
 *               AOT_ONLINE_MARGIN.
 *   monitor     one call in AOT_ONLINE_SAMPLE is timed; a window of samples that doubles while
 *               the winner stays good (from AOT_ONLINE_WIN0 to AOT_ONLINE_WINMAX) is agreed at
 *               its end; the winner gives way to the second best when both the window's score
 *               and the score of its last AOT_ONLINE_LAST samples (the same estimator as
 *               exploring's) are at least AOT_ONLINE_SWITCH times the second best's score.
 *               When a window's score is more than AOT_ONLINE_STALE times above or below the
 *               winner's own score, the conditions the scores were measured under are gone
 *               (the start of a program is often slow, or the machine got busy): the key
 *               explores again, at most AOT_ONLINE_REEXPLORE times, when no other key
 *               explores.
 */
#ifndef AOT_ONLINE_H_INCLUDED
#define AOT_ONLINE_H_INCLUDED

#include <stdint.h>

#include "aot_config.h"
#include "coll_select.h"

#define AOT_ONLINE_MAXCAND 6
#define AOT_ONLINE_REPS 6
#define AOT_ONLINE_SETTLE 1        /* untimed calls before each timed one while exploring */
#define AOT_ONLINE_WARMUP 16
#define AOT_ONLINE_COST_FROM 4     /* warm-up calls timed for the base's cost: from this one */
#define AOT_ONLINE_COST_N 8        /* ... this many, agreed before the warm-up ends */
#define AOT_ONLINE_DEFER 64        /* calls a waiting key defers to a costlier one, at most */
#define AOT_ONLINE_SAMPLE 8
#define AOT_ONLINE_WIN0 16
#define AOT_ONLINE_WINMAX 512
#define AOT_ONLINE_LAST 4
#define AOT_ONLINE_SWITCH 1.1
#define AOT_ONLINE_MARGIN 0.03
#define AOT_ONLINE_STALE 2.0       /* a window this far from the winner's score: explore again */
#define AOT_ONLINE_REEXPLORE 3     /* at most this many times per key */
#define AOT_ONLINE_RACE0 2         /* rounds before the first candidate may leave the race */
#define AOT_ONLINE_RACE 1.2        /* ... when its best sample is this far above the leader */
/* Few calls when calls are costly (docs/online.md, "Heavy keys"): a key whose call costs at
 * least AOT_ONLINE_HEAVY seconds (its second call, timed from entry to exit and agreed at the
 * third) leaves the warm-up after AOT_ONLINE_HEAVY_WARMUP calls, times every call from entry to
 * exit (a span's or a period's share of another call is nothing beside it), explores in turns
 * of one call, and races from the first round with a factor that follows the measured noise:
 * 1 + max(AOT_ONLINE_HEAVY_GAP, 2 x the largest spread between one candidate's samples), at
 * most AOT_ONLINE_HEAVY_REPS rounds: 1 or 2 samples per candidate.  Its samples are agreed at
 * the end of the call that completes them. */
#define AOT_ONLINE_HEAVY 0.010
#define AOT_ONLINE_HEAVY_WARMUP 3   /* calls 0, 1 timed, agreed at 2, which explores */
#define AOT_ONLINE_HEAVY_GAP 0.05
#define AOT_ONLINE_HEAVY_REPS 2   /* the second round: the leader and the best other only */
/* The exploration budget (as the point-to-point governor's, src/aot_govern.h): the loss of the
 * candidates explored on a communicator (their agreed samples above the base's, per call run)
 * stays within AOT_ONLINE_BUDGET x the agreed time since MPI_Init + AOT_ONLINE_ALLOWANCE x the
 * exploring key's base cost; a candidate starts a round only if what is left covers its
 * expected loss (never tried: one base call per call of its turn). */
#define AOT_ONLINE_BUDGET 0.01
#define AOT_ONLINE_ALLOWANCE 2.0
/* AUTOOPT_TUNE=exact: a key whose base costs less than this (seconds, agreed in the warm-up)
 * stays on it (aot_online_set_floor).  Measured 2026-12-07, 4 ranks on 2 cores (yield), a loop
 * of four 8-byte collectives of 11-13 us each: tuning them made the loop 1.06-1.10x slower than
 * AUTOOPT_TUNE=off (the winners' gains of a few microseconds did not pay the tuning) */
#define AOT_ONLINE_FLOOR 50e-6
/* AUTOOPT_TUNE=exact: calls of fewer bytes (the decision's, docs/collectives.md) are not
 * tuned online: they take the policy's choice through the decision memory (coll_run.c), as
 * with AUTOOPT_TUNE=off.  The same loop took 1.07x off's time with the floor alone: the
 * online path (key, phase, agreement checks) costs about 170 instructions a call */
#define AOT_ONLINE_MIN_BYTES 256
/* Size of the buffer the runner reduces: the largest round or window. */
#define AOT_ONLINE_AGREE_MAX AOT_ONLINE_WINMAX
#if AOT_ONLINE_MAXCAND * AOT_ONLINE_REPS > AOT_ONLINE_AGREE_MAX
#error "exploring's times must fit the buffer"
#endif
/* The cost's samples are agreed at the key's call after the last of them, so the costs of the
 * keys of a loop are known before their warm-ups end. */
#if AOT_ONLINE_COST_FROM + AOT_ONLINE_COST_N + 2 > AOT_ONLINE_WARMUP
#error "the base's cost must be agreed before the warm-up ends"
#endif

enum aot_online_phase {
    AOT_ONLINE_WARMING,
    AOT_ONLINE_EXPLORING,
    AOT_ONLINE_MONITORING,
    AOT_ONLINE_FIXED         /* one candidate only: nothing to choose */
};
/* What the statistics report for a FIXED key that stayed on its base below the floor. */
#define AOT_ONLINE_FLOORED (AOT_ONLINE_FIXED + 1)

struct aot_online_key {
    int ncand;
    struct aot_coll_choice cand[AOT_ONLINE_MAXCAND];   /* cand[0] is native */
    double score[AOT_ONLINE_MAXCAND];   /* agreed score, seconds; < 0 until measured */
    int base;                /* run while warming up and waiting; the one to beat */
    double cost;             /* the base's agreed score in the warm-up, seconds; < 0 until
                              * agreed: which waiting key explores first */
    /* exploring: the candidates still in the race, in turn order, and the agreed samples of
     * each candidate's rounds */
    int live[AOT_ONLINE_MAXCAND], nlive, rounds;
    double sample[AOT_ONLINE_MAXCAND][AOT_ONLINE_REPS];
    enum aot_online_phase phase;
    uint64_t calls;          /* calls of this key so far */
    int cur;                 /* candidate of the call in progress */
    int timed;               /* the call in progress is timed */
    int may_explore;         /* as the runner said at the call in progress */
    double mark;             /* the runner's: when the key's previous call ended */
    int winner, second;      /* second: -1 when there is none */
    int win0;                /* first window, samples */
    double switch_factor;    /* AOT_ONLINE_SWITCH unless the configuration says otherwise */
    int n;                   /* times in buf */
    int want;                /* times that make the round or window */
    double buf[AOT_ONLINE_AGREE_MAX];
    /* what the statistics report */
    uint64_t explore_calls;  /* calls made while exploring (native's included) */
    int tried;               /* candidates measured */
    int raced_out;           /* candidates that left a race early, over all explorations */
    int switches;            /* monitor-adapt changes of winner */
    int reexplored;          /* explorations after the first */
    uint64_t round_call;     /* calls made in the current exploration */
    uint64_t agreements;     /* reductions made */
    /* heavy keys (AOT_ONLINE_HEAVY) */
    int heavy;               /* 1 once the base's agreed second call cost AOT_ONLINE_HEAVY */
    double warm_sample;      /* that call's agreed time: the base's first sample of noise */
    double noise;            /* the largest relative spread of one candidate's samples */
    /* the budget (aot_online_set_budget); budget <= 0: none (the unit tests' sessions) */
    double budget, allowance;
    /* a base cheaper than this (seconds; 0: no floor) does not explore: aot_online_set_floor */
    double floor;
    int floored;             /* stayed on its base: its cost was below the floor */
    int seeded;              /* runs a cached choice (aot_online_seed): 1 until its first
                              * window is agreed, 2 until its second, then it explores */
    double *ledger;          /* loss charged so far, seconds: the communicator's, shared */
    double own_ledger;
    double elapsed;          /* agreed time since MPI_Init at the latest agreement, seconds
                              * (the runner sets it before aot_online_agreed) */
    int budget_cut;          /* candidates passed over because the budget did not cover them */
};

/* cand[0..n) with cand[0] native; n >= 1 (at most AOT_ONLINE_MAXCAND are kept); base: the
 * candidate run until exploring has chosen (0..n-1, else 0).  win0: the first monitor window
 * in samples (1..AOT_ONLINE_WINMAX); switch_factor: how much slower than the second best the
 * winner must be to give way (AUTOOPT_TUNE_WINDOW, AUTOOPT_TUNE_SWITCH). */
void aot_online_init(struct aot_online_key *k, const struct aot_coll_choice *cand, int n,
                     int base, int win0, double switch_factor);

/* The algorithm the call about to be made runs; *timed is 1 when its sample (span or period)
 * must be reported with aot_online_record, before the key's next aot_online_next.
 * may_explore: no other key of the communicator is exploring (the same on every rank: it
 * follows from the calls made on the communicator). */
const struct aot_coll_choice *aot_online_next(struct aot_online_key *k, int may_explore,
                                              int *timed);

/* The key has warmed up and waits on its base to explore: its next call may start exploring
 * if the runner lets it (may_explore). */
static inline int aot_online_ready(const struct aot_online_key *k)
{
    return k->phase == AOT_ONLINE_WARMING
           && k->calls + 1 >= (k->heavy ? AOT_ONLINE_HEAVY_WARMUP : AOT_ONLINE_WARMUP);
}

/* The exploration budget: budget x elapsed + allowance x the base's cost, less what *ledger
 * (shared by the keys of a communicator; NULL: the key's own) holds. */
/* The key stays on its base, unexplored and unmonitored (phase FIXED), when the base's agreed
 * cost in the warm-up is below floor seconds: a call that cheap gains too little for what
 * tuning it costs (the path through the key, the timing, the agreements, the candidates'
 * turns).  AUTOOPT_TUNE=exact sets AOT_ONLINE_FLOOR; online sets none. */
void aot_online_set_floor(struct aot_online_key *k, double floor);

/* The key's base came from the cache of decisions (an earlier run's choice): it runs from the
 * first call, without warm-up or exploration, monitored; the first monitor window gives its
 * score, and at the end of the second (win0 + 2 win0 timed calls, one call in
 * AOT_ONLINE_SAMPLE: 384 calls by default, the p2p governor's first re-check is at 256) the
 * key explores as any other, the cached choice among the candidates: a starting point,
 * re-checked, never a promise.  A key with one candidate stays FIXED. */
void aot_online_seed(struct aot_online_key *k);

void aot_online_set_budget(struct aot_online_key *k, double budget, double allowance,
                           double *ledger);

/* Whether a reduction with operation class op on a type of class type gives the same bits in
 * any order of its operands (AUTOOPT_TUNE=exact tunes only these, docs/online.md): integers
 * with the predefined arithmetic, bitwise and logical operations, logicals with the logical
 * ones, bytes with the bitwise ones, integer pairs with MINLOC/MAXLOC (ties go to the lower
 * index).  Not floating point, not even MIN/MAX (MIN(-0.0, +0.0) keeps whichever operand comes
 * second, and a NaN likewise), not user-defined operations, not derived types. */
enum aot_online_op_class {
    AOT_OP_SUM, AOT_OP_PROD, AOT_OP_MIN, AOT_OP_MAX, AOT_OP_LAND, AOT_OP_LOR, AOT_OP_LXOR,
    AOT_OP_BAND, AOT_OP_BOR, AOT_OP_BXOR, AOT_OP_MINLOC, AOT_OP_MAXLOC, AOT_OP_OTHER,
    AOT_OP_NCLASSES
};
enum aot_online_type_class {
    AOT_TY_INT, AOT_TY_FLOAT, AOT_TY_COMPLEX, AOT_TY_LOGICAL, AOT_TY_BYTE, AOT_TY_INT_PAIR,
    AOT_TY_FLOAT_PAIR, AOT_TY_OTHER, AOT_TY_NCLASSES
};
int aot_online_exact(enum aot_online_op_class op, enum aot_online_type_class type);

/* The number of values of k->buf due for agreement (as aot_online_record returned it), or 0:
 * the base's cost in the warm-up, whose samples end with the call and are agreed at the key's
 * next call. */
static inline int aot_online_due(const struct aot_online_key *k)
{
    return k->n > 0 && k->n >= k->want ? k->n : 0;
}

/* Of keys[0..n) (NULL entries skipped; one communicator's keys, in an order that is the same
 * on every rank), the ready key whose base costs most, the first of equals; a key whose cost
 * is not agreed counts as costing nothing.  NULL when no key is ready.  Every rank picks the
 * same key: the costs are agreed and the calls made are the same. */
struct aot_online_key *aot_online_pick(struct aot_online_key *const *keys, int n);

/* Reports the sample (seconds) of the key's last timed call.  Returns the number of values of
 * k->buf that must now be reduced with MPI_MAX over the communicator and given to
 * aot_online_agreed, or 0. */
int aot_online_record(struct aot_online_key *k, double seconds);

/* The n agreed values (the per-rank maxima of k->buf[0..n)). */
void aot_online_agreed(struct aot_online_key *k, const double *agreed, int n);

/* What AUTOOPT_TUNE_SAVE saves for a decided key of collective kind whose choice in force is
 * c, given the agreed scores of native (native_s) and of c (winner_s), seconds, <= 0 when not
 * measured: c only where it was measured faster than native, else native ({kind, 0}) in *out.
 * A choice in force can be measured slower than native: a key whose conditions changed explores
 * again and rescores every candidate while its old choice still holds (a job that ends then
 * ends with those scores), and a table's choice (the base) keeps a tie within the margin.  The
 * rule's note ("online: 1.52x faster than native, 4 candidates, 1000 calls") goes to note.
 * Returns 1 when c is saved, 0 when native is. */
int aot_online_saved(int kind, const struct aot_coll_choice *c, double native_s,
                     double winner_s, int tried, uint64_t calls, struct aot_coll_choice *out,
                     char *note, size_t len);

/* Mean of the best n/2+1 of x[0..n) (sorts x). */
double aot_online_score(double *x, int n);

/* The message-size bucket of a call: 0 for 0 bytes, else 1 + floor(log2(bytes)); and the
 * inclusive byte range of a bucket. */
static inline int aot_online_bucket(uint64_t bytes)
{
    return bytes ? 64 - __builtin_clzll(bytes) : 0;
}
void aot_online_bucket_range(int bucket, uint64_t *lo, uint64_t *hi);

/* The candidates of a key, native first, without repeats, without algorithms whose
 * restrictions reject the call, at most max; returns the number and sets *base.
 *   The communicator has comm_size ranks on nhosts hosts, ppn on the fullest (0 when unknown:
 *   then only the table's rules without a shape qualifier apply, as in aot_tuning_lookup).
 *   When the tuning table t (a file, the built-in table; NULL: none) has a rule for the call:
 *   its choice (*base, or 0 when the choice is native or cannot run here) and its
 *   neighbourhood: the choices of the rules for the sizes just below and just above the
 *   rule's bytes range and for the communicator sizes just below and above its ranks range.
 *   Otherwise (*base = 0): `shm` when the call may use it (shm_bytes: the largest message the
 *   shared-memory algorithms keep in their slot when all ranks share one host, else 0), then
 *   the default set for the collective and message size. */
struct aot_tuning;
int aot_online_candidates(enum aot_coll_kind kind, uint64_t bytes, int comm_size, int nhosts,
                          int ppn, int commutative, const struct aot_tuning *t,
                          uint64_t shm_bytes, struct aot_coll_choice *out, int max, int *base);

/* The default sets, for the unit test: the spec string of kind for bytes ("native,ring,..."). */
const char *aot_online_default_set(enum aot_coll_kind kind, uint64_t bytes);

#endif /* AOT_ONLINE_H_INCLUDED */
