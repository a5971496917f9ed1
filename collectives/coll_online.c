/*
 * coll_online.c: the pure core of online tuning (aot_online.h, docs/online.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"
#include "aot_online.h"
#include "aot_tuning_file.h"
#include "coll_select.h"

/* ---------------------------------------------------------------- candidates */

/* The default sets: a few algorithms per collective and message size, native first, picked
 * from what autoopt-tune found best on shared memory and on the emulated cluster
 * (docs/results/tune-2026-11-25/shm4.tune, docs/results/tune-net1-2026-11-25/net1.tune;
 * alltoall's pair_light_barrier: docs/results/online-2026-11-25/shm2.tune, 2 ranks; from
 * 2 KiB, alltoall's and alltoallv's spreading_simple and spread_segmented: the shipped tables,
 * collectives/tables/one-host.tune and netcluster-8-alltoall.tune, where they win most
 * sizes from 8 KiB on both platforms).
 * Rows of one collective in increasing `below`: the first row whose `below` exceeds the
 * call's bytes applies. */
struct aot_online_set {
    enum aot_coll_kind kind;
    uint64_t below;
    const char *specs;
};

static const struct aot_online_set aot_online_sets[] = {
    {AOT_COLL_ALLREDUCE, 16384, "native,recursive_doubling,allgather,reduce_bcast"},
    {AOT_COLL_ALLREDUCE, UINT64_MAX, "native,ring,rabenseifner,recursive_doubling"},
    {AOT_COLL_BCAST, 8192, "native,linear,binomial,binary"},
    {AOT_COLL_BCAST, UINT64_MAX, "native,chain:segment=2048,chain:segment=8192,scatter_allgather"},
    {AOT_COLL_REDUCE, 8192, "native,linear,binomial,binary"},
    {AOT_COLL_REDUCE, UINT64_MAX, "native,chain:segment=2048,chain:segment=8192,binary"},
    {AOT_COLL_ALLGATHER, 2048, "native,spreading_simple,gather_bcast,recursive_doubling"},
    {AOT_COLL_ALLGATHER, UINT64_MAX, "native,simple,ring,spreading_simple"},
    {AOT_COLL_ALLGATHERV, UINT64_MAX, "native,simple,ring,recursive_doubling"},
    {AOT_COLL_ALLTOALL, 2048,
     "native,spreading_simple,recursive_doubling,bruck,pair_light_barrier"},
    {AOT_COLL_ALLTOALL, UINT64_MAX,
     "native,spreading_simple,spread_segmented:segment=8192,simple,pair"},
    {AOT_COLL_ALLTOALLV, UINT64_MAX,
     "native,spreading_simple,spread_segmented:segment=8192,simple,ring_mpi_barrier"},
    {AOT_COLL_BARRIER, UINT64_MAX, "native,dissemination,recursive_doubling,tree"},
};

const char *aot_online_default_set(enum aot_coll_kind kind, uint64_t bytes)
{
    for (size_t i = 0; i < sizeof(aot_online_sets) / sizeof(aot_online_sets[0]); i++)
        if (aot_online_sets[i].kind == kind
            && (bytes < aot_online_sets[i].below || aot_online_sets[i].below == UINT64_MAX))
            return aot_online_sets[i].specs;
    return "native";
}

static int aot_online_add(struct aot_coll_choice *out, int n, int max,
                          const struct aot_coll_choice *c, int comm_size, int commutative)
{
    if (n >= max || aot_coll_check(c->alg, comm_size, commutative) != 0)
        return n;
    for (int i = 0; i < n; i++)
        if (out[i].alg == c->alg && out[i].param == c->param)
            return n;
    out[n] = *c;
    return n + 1;
}

