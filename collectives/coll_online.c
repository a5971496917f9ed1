/*
 * coll_online.c: the pure core of online tuning (aot_online.h, docs/online.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"
#include "aot_online.h"
#include "coll_select.h"

/* ---------------------------------------------------------------- candidates */

/* The default sets: a few algorithms per collective and message size, native first, picked
 * from what autoopt-tune found best on shared memory and on the emulated cluster
 * (docs/results/tune-2026-11-25/shm4.tune, docs/results/tune-net1-2026-11-25/net1.tune).
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
    {AOT_COLL_ALLTOALL, 2048, "native,spreading_simple,recursive_doubling,bruck"},
    {AOT_COLL_ALLTOALL, UINT64_MAX, "native,simple,ring_mpi_barrier,pair"},
    {AOT_COLL_ALLTOALLV, UINT64_MAX, "native,simple,spreading_simple,ring_mpi_barrier"},
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

int aot_online_candidates(enum aot_coll_kind kind, uint64_t bytes, int comm_size,
                          int commutative, const struct aot_coll_choice *file_choice,
                          struct aot_coll_choice *out, int max)
{
    const char *s = aot_online_default_set(kind, bytes);
    struct aot_coll_choice c = {(int) kind, 0};
    int n = 0;

    n = aot_online_add(out, n, max, &c, comm_size, commutative);
    if (file_choice)
        n = aot_online_add(out, n, max, file_choice, comm_size, commutative);
    while (*s) {
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

void aot_online_bucket_range(int bucket, uint64_t *lo, uint64_t *hi)
{
    if (bucket <= 0) {
        *lo = *hi = 0;
        return;
    }
    *lo = (uint64_t) 1 << (bucket - 1);
    *hi = bucket >= 64 ? UINT64_MAX : ((uint64_t) 1 << bucket) - 1;
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
                     int win0, double switch_factor)
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
    k->winner = 0;
    k->second = -1;
    k->phase = n > 1 ? AOT_ONLINE_WARMING : AOT_ONLINE_FIXED;
}

const struct aot_coll_choice *aot_online_next(struct aot_online_key *k, int may_explore,
                                              int *timed)
{
    uint64_t call = k->calls++;

    k->timed = 0;
    k->may_explore = may_explore;
    switch (k->phase) {
    case AOT_ONLINE_WARMING:
        k->cur = 0;
        if (call + 1 < AOT_ONLINE_WARMUP || !may_explore)
            break;
        /* the last warm-up call: exploring starts with the next one */
        k->phase = AOT_ONLINE_EXPLORING;
        k->n = 0;
        k->want = k->ncand * AOT_ONLINE_REPS;
        break;
    case AOT_ONLINE_EXPLORING:
        /* the candidates take turns, so that a slow start of the program, or any drift, weighs
         * on all of them alike; each turn is 1 + AOT_ONLINE_SETTLE calls, only the last one
         * timed: the first calls of a turn absorb what the previous candidate left behind
         * (ranks leaving it at different times) */
        k->cur = (int) (k->round_call / (1 + AOT_ONLINE_SETTLE) % (uint64_t) k->ncand);
        k->timed = k->round_call % (1 + AOT_ONLINE_SETTLE) == AOT_ONLINE_SETTLE;
        k->round_call++;
        k->explore_calls++;
        break;
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
    return k->n >= k->want ? k->n : 0;
}

/* The end of exploring: the lowest score wins; anything but native must beat native's score
 * by AOT_ONLINE_MARGIN (a tie goes to MPI's own algorithm). */
static void aot_online_select(struct aot_online_key *k)
{
    int best = 0, second = -1, alt = -1;

    for (int i = 1; i < k->ncand; i++)
        if (k->score[i] >= 0 && (alt < 0 || k->score[i] < k->score[alt]))
            alt = i;
    if (alt > 0 && k->score[alt] < k->score[0] * (1 - AOT_ONLINE_MARGIN))
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

void aot_online_agreed(struct aot_online_key *k, const double *agreed, int n)
{
    double x[AOT_ONLINE_AGREE_MAX];

    if (n <= 0 || n > AOT_ONLINE_AGREE_MAX)
        return;
    k->agreements++;
    memcpy(x, agreed, (size_t) n * sizeof(*x));
    if (k->phase == AOT_ONLINE_EXPLORING) {
        int reps = n / k->ncand;
        for (int c = 0; c < k->ncand; c++) {
            double y[AOT_ONLINE_REPS];
            for (int r = 0; r < reps; r++)
                y[r] = x[c + r * k->ncand];
            k->score[c] = aot_online_score(y, reps);
        }
        k->tried = k->ncand;
        aot_online_select(k);
        return;
    }
    if (k->phase != AOT_ONLINE_MONITORING)
        return;
    /* the same estimator as exploring's scores: a late arrival in one call of the window must
     * not weigh more than it did there */
    int nl = n < AOT_ONLINE_LAST ? n : AOT_ONLINE_LAST;
    double last = aot_online_score(x + n - nl, nl);
    double mean = aot_online_score(x, n);
    k->n = 0;
    if (k->reexplored < AOT_ONLINE_REEXPLORE && k->may_explore
        && (mean > AOT_ONLINE_STALE * k->score[k->winner]
            || mean * AOT_ONLINE_STALE < k->score[k->winner])) {
        k->reexplored++;
        k->phase = AOT_ONLINE_EXPLORING;
        k->round_call = 0;
        k->want = k->ncand * AOT_ONLINE_REPS;
        return;
    }
    if (mean >= k->switch_factor * k->score[k->second]
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