/* Appends the algorithms of the comma-separated specs to out (aot_online_add). */
static int aot_online_add_specs(enum aot_coll_kind kind, const char *s, int comm_size,
                                int commutative, struct aot_coll_choice *out, int n, int max)
{
    while (*s) {
        struct aot_coll_choice c;
        char spec[64], err[256];
        size_t len = strcspn(s, ",");
        if (len < sizeof(spec)) {
            memcpy(spec, s, len);
            spec[len] = '\0';
            /* the sets are checked by tests/unit/test_online.c: a name that stopped parsing
             * is a build defect, skipped here rather than run */
            if (aot_coll_parse_choice(kind, spec, &c, err, sizeof(err)) == 0)
                n = aot_online_add(out, n, max, &c, comm_size, commutative);
        }
        s += len;
        if (*s == ',')
            s++;
    }
    return n;
}

/* The choice of t's rule for a call of bytes on a communicator of rule_size ranks, if any,
 * appended to out.  The shape (nhosts, ppn; 0: unknown) is that of the call's communicator;
 * for another size (a neighbour in ranks) it is the same hosts with one rank more or fewer:
 * as many hosts as there are ranks at most, and the ranks spread evenly over them. */
static int aot_online_add_rule(const struct aot_tuning *t, enum aot_coll_kind kind,
                               int comm_size, int nhosts, int ppn, uint64_t bytes,
                               int rule_size, int commutative, struct aot_coll_choice *out,
                               int n, int max)
{
    const struct aot_tuning_rule *r;
    struct aot_coll_choice c;

    if (nhosts > 0 && rule_size != comm_size) {
        if (nhosts > rule_size)
            nhosts = rule_size;
        ppn = (rule_size + nhosts - 1) / nhosts;
    }
    r = aot_tuning_lookup_shape(t, kind, rule_size, nhosts, ppn, bytes);
    if (!r)
        return n;
    c.alg = r->alg;
    c.param = r->param;
    return aot_online_add(out, n, max, &c, comm_size, commutative);
}

/* Of t's rules for kind that hold for the communicator (its size and, for a qualified rule,
 * its shape), the one whose bytes range lies nearest to bytes (by ratio), or NULL: a call
 * beyond every measured size starts from the nearest measured size's choice. */
static const struct aot_tuning_rule *aot_online_nearest(const struct aot_tuning *t,
                                                        enum aot_coll_kind kind, int comm_size,
                                                        int nhosts, int ppn, uint64_t bytes)
{
    const struct aot_tuning_rule *best = NULL;
    double best_d = HUGE_VAL, b = bytes ? (double) bytes : 1;

    for (size_t i = 0; i < t->n; i++) {
        const struct aot_tuning_rule *r = &t->rules[i];
        double d;
        if ((int) r->kind != (int) kind || comm_size < r->ranks_lo || comm_size > r->ranks_hi)
            continue;
        if (aot_tuning_rule_shaped(r)
            && (nhosts <= 0 || (r->hosts_lo && (nhosts < r->hosts_lo || nhosts > r->hosts_hi))
                || (r->ppn_lo && (ppn < r->ppn_lo || ppn > r->ppn_hi))))
            continue;
        if (bytes < r->bytes_lo)
            d = (double) r->bytes_lo / b;
        else if (bytes > r->bytes_hi)
            d = b / (r->bytes_hi ? (double) r->bytes_hi : 1);
        else
            d = 1;
        if (d < best_d) {
            best_d = d;
            best = r;
        }
    }
    return best;
}

int aot_online_candidates(enum aot_coll_kind kind, uint64_t bytes, int comm_size, int nhosts,
                          int ppn, int commutative, const struct aot_tuning *t,
                          uint64_t shm_bytes, struct aot_coll_choice *out, int max, int *base)
{
    const struct aot_tuning_rule *r
        = t ? aot_tuning_lookup_shape(t, kind, comm_size, nhosts, ppn, bytes) : NULL;
    struct aot_coll_choice c = {(int) kind, 0};
    int n = 0;

    *base = 0;
    n = aot_online_add(out, n, max, &c, comm_size, commutative);
    if (r) {
        /* the table's choice, then what its neighbours chose: the offline tuner measured the
         * call's surroundings, and a crossover may lie a little off where it put it */
        int had = n;
        n = aot_online_add_rule(t, kind, comm_size, nhosts, ppn, bytes, comm_size, commutative,
                                out, n, max);
        if (n > had)
            *base = had;
        if (r->bytes_lo > 0)
            n = aot_online_add_rule(t, kind, comm_size, nhosts, ppn, r->bytes_lo - 1,
                                    comm_size, commutative, out, n, max);
        if (r->bytes_hi < AOT_TUNING_INF_BYTES)
            n = aot_online_add_rule(t, kind, comm_size, nhosts, ppn, r->bytes_hi + 1,
                                    comm_size, commutative, out, n, max);
        if (r->ranks_lo > 1)
            n = aot_online_add_rule(t, kind, comm_size, nhosts, ppn, bytes, r->ranks_lo - 1,
                                    commutative, out, n, max);
        if (r->ranks_hi < AOT_TUNING_INF_RANKS)
            n = aot_online_add_rule(t, kind, comm_size, nhosts, ppn, bytes, r->ranks_hi + 1,
                                    commutative, out, n, max);
        return n;
    }
    if (t && (r = aot_online_nearest(t, kind, comm_size, nhosts, ppn, bytes))) {
        /* no rule for these bytes: the nearest measured size's choice is a candidate (not the
         * base: it was not measured for them), first after native */
        c.alg = r->alg;
        c.param = r->param;
        n = aot_online_add(out, n, max, &c, comm_size, commutative);
    }
    if (shm_bytes && bytes <= shm_bytes)
        n = aot_online_add_specs(kind, "shm", comm_size, commutative, out, n, max);
    return aot_online_add_specs(kind, aot_online_default_set(kind, bytes), comm_size,
                                commutative, out, n, max);
}

void aot_online_bucket_range(int bucket, uint64_t *lo, uint64_t *hi)
{
    if (bucket <= 0) {
        *lo = *hi = 0;
        return;
    }
    *lo = (uint64_t) 1 << (bucket - 1);
    *hi = bucket >= 64 ? UINT64_MAX : ((uint64_t) 1 << bucket) - 1;
}

/* ---------------------------------------------------------------- exact reductions */

int aot_online_exact(enum aot_online_op_class op, enum aot_online_type_class type)
{
    switch (type) {
    case AOT_TY_INT:        /* wrap-around arithmetic and bitwise operations: any order */
        return op <= AOT_OP_BXOR;
    case AOT_TY_LOGICAL:
        return op == AOT_OP_LAND || op == AOT_OP_LOR || op == AOT_OP_LXOR;
    case AOT_TY_BYTE:
        return op == AOT_OP_BAND || op == AOT_OP_BOR || op == AOT_OP_BXOR;
    case AOT_TY_INT_PAIR:   /* a tie of values goes to the lower index, in any order */
        return op == AOT_OP_MINLOC || op == AOT_OP_MAXLOC;
    default:                /* rounding; MIN/MAX and MINLOC/MAXLOC of -0.0 and +0.0, NaN */
        return 0;
    }
}

/* ---------------------------------------------------------------- a session */

static int aot_online_cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

double aot_online_score(double *x, int n)
{
    double sum = 0;
    int m = n / 2 + 1;

    if (m > n)
        m = n;
    qsort(x, (size_t) n, sizeof(*x), aot_online_cmp);
    for (int i = 0; i < m; i++)
        sum += x[i];
    return sum / m;
}

void aot_online_init(struct aot_online_key *k, const struct aot_coll_choice *cand, int n,
                     int base, int win0, double switch_factor)
{
    memset(k, 0, sizeof(*k));
    k->win0 = win0 < 1 ? 1 : win0 > AOT_ONLINE_WINMAX ? AOT_ONLINE_WINMAX : win0;
    k->switch_factor = switch_factor;
    if (n > AOT_ONLINE_MAXCAND)
        n = AOT_ONLINE_MAXCAND;
    k->ncand = n;
    for (int i = 0; i < n; i++) {
        k->cand[i] = cand[i];
        k->score[i] = -1;
    }
    k->base = base > 0 && base < n ? base : 0;
    k->winner = k->base;
    k->second = -1;
    k->cost = -1;
    k->want = 2;              /* calls 0 and 1: is the key heavy? */
    k->phase = n > 1 ? AOT_ONLINE_WARMING : AOT_ONLINE_FIXED;
    k->warm_sample = -1;
    k->ledger = &k->own_ledger;
}

void aot_online_set_floor(struct aot_online_key *k, double floor)
{
    k->floor = floor > 0 ? floor : 0;
}

void aot_online_seed(struct aot_online_key *k)
{
    if (k->ncand < 2 || k->calls > 0)
        return;
    k->phase = AOT_ONLINE_MONITORING;
    k->winner = k->base;
    k->second = -1;
    k->seeded = 1;
    k->n = 0;
    k->want = k->win0;
}

void aot_online_set_budget(struct aot_online_key *k, double budget, double allowance,
                           double *ledger)
{
    k->budget = budget;
    k->allowance = allowance;
    k->ledger = ledger ? ledger : &k->own_ledger;
}

/* Untimed calls before each timed one of a turn while exploring. */
static int aot_online_settle(const struct aot_online_key *k)
{
    return k->heavy ? 0 : AOT_ONLINE_SETTLE;
}

/* The base's cost for the budget, seconds, or a negative value when unknown. */
static double aot_online_ref(const struct aot_online_key *k)
{
    return k->cost > 0 ? k->cost : k->score[k->base];
}

/* What the budget leaves, seconds (HUGE_VAL without a budget or a known cost). */
static double aot_online_left(const struct aot_online_key *k)
{
    double ref = aot_online_ref(k);

    if (k->budget <= 0 || !(ref > 0))
        return HUGE_VAL;
    return k->budget * k->elapsed + k->allowance * ref - *k->ledger;
}

/* The budget for the round about to start: the live candidates whose expected loss (a
 * candidate never tried: one base call per call of its turn; else its best sample's excess over
 * the base) the budget left does not cover leave, in turn order; the base and the leader
 * (lead, -1 before the first round) always stay, and before the first round so does the first
 * other candidate (the bounded start: native, or the table's choice). */
static void aot_online_gate(struct aot_online_key *k, int lead)
{
    double left = aot_online_left(k), ref = aot_online_ref(k);
    int turn = 1 + aot_online_settle(k), kept = 0, first = k->rounds == 0 && !k->tried;

    if (left == HUGE_VAL)
        return;
    for (int i = 0; i < k->nlive; i++) {
        int c = k->live[i];
        double cost = ref * turn;
        if (c == k->base || c == lead) {
            k->live[kept++] = c;
            continue;
        }
        if (k->rounds > 0) {
            double best = k->sample[c][0];
            for (int r = 1; r < k->rounds; r++)
                if (k->sample[c][r] < best)
                    best = k->sample[c][r];
            cost = best > ref ? (best - ref) * turn : 0;
        }
        if (cost <= left || first) {
            first = 0;
            left -= cost;
            k->live[kept++] = c;
        } else {
            k->budget_cut++;
        }
    }
    k->nlive = kept;
    k->want = kept;
}

/* Charges the round's agreed samples (in turn order) to the ledger: each candidate's excess
 * over the base's sample of the same round (or the base's cost), once per call of its turn. */
static void aot_online_charge(struct aot_online_key *k, const double *agreed)
{
    double ref = aot_online_ref(k);
    int turn = 1 + aot_online_settle(k);

    for (int i = 0; i < k->nlive; i++)
        if (k->live[i] == k->base)
            ref = agreed[i];
    if (!(ref > 0))
        return;
    for (int i = 0; i < k->nlive; i++)
        if (k->live[i] != k->base && agreed[i] > ref)
            *k->ledger += (agreed[i] - ref) * turn;
}

struct aot_online_key *aot_online_pick(struct aot_online_key *const *keys, int n)
{
    struct aot_online_key *best = NULL;

    for (int i = 0; i < n; i++)
        if (keys[i] && aot_online_ready(keys[i])
            && (!best || keys[i]->cost > best->cost))
            best = keys[i];
    return best;
}

/* An exploration starts: every candidate is in the race; the first round is one timed call
 * of each. */
static void aot_online_explore(struct aot_online_key *k)
{
    k->phase = AOT_ONLINE_EXPLORING;
    k->nlive = k->ncand;
    for (int i = 0; i < k->ncand; i++)
        k->live[i] = i;
    k->rounds = 0;
    k->round_call = 0;
    k->n = 0;
    k->want = k->nlive;
    aot_online_gate(k, -1);
    if (k->nlive >= 2)
        return;
    /* the budget covers no candidate but the base (a key exploring again: its winner) */
    k->n = 0;
    if (k->tried) {
        k->phase = AOT_ONLINE_MONITORING;
        k->want = k->win0;
    } else {
        k->tried = 1;
        k->phase = AOT_ONLINE_FIXED;
        k->winner = k->base;
    }
}

const struct aot_coll_choice *aot_online_next(struct aot_online_key *k, int may_explore,
                                              int *timed)
{
    uint64_t call = k->calls++;

    k->timed = 0;
    k->may_explore = may_explore;
    switch (k->phase) {
    case AOT_ONLINE_WARMING:
        k->cur = k->base;
        k->timed = call < 2
                   || (call >= AOT_ONLINE_COST_FROM
                       && call < AOT_ONLINE_COST_FROM + AOT_ONLINE_COST_N);
        if (call + 1 < (k->heavy ? AOT_ONLINE_HEAVY_WARMUP : AOT_ONLINE_WARMUP) || !may_explore)
            break;
        /* the last warm-up call: exploring starts with the next one; a heavy key's with this
         * one (its calls 0 and 1 were the base's, timed) */
        aot_online_explore(k);
        if (!k->heavy || k->phase != AOT_ONLINE_EXPLORING)
            break;
        /* fall through */
    case AOT_ONLINE_EXPLORING: {
        /* the live candidates take turns, so that a slow start of the program, or any drift,
         * weighs on all of them alike; each turn is 1 + settle calls, only the last one
         * timed: the first calls of a turn absorb what the previous candidate left behind
         * (ranks leaving it at different times) */
        uint64_t turn = 1 + (uint64_t) aot_online_settle(k);
        k->cur = k->live[k->round_call / turn % (uint64_t) k->nlive];
        k->timed = k->round_call % turn == turn - 1;
        k->round_call++;
        k->explore_calls++;
        break;
    }
    case AOT_ONLINE_MONITORING:
        k->cur = k->winner;
        k->timed = call % AOT_ONLINE_SAMPLE == 0;
        break;
    case AOT_ONLINE_FIXED:
        k->cur = k->winner;
        break;
    }
    *timed = k->timed;
    return &k->cand[k->cur];
}

int aot_online_record(struct aot_online_key *k, double seconds)
{
    if (!k->timed || k->n >= AOT_ONLINE_AGREE_MAX)
        return 0;
    k->buf[k->n++] = seconds;
    return aot_online_due(k);
}

/* The end of exploring: the lowest score wins; anything but the base (native, or the table's
 * choice) must beat the base's score by AOT_ONLINE_MARGIN (a tie goes to the base). */
static void aot_online_select(struct aot_online_key *k)
{
    int best = k->base, second = -1, alt = -1;

    for (int i = 0; i < k->ncand; i++)
        if (i != k->base && k->score[i] >= 0 && (alt < 0 || k->score[i] < k->score[alt]))
            alt = i;
    if (alt >= 0 && k->score[alt] < k->score[k->base] * (1 - AOT_ONLINE_MARGIN))
        best = alt;
    for (int i = 0; i < k->ncand; i++)
        if (i != best && k->score[i] >= 0 && (second < 0 || k->score[i] < k->score[second]))
            second = i;
    k->winner = best;
    k->second = second;
    k->phase = second >= 0 ? AOT_ONLINE_MONITORING : AOT_ONLINE_FIXED;
    k->n = 0;
    k->want = k->win0;
}

/* Candidate c's score from its agreed samples so far. */
static double aot_online_cand_score(const struct aot_online_key *k, int c)
{
    double y[AOT_ONLINE_REPS];
    memcpy(y, k->sample[c], (size_t) k->rounds * sizeof(*y));
    return aot_online_score(y, k->rounds);
}

/* The largest relative spread (max - min) / min of one candidate's agreed samples, the
 * base's warm-up sample among the base's. */
static double aot_online_noise(const struct aot_online_key *k)
{
    double noise = 0;

    for (int c = 0; c < k->ncand; c++) {
        double lo = HUGE_VAL, hi = 0;
        int n = 0;
        if (c == k->base && k->warm_sample > 0) {
            lo = hi = k->warm_sample;
            n = 1;
        }
        for (int r = 0; r < k->rounds; r++) {
            double x = k->sample[c][r];
            if (!(x > 0))
                continue;
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
            n++;
        }
        if (n >= 2 && (hi - lo) / lo > noise)
            noise = (hi - lo) / lo;
    }
    return noise;
}

/* The end of a round of exploring, with its agreed samples (one per live candidate, in turn
 * order): the race, then either the next round or the choice. */
static void aot_online_round(struct aot_online_key *k, const double *agreed)
{
    int lead = -1, left = 0;

    double race = AOT_ONLINE_RACE;
    int race0 = AOT_ONLINE_RACE0, reps = AOT_ONLINE_REPS;

    aot_online_charge(k, agreed);
    for (int i = 0; i < k->nlive; i++)
        k->sample[k->live[i]][k->rounds] = agreed[i];
    k->rounds++;
    if (k->heavy) {
        /* few samples where they agree: the race's factor follows the noise, from round 1 */
        k->noise = aot_online_noise(k);
        race = 1 + (2 * k->noise > AOT_ONLINE_HEAVY_GAP ? 2 * k->noise : AOT_ONLINE_HEAVY_GAP);
        if (race > AOT_ONLINE_RACE)
            race = AOT_ONLINE_RACE;
        race0 = 1;
        reps = AOT_ONLINE_HEAVY_REPS;
    }
    for (int i = 0; i < k->nlive; i++) {
        int c = k->live[i];
        k->score[c] = aot_online_cand_score(k, c);
        if (lead < 0 || k->score[c] < k->score[lead])
            lead = c;
    }
    /* the race: a candidate whose best sample lies above AOT_ONLINE_RACE times the leader's
     * score cannot plausibly win; it keeps the score it has */
    for (int i = 0; i < k->nlive; i++) {
        int c = k->live[i];
        double best = k->sample[c][0];
        for (int r = 1; r < k->rounds; r++)
            if (k->sample[c][r] < best)
                best = k->sample[c][r];
        if (k->rounds >= race0 && c != lead && best > race * k->score[lead])
            k->raced_out++;
        else
            k->live[left++] = c;
    }
    if (k->heavy && left > 2) {
        /* a heavy key's second round: the leader and the best of the others only */
        int next = -1, kept = 0;
        for (int i = 0; i < left; i++)
            if (k->live[i] != lead && (next < 0 || k->score[k->live[i]] < k->score[next]))
                next = k->live[i];
        for (int i = 0; i < left; i++)
            if (k->live[i] == lead || k->live[i] == next)
                k->live[kept++] = k->live[i];
            else
                k->raced_out++;
        left = kept;
    }
    k->nlive = left;
    k->round_call = 0;
    k->n = 0;
    k->want = k->nlive;
    if (k->nlive > 1 && k->rounds < reps)
        aot_online_gate(k, lead);
    if (k->nlive > 1 && k->rounds < reps)
        return;
    k->tried = k->ncand;
    aot_online_select(k);
}

void aot_online_agreed(struct aot_online_key *k, const double *agreed, int n)
{
    double x[AOT_ONLINE_AGREE_MAX];

    if (n <= 0 || n > AOT_ONLINE_AGREE_MAX)
        return;
    k->agreements++;
    if (k->phase == AOT_ONLINE_WARMING) {
        k->n = 0;
        if (k->warm_sample < 0) {
            /* calls 0 and 1: the second (the first may pay for setting up) says whether the
             * key is heavy; a heavy key's cost is it, a light key's comes later */
            k->warm_sample = agreed[n - 1] > 0 ? agreed[n - 1] : 0;
            k->want = AOT_ONLINE_COST_N;
            if (k->warm_sample >= AOT_ONLINE_HEAVY) {
                k->heavy = 1;
                k->cost = k->warm_sample;
            }
            return;
        }
        /* the base's cost: which waiting key explores first */
        memcpy(x, agreed, (size_t) n * sizeof(*x));
        k->cost = aot_online_score(x, n);
        if (k->cost < k->floor) {
            /* too cheap to tune: the base stays, nothing more is timed or agreed */
            k->phase = AOT_ONLINE_FIXED;
            k->winner = k->base;
            k->floored = 1;
        }
        return;
    }
    if (k->phase == AOT_ONLINE_EXPLORING) {
        if (n == k->nlive)
            aot_online_round(k, agreed);
        return;
    }
    if (k->phase != AOT_ONLINE_MONITORING)
        return;
    memcpy(x, agreed, (size_t) n * sizeof(*x));
    /* the same estimator as exploring's scores: a late arrival in one call of the window must
     * not weigh more than it did there */
    int nl = n < AOT_ONLINE_LAST ? n : AOT_ONLINE_LAST;
    double last = aot_online_score(x + n - nl, nl);
    double mean = aot_online_score(x, n);
    k->n = 0;
    if (k->seeded) {
        /* a cached choice: its first window scores it, its second ends the trust */
        if (k->seeded == 1 || k->score[k->winner] < 0) {
            k->score[k->winner] = mean;
            k->seeded = 2;
            k->want = k->want * 2 <= AOT_ONLINE_WINMAX ? k->want * 2 : AOT_ONLINE_WINMAX;
            return;
        }
        if (k->may_explore) {
            k->seeded = 0;
            aot_online_explore(k);
            return;
        }
        return;   /* another key explores: the next window asks again */
    }
    if (k->reexplored < AOT_ONLINE_REEXPLORE && k->may_explore
        && (mean > AOT_ONLINE_STALE * k->score[k->winner]
            || mean * AOT_ONLINE_STALE < k->score[k->winner])) {
        k->reexplored++;
        aot_online_explore(k);
        return;
    }
    if (k->second >= 0 && mean >= k->switch_factor * k->score[k->second]
        && last >= k->switch_factor * k->score[k->second]) {
        int w = k->winner;
        k->score[w] = mean;        /* what the old winner costs now */
        k->winner = k->second;
        k->second = w;
        k->switches++;
        k->want = k->win0;
        return;
    }
    k->want = k->want * 2 <= AOT_ONLINE_WINMAX ? k->want * 2 : AOT_ONLINE_WINMAX;
}

/* ---------------------------------------------------------------- what is saved */

int aot_online_saved(int kind, const struct aot_coll_choice *c, double native_s,
                     double winner_s, int tried, uint64_t calls, struct aot_coll_choice *out,
                     char *note, size_t len)
{
    char name[128];

    out->alg = kind;
    out->param = 0;
    if (c->alg == kind) {
        snprintf(note, len, "online: no candidate beat native, %d candidates, %llu calls", tried,
                 (unsigned long long) calls);
        return 0;
    }
    aot_coll_format_choice(c, name, sizeof(name));
    if (!(native_s > 0 && winner_s > 0)) {
        snprintf(note, len, "online: %s not measured against native: native kept, %d "
                 "candidates, %llu calls", name, tried, (unsigned long long) calls);
        return 0;
    }
    if (!(winner_s < native_s)) {
        snprintf(note, len, "online: %s measured %.2fx slower than native: native kept, %d "
                 "candidates, %llu calls", name, winner_s / native_s, tried,
                 (unsigned long long) calls);
        return 0;
    }
    *out = *c;
    snprintf(note, len, "online: %.2fx faster than native, %d candidates, %llu calls",
             native_s / winner_s, tried, (unsigned long long) calls);
    return 1;
}
