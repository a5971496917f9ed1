/*
 * test_online.c: the pure core of online tuning (collectives/aot_online.h): the candidate sets,
 * the buckets, and sessions driven by synthetic times on several simulated ranks whose
 * agreement is the element-wise maximum, as MPI_MAX gives it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "aot_config.h"
#include "aot_online.h"
#include "aot_online_run.h"
#include "aot_tuning_file.h"
#include "coll_registry.h"
#include "coll_select.h"

#define NRANKS 3

/* ---------------------------------------------------------------- candidates and buckets */

START_TEST(test_default_sets_parse)
{
    for (int kind = 0; kind < AOT_COLL_NKINDS; kind++)
        for (int b = 0; b < 40; b++) {
            uint64_t bytes = b ? (uint64_t) 1 << (b - 1) : 0;
            const char *s = aot_online_default_set(kind, bytes);
            char buf[256];
            ck_assert_msg(strncmp(s, "native", 6) == 0, "%s: set does not start with native",
                          aot_coll_kind_names[kind]);
            snprintf(buf, sizeof(buf), "%s", s);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                struct aot_coll_choice c;
                char err[256];
                ck_assert_msg(aot_coll_parse_choice(kind, tok, &c, err, sizeof(err)) == 0,
                              "%s %s: %s", aot_coll_kind_names[kind], tok, err);
            }
        }
}
END_TEST

static const char *alg_name(const struct aot_coll_choice *c)
{
    return aot_coll_algs[c->alg].name;
}

static int has_alg(const struct aot_coll_choice *out, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(alg_name(&out[i]), name) == 0)
            return 1;
    return 0;
}

START_TEST(test_candidates)
{
    struct aot_coll_choice out[AOT_ONLINE_MAXCAND];
    int n, base;

    /* no table: native first, then the default set, no repeats */
    n = aot_online_candidates(AOT_COLL_ALLREDUCE, 64, 4, 0, 0, 1, NULL, 0, out, AOT_ONLINE_MAXCAND,
                              &base);
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(base, 0);
    ck_assert_int_eq(out[0].alg, AOT_COLL_ALLREDUCE);
    ck_assert_str_eq(alg_name(&out[1]), "recursive_doubling");
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            ck_assert(out[i].alg != out[j].alg || out[i].param != out[j].param);
    ck_assert(!has_alg(out, n, "shm"));
    /* restrictions: ring needs a commutative operation */
    n = aot_online_candidates(AOT_COLL_ALLREDUCE, 1 << 20, 4, 0, 0, 0, NULL, 0, out,
                              AOT_ONLINE_MAXCAND, &base);
    ck_assert(!has_alg(out, n, "ring"));
    n = aot_online_candidates(AOT_COLL_ALLREDUCE, 1 << 20, 4, 0, 0, 1, NULL, 0, out,
                              AOT_ONLINE_MAXCAND, &base);
    ck_assert_str_eq(alg_name(&out[1]), "ring");
    /* alltoall: pair_light_barrier on a power of two only */
    n = aot_online_candidates(AOT_COLL_ALLTOALL, 32, 4, 0, 0, 1, NULL, 0, out, AOT_ONLINE_MAXCAND,
                              &base);
    ck_assert_int_eq(n, 5);
    ck_assert(has_alg(out, n, "pair_light_barrier"));
    n = aot_online_candidates(AOT_COLL_ALLTOALL, 32, 6, 0, 0, 1, NULL, 0, out, AOT_ONLINE_MAXCAND,
                              &base);
    ck_assert(!has_alg(out, n, "pair_light_barrier"));
    /* the cap */
    n = aot_online_candidates(AOT_COLL_BCAST, 64, 4, 0, 0, 1, NULL, 0, out, 2, &base);
    ck_assert_int_eq(n, 2);
}
END_TEST

/* shm: second after native when all ranks share a host and the call fits the slot, for the
 * collectives that have it and operations it can run */
START_TEST(test_candidates_shm)
{
    struct aot_coll_choice out[AOT_ONLINE_MAXCAND];
    int n, base;

    n = aot_online_candidates(AOT_COLL_ALLREDUCE, 8192, 4, 0, 0, 1, NULL, 8192, out,
                              AOT_ONLINE_MAXCAND, &base);
    ck_assert_int_eq(n, 5);
    ck_assert_int_eq(base, 0);
    ck_assert_str_eq(alg_name(&out[1]), "shm");
    n = aot_online_candidates(AOT_COLL_ALLREDUCE, 8193, 4, 0, 0, 1, NULL, 8192, out,
                              AOT_ONLINE_MAXCAND, &base);
    ck_assert(!has_alg(out, n, "shm"));
    n = aot_online_candidates(AOT_COLL_ALLREDUCE, 64, 4, 0, 0, 0, NULL, 8192, out,
                              AOT_ONLINE_MAXCAND, &base);
    ck_assert(!has_alg(out, n, "shm"));
    n = aot_online_candidates(AOT_COLL_BCAST, 100, 3, 0, 0, 1, NULL, 8192, out, AOT_ONLINE_MAXCAND,
                              &base);
    ck_assert_str_eq(alg_name(&out[1]), "shm");
    n = aot_online_candidates(AOT_COLL_REDUCE, 100, 3, 0, 0, 1, NULL, 8192, out, AOT_ONLINE_MAXCAND,
                              &base);
    ck_assert_str_eq(alg_name(&out[1]), "shm");
    n = aot_online_candidates(AOT_COLL_BARRIER, 0, 3, 0, 0, 1, NULL, 8192, out, AOT_ONLINE_MAXCAND,
                              &base);
    ck_assert_str_eq(alg_name(&out[1]), "shm");
    /* not on several hosts (shm_bytes 0), not for a collective without it */
    n = aot_online_candidates(AOT_COLL_BARRIER, 0, 3, 0, 0, 1, NULL, 0, out, AOT_ONLINE_MAXCAND,
                              &base);
    ck_assert(!has_alg(out, n, "shm"));
    n = aot_online_candidates(AOT_COLL_ALLTOALL, 32, 4, 0, 0, 1, NULL, 8192, out,
                              AOT_ONLINE_MAXCAND, &base);
    ck_assert(!has_alg(out, n, "shm"));
}
END_TEST

/* With a table that has a rule for the call: native, the rule's choice (the base), and the
 * choices of the neighbouring rules, nothing of the default set */
static const char table_text[] =
    "autoopt-tuning 1\n"
    "collective allreduce\n"
    "  ranks 4-4\n"
    "    bytes 0-15 native\n"
    "    bytes 16-8931 recursive_doubling\n"
    "    bytes 8932-17863 reduce_bcast\n"
    "    bytes 17864-35731 ring\n"
    "  ranks 5-8\n"
    "    bytes 0-100 allgather\n"
    "    bytes 101-inf native\n"
    "collective bcast\n"
    "  ranks 4-4\n"
    "    bytes 0-inf native\n";

/* The candidates (names joined by commas) and the base of a call, shm allowed. */
static void expect_cands_on(enum aot_coll_kind kind, uint64_t bytes, int size, int nhosts,
                            int ppn, int commutative, const struct aot_tuning *t,
                            const char *want, int want_base)
{
    struct aot_coll_choice out[AOT_ONLINE_MAXCAND];
    char got[512] = "";
    int base, n = aot_online_candidates(kind, bytes, size, nhosts, ppn, commutative, t, 8192, out,
                                        AOT_ONLINE_MAXCAND, &base);
    for (int i = 0; i < n; i++) {
        char name[128];
        aot_coll_format_choice(&out[i], name, sizeof(name));
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "," : "", name);
    }
    ck_assert_str_eq(got, want);
    ck_assert_int_eq(base, want_base);
}

/* The same on a communicator of unknown shape. */
static void expect_cands(enum aot_coll_kind kind, uint64_t bytes, int size, int commutative,
                         const struct aot_tuning *t, const char *want, int want_base)
{
    expect_cands_on(kind, bytes, size, 0, 0, commutative, t, want, want_base);
}

START_TEST(test_candidates_table)
{
    struct aot_coll_choice out[AOT_ONLINE_MAXCAND];
    struct aot_tuning t;
    char err[256];
    int n, base;

    aot_tuning_init(&t);
    ck_assert_msg(aot_tuning_parse(&t, table_text, sizeof(table_text) - 1, "table", err,
                                   sizeof(err)) == 0, "%s", err);
    /* 64 B: recursive_doubling; below it native, above it reduce_bcast; 5 ranks: allgather */
    expect_cands(AOT_COLL_ALLREDUCE, 64, 4, 1, &t, "native,recursive_doubling,reduce_bcast,"
                 "allgather", 1);
    /* 20000 B: ring, its neighbours reduce_bcast and nothing (above 35731); not shm */
    expect_cands(AOT_COLL_ALLREDUCE, 20000, 4, 1, &t, "native,ring,reduce_bcast", 1);
    /* a choice the call cannot run: ring on a non-commutative operation; native is the base */
    expect_cands(AOT_COLL_ALLREDUCE, 20000, 4, 0, &t, "native,reduce_bcast", 0);
    /* the table says native everywhere around: nothing to explore */
    expect_cands(AOT_COLL_BCAST, 64, 4, 1, &t, "native", 0);
    /* no rule for 3 ranks: the default set, with shm */
    n = aot_online_candidates(AOT_COLL_ALLREDUCE, 64, 3, 0, 0, 1, &t, 8192, out, AOT_ONLINE_MAXCAND,
                              &base);
    ck_assert_int_eq(base, 0);
    ck_assert_str_eq(alg_name(&out[1]), "shm");
    ck_assert_int_gt(n, 3);
    /* beyond every size the table measured (4 ranks, 1 MiB; the last rule ends at 35731): the
     * nearest rule's choice, ring, first after native, not the base; then the default set */
    n = aot_online_candidates(AOT_COLL_ALLREDUCE, 1 << 20, 4, 0, 0, 1, &t, 0, out,
                              AOT_ONLINE_MAXCAND, &base);
    ck_assert_int_eq(base, 0);
    ck_assert_str_eq(alg_name(&out[1]), "ring");
    ck_assert_int_gt(n, 2);
    aot_tuning_free(&t);
}
END_TEST

/* A table written with autoopt-tune --host-shape (the built-in table is): every block is
 * qualified by the hosts and the ranks per host, and a key seeds from the block of its
 * communicator's shape; a key of unknown shape finds no rule and takes the default set. */
static const char shaped_text[] =
    "autoopt-tuning 2\n"
    "collective alltoall\n"
    "  ranks 3-3 hosts 1-1 ppn 3-3\n"
    "    bytes 0-inf bruck\n"
    "  ranks 4-4 hosts 1-1 ppn 4-4\n"
    "    bytes 0-99 spreading_simple\n"
    "    bytes 100-inf simple\n"
    "  ranks 4-4 hosts 4-4 ppn 1-1\n"
    "    bytes 0-inf pair\n"
    "  ranks 5-5 hosts 1-1 ppn 5-5\n"
    "    bytes 0-inf ring_window:w=4\n";

START_TEST(test_candidates_shaped)
{
    struct aot_tuning t;
    char err[256];

    aot_tuning_init(&t);
    ck_assert_msg(aot_tuning_parse(&t, shaped_text, sizeof(shaped_text) - 1, "shaped", err,
                                   sizeof(err)) == 0, "%s", err);
    /* 4 ranks on one host: the block's choice, the size above it, and one host of 3 and of 5
     * ranks */
    expect_cands_on(AOT_COLL_ALLTOALL, 32, 4, 1, 4, 1, &t,
                    "native,spreading_simple,simple,bruck,ring_window:w=4", 1);
    /* 4 hosts of one rank: that block alone (no block for 3 or 5 hosts of one rank) */
    expect_cands_on(AOT_COLL_ALLTOALL, 32, 4, 4, 1, 1, &t, "native,pair", 1);
    /* the shape unknown: no unqualified rule, the default set */
    expect_cands_on(AOT_COLL_ALLTOALL, 32, 4, 0, 0, 1, &t,
                    "native,spreading_simple,recursive_doubling,bruck,pair_light_barrier", 0);
    aot_tuning_free(&t);
}
END_TEST

START_TEST(test_buckets)
{
    uint64_t lo, hi;
    ck_assert_int_eq(aot_online_bucket(0), 0);
    ck_assert_int_eq(aot_online_bucket(1), 1);
    ck_assert_int_eq(aot_online_bucket(2), 2);
    ck_assert_int_eq(aot_online_bucket(3), 2);
    ck_assert_int_eq(aot_online_bucket(1024), 11);
    ck_assert_int_eq(aot_online_bucket(2047), 11);
    ck_assert_int_eq(aot_online_bucket(UINT64_MAX), 64);
    for (int b = 0; b <= 64; b++) {
        aot_online_bucket_range(b, &lo, &hi);
        ck_assert_int_eq(aot_online_bucket(lo), b);
        ck_assert_int_eq(aot_online_bucket(hi), b);
        if (b < 64)
            ck_assert_int_eq(aot_online_bucket(hi + 1), b + 1);
    }
}
END_TEST

START_TEST(test_score)
{
    double x[6] = {5, 1, 9, 2, 3, 100};
    /* best 4 of 6: 1 2 3 5 */
    ck_assert_double_eq_tol(aot_online_score(x, 6), 11.0 / 4, 1e-12);
}
END_TEST

/* ---------------------------------------------------------------- sessions */

/* NRANKS simulated ranks of one key; time(cand, call, rank) gives each call's time. */
struct sim {
    struct aot_online_key k[NRANKS];
    uint64_t calls;
    int may_explore;        /* what the runner would say: no other key explores */
};

typedef double time_fn(int cand, uint64_t call, int rank);

static void sim_init_base(struct sim *s, int ncand, int base, int win0, double factor)
{
    struct aot_coll_choice c[AOT_ONLINE_MAXCAND];
    for (int i = 0; i < ncand; i++) {
        c[i].alg = i;                 /* indices only: the core never looks them up */
        c[i].param = 0;
    }
    for (int r = 0; r < NRANKS; r++)
        aot_online_init(&s->k[r], c, ncand, base, win0, factor);
    s->calls = 0;
    s->may_explore = 1;
}

static void sim_init(struct sim *s, int ncand, int win0, double factor)
{
    sim_init_base(s, ncand, 0, win0, factor);
}

/* One call on every rank; checks that all ranks run the same candidate and time together.
 * Returns the candidate run. */
static int sim_call(struct sim *s, time_fn *t)
{
    int cand = -1, timed0 = -1, need = -1;
    double agreed[AOT_ONLINE_AGREE_MAX];

    for (int r = 0; r < NRANKS; r++) {
        int timed, n;
        const struct aot_coll_choice *c = aot_online_next(&s->k[r], s->may_explore, &timed);
        if (r == 0) {
            cand = c->alg;
            timed0 = timed;
        }
        ck_assert_int_eq(c->alg, cand);
        ck_assert_int_eq(timed, timed0);
        n = timed ? aot_online_record(&s->k[r], t(cand, s->calls, r)) : 0;
        if (r == 0)
            need = n;
        ck_assert_int_eq(n, need);
    }
    if (need > 0) {
        for (int i = 0; i < need; i++) {
            agreed[i] = 0;
            for (int r = 0; r < NRANKS; r++)
                if (s->k[r].buf[i] > agreed[i])
                    agreed[i] = s->k[r].buf[i];
        }
        for (int r = 0; r < NRANKS; r++)
            aot_online_agreed(&s->k[r], agreed, need);
    }
    s->calls++;
    return cand;
}

/* Candidate i takes base[i] microseconds, with rank- and call-dependent noise of up to 5 %
 * and one call in 7 ten times slower on one rank (a late arrival). */
static const double base4[4] = {10, 6, 8, 12};
static double time_noisy(int cand, uint64_t call, int rank)
{
    double noise = 1 + 0.05 * (double) ((call * 7 + (uint64_t) rank * 13) % 11) / 10;
    if (call % 7 == 3 && rank == 1)
        noise *= 10;
    return base4[cand] * noise * 1e-6;
}

START_TEST(test_session_selects)
{
    static struct sim s;
    sim_init(&s, 4, 16, 1.1);
    /* warm-up: native, its cost agreed once */
    for (int i = 0; i < AOT_ONLINE_WARMUP; i++) {
        ck_assert_int_eq(sim_call(&s, time_noisy), 0);
        ck_assert_int_eq(s.k[0].explore_calls, 0);
    }
    /* exploring: the candidates take turns, rounds of 1 + SETTLE calls each; after
     * AOT_ONLINE_RACE0 rounds candidate 1 (6 us) is so far ahead that the others (8 us and
     * more) leave the race and exploring ends */
    for (int i = 0; i < AOT_ONLINE_RACE0; i++)
        for (int c = 0; c < 4; c++)
            for (int j = 0; j <= AOT_ONLINE_SETTLE; j++)
                ck_assert_int_eq(sim_call(&s, time_noisy), c);
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq(s.k[r].phase, AOT_ONLINE_MONITORING);
        ck_assert_int_eq(s.k[r].winner, 1);
        ck_assert_int_eq(s.k[r].second, 2);
        ck_assert_int_eq(s.k[r].tried, 4);
        ck_assert_int_eq(s.k[r].raced_out, 3);
        ck_assert_int_eq((int) s.k[r].explore_calls,
                         4 * AOT_ONLINE_RACE0 * (1 + AOT_ONLINE_SETTLE));
        /* calls 0 and 1 (heavy or not) and the cost's too */
        ck_assert_int_eq((int) s.k[r].agreements, 2 + AOT_ONLINE_RACE0);
    }
    /* the winner stays while it is good; windows double */
    for (int i = 0; i < 4000; i++)
        ck_assert_int_eq(sim_call(&s, time_noisy), 1);
    ck_assert_int_eq(s.k[0].switches, 0);
    ck_assert_int_gt(s.k[0].want, 16);
}
END_TEST

/* Times that depend on the candidate only: fixed_us[cand] microseconds. */
static const double *fixed_us;
static double time_fixed(int cand, uint64_t call, int rank)
{
    (void) call;
    (void) rank;
    return fixed_us[cand] * 1e-6;
}

/* Candidate 1 is 2 % faster than native: not enough to leave MPI's own algorithm. */
static const double close_us[3] = {10, 9.8, 20};

START_TEST(test_margin_keeps_native)
{
    static struct sim s;
    sim_init(&s, 3, 16, 1.1);
    fixed_us = close_us;
    for (int i = 0; i < AOT_ONLINE_WARMUP + 3 * AOT_ONLINE_REPS * (1 + AOT_ONLINE_SETTLE); i++)
        sim_call(&s, time_fixed);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_MONITORING);
    ck_assert_int_eq(s.k[0].winner, 0);
    ck_assert_int_eq(s.k[0].second, 1);
}
END_TEST

/* The winner (candidate 1) becomes 1.5 times slower after call 200: monitor-adapt gives the
 * second best (candidate 2, 8 us) its place, on every rank at the same call. */
static double time_drift(int cand, uint64_t call, int rank)
{
    if (cand == 1 && call >= 200)
        return 9e-6 * (1 + 0.01 * rank);
    return base4[cand] * 1e-6;
}

START_TEST(test_switch)
{
    static struct sim s;
    int switched_at = -1;
    sim_init(&s, 4, 16, 1.1);
    for (int i = 0; i < 1000; i++) {
        int before = s.k[0].winner;
        sim_call(&s, time_drift);
        if (switched_at < 0 && before == 1 && s.k[0].winner != 1)
            switched_at = i;
    }
    ck_assert_int_gt(switched_at, 199);
    /* windows of 16, 32, 64 timed calls (one call in AOT_ONLINE_SAMPLE) follow exploring; the
     * one that straddles the change still has the old times in its better half, the next one
     * switches */
    ck_assert_int_le(switched_at, AOT_ONLINE_WARMUP + 4 * AOT_ONLINE_REPS * (1 + AOT_ONLINE_SETTLE)
                                  + AOT_ONLINE_SAMPLE * (16 + 32 + 64));
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq(s.k[r].winner, 2);
        ck_assert_int_eq(s.k[r].second, 1);
        ck_assert_int_eq(s.k[r].switches, 1);
        ck_assert_int_eq(s.k[r].reexplored, 0);
    }
}
END_TEST

/* The program starts slowly: until call 100 every candidate is several times slower, and
 * candidate 1 looks best; afterwards candidate 2 is.  The first window after exploring is far
 * below the winner's score, so the key explores again, and then picks candidate 2. */
static double time_slow_start(int cand, uint64_t call, int rank)
{
    static const double slow[4] = {50, 30, 60, 80}, fast[4] = {10, 12, 5, 9};
    (void) rank;
    return (call < 100 ? slow[cand] : fast[cand]) * 1e-6;
}

START_TEST(test_stale_scores)
{
    static struct sim s;
    sim_init(&s, 4, 16, 1.1);
    for (int i = 0; i < AOT_ONLINE_WARMUP + 4 * AOT_ONLINE_REPS * (1 + AOT_ONLINE_SETTLE); i++)
        sim_call(&s, time_slow_start);
    ck_assert_int_eq(s.k[0].winner, 1);
    for (int i = 0; i < 2000; i++)
        sim_call(&s, time_slow_start);
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq(s.k[r].reexplored, 1);
        ck_assert_int_eq(s.k[r].winner, 2);
        ck_assert_int_eq(s.k[r].phase, AOT_ONLINE_MONITORING);
        /* both times, the leader is more than AOT_ONLINE_RACE ahead after RACE0 rounds */
        ck_assert_int_eq((int) s.k[r].explore_calls,
                         2 * 4 * AOT_ONLINE_RACE0 * (1 + AOT_ONLINE_SETTLE));
    }
}
END_TEST

/* Times that keep moving by more than AOT_ONLINE_STALE: the key explores again at most
 * AOT_ONLINE_REEXPLORE times, then stays with a winner. */
static double time_erratic(int cand, uint64_t call, int rank)
{
    (void) rank;
    return (double) (cand + 1) * ((call / 50) % 2 ? 1e-6 : 1e-4);
}

START_TEST(test_reexplore_cap)
{
    static struct sim s;
    sim_init(&s, 3, 1, 1.1);
    for (int i = 0; i < 20000; i++)
        sim_call(&s, time_erratic);
    ck_assert_int_eq(s.k[0].reexplored, AOT_ONLINE_REEXPLORE);
    /* each exploration took between RACE0 and REPS rounds of the 3 candidates */
    ck_assert_int_ge((int) s.k[0].explore_calls,
                     (1 + AOT_ONLINE_REEXPLORE) * 3 * AOT_ONLINE_RACE0 * (1 + AOT_ONLINE_SETTLE));
    ck_assert_int_le((int) s.k[0].explore_calls,
                     (1 + AOT_ONLINE_REEXPLORE) * 3 * AOT_ONLINE_REPS * (1 + AOT_ONLINE_SETTLE));
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_MONITORING);
}
END_TEST

/* While another key of the communicator explores, a key past its warm-up waits, native and
 * untimed; it explores when it may, and a key that may not never explores again. */
START_TEST(test_one_explorer)
{
    static struct sim s;
    sim_init(&s, 4, 1, 1.1);
    s.may_explore = 0;
    for (int i = 0; i < 5 * AOT_ONLINE_WARMUP; i++)
        ck_assert_int_eq(sim_call(&s, time_noisy), 0);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_WARMING);
    ck_assert_int_eq((int) s.k[0].explore_calls, 0);
    s.may_explore = 1;
    sim_call(&s, time_noisy);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_EXPLORING);
    for (int i = 0; i < 4 * AOT_ONLINE_REPS * (1 + AOT_ONLINE_SETTLE); i++)
        sim_call(&s, time_noisy);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_MONITORING);
    ck_assert_int_eq(s.k[0].winner, 1);
    /* the erratic times of test_reexplore_cap, with another key exploring all along */
    s.may_explore = 0;
    for (int i = 0; i < 20000; i++)
        sim_call(&s, time_erratic);
    ck_assert_int_eq(s.k[0].reexplored, 0);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_MONITORING);
}
END_TEST

/* Candidates 0 and 1 are within the race's reach of each other (10 and 9 us), candidate 2
 * (30 us) is not: it leaves after AOT_ONLINE_RACE0 rounds, the other two run all
 * AOT_ONLINE_REPS rounds, and candidate 1 wins (10 % faster than native). */
static double time_race(int cand, uint64_t call, int rank)
{
    static const double t[3] = {10, 9, 30};
    double noise = 1 + 0.02 * (double) ((call * 5 + (uint64_t) rank * 3) % 7) / 6;
    return t[cand] * noise * 1e-6;
}

/* The warm-up times AOT_ONLINE_COST_N calls of the base from call AOT_ONLINE_COST_FROM on and
 * agrees on their score, the base's cost; the key stays on its base meanwhile. */
static double time_by_call(int cand, uint64_t call, int rank)
{
    (void) cand;
    return (double) (call + 1 + (uint64_t) rank) * 1e-6;   /* the maximum: rank NRANKS-1 */
}

START_TEST(test_warmup_cost)
{
    static struct sim s;
    double x[AOT_ONLINE_COST_N], want;

    sim_init_base(&s, 3, 2, 16, 1.1);
    for (int i = 0; i < AOT_ONLINE_WARMUP - 1; i++) {
        /* call i is timed when it is one of the cost's */
        /* calls 0 and 1 say whether the key is heavy (it is not: microseconds) */
        int timed = i < 2
                    || (i >= AOT_ONLINE_COST_FROM && i < AOT_ONLINE_COST_FROM + AOT_ONLINE_COST_N);
        ck_assert_int_eq(sim_call(&s, time_by_call), 2);
        ck_assert_int_eq(s.k[0].timed, timed);
        ck_assert_int_eq(aot_online_ready(&s.k[0]), i + 2 >= AOT_ONLINE_WARMUP);
        ck_assert_int_eq((int) s.k[0].agreements,
                         (i >= 1) + (i + 1 >= AOT_ONLINE_COST_FROM + AOT_ONLINE_COST_N));
        ck_assert_int_eq(s.k[0].heavy, 0);
    }
    for (int j = 0; j < AOT_ONLINE_COST_N; j++)
        x[j] = (double) (AOT_ONLINE_COST_FROM + j + 1 + NRANKS - 1) * 1e-6;
    want = aot_online_score(x, AOT_ONLINE_COST_N);
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_double_eq_tol(s.k[r].cost, want, 1e-12);
        ck_assert_int_eq(s.k[r].phase, AOT_ONLINE_WARMING);
        ck_assert_int_eq((int) s.k[r].explore_calls, 0);
    }
    /* a key that may not explore yet keeps its base; when it may, it explores */
    s.may_explore = 0;
    ck_assert_int_eq(sim_call(&s, time_by_call), 2);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_WARMING);
    s.may_explore = 1;
    sim_call(&s, time_by_call);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_EXPLORING);
}
END_TEST

/* aot_online_set_floor (AUTOOPT_TUNE=exact): a key whose agreed warm-up cost is below the
 * floor stays on its base for good, untimed and never agreed again; one above it (or without
 * a floor) waits to explore as before. */
START_TEST(test_floor)
{
    static struct sim s;

    for (int above = 0; above < 2; above++) {
        uint64_t agreed;
        sim_init_base(&s, 3, 2, 16, 1.1);
        for (int r = 0; r < NRANKS; r++)
            aot_online_set_floor(&s.k[r], above ? 1e-9 : 1e-3);   /* costs are ~10 us */
        for (int i = 0; i < AOT_ONLINE_WARMUP - 1; i++)
            ck_assert_int_eq(sim_call(&s, time_by_call), 2);
        for (int r = 0; r < NRANKS; r++) {
            ck_assert(s.k[r].cost > 1e-9 && s.k[r].cost < 1e-3);
            ck_assert_int_eq(s.k[r].phase, above ? AOT_ONLINE_WARMING : AOT_ONLINE_FIXED);
            ck_assert_int_eq(s.k[r].floored, !above);
        }
        agreed = s.k[0].agreements;
        for (int i = 0; i < 200; i++) {
            int alg = sim_call(&s, time_by_call);
            if (!above) {
                ck_assert_int_eq(alg, 2);
                ck_assert_int_eq(s.k[0].timed, 0);
            }
        }
        if (above)
            ck_assert(s.k[0].phase != AOT_ONLINE_WARMING && s.k[0].explore_calls > 0);
        else
            ck_assert_int_eq((int) (s.k[0].agreements - agreed), 0);
    }
}
END_TEST

/* aot_online_seed: a cached choice runs from the first call, monitored (one call in
 * AOT_ONLINE_SAMPLE timed); its first window scores it, and at the end of its second the key
 * explores as any other. */
START_TEST(test_seed)
{
    static struct sim s;
    int first = AOT_ONLINE_SAMPLE * 16, second = first + AOT_ONLINE_SAMPLE * 32;

    sim_init_base(&s, 3, 2, 16, 1.1);
    for (int r = 0; r < NRANKS; r++)
        aot_online_seed(&s.k[r]);
    for (int i = 0; i < second - AOT_ONLINE_SAMPLE; i++) {
        ck_assert_int_eq(sim_call(&s, time_by_call), 2);
        ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_MONITORING);
        ck_assert_int_eq((int) s.k[0].explore_calls, 0);
        ck_assert_int_eq(s.k[0].timed, i % AOT_ONLINE_SAMPLE == 0);
        if (i == first - 1 + AOT_ONLINE_SAMPLE)
            ck_assert(s.k[0].score[2] > 0 && s.k[0].seeded == 2);
    }
    ck_assert_int_eq(s.k[0].score[0], -1);     /* native never ran */
    for (int i = 0; i < 2 * AOT_ONLINE_SAMPLE && s.k[0].phase == AOT_ONLINE_MONITORING; i++)
        sim_call(&s, time_by_call);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_EXPLORING);
    for (int i = 0; i < 400 && s.k[0].phase == AOT_ONLINE_EXPLORING; i++)
        sim_call(&s, time_by_call);
    ck_assert(s.k[0].score[0] > 0 && s.k[0].tried > 1);
}
END_TEST

/* aot_online_pick: the ready key whose base costs most, the first of equals; keys still
 * warming up, exploring or decided are not picked; a cost not agreed counts as nothing. */
START_TEST(test_pick)
{
    static struct aot_online_key k[5];
    struct aot_online_key *keys[7];
    struct aot_coll_choice c[2] = {{0, 0}, {1, 0}};

    for (int i = 0; i < 5; i++) {
        aot_online_init(&k[i], c, 2, 0, 16, 1.1);
        k[i].calls = AOT_ONLINE_WARMUP;        /* warmed up */
    }
    k[0].cost = 5e-6;
    k[1].cost = 9e-6;
    k[1].calls = AOT_ONLINE_WARMUP - 5;        /* costliest, but still warming up */
    k[2].cost = 7e-6;
    k[3].cost = 7e-6;                          /* as costly as k[2], later */
    k[4].cost = 8e-6;
    k[4].phase = AOT_ONLINE_MONITORING;        /* decided */
    keys[0] = &k[0];
    keys[1] = NULL;
    keys[2] = &k[1];
    keys[3] = &k[2];
    keys[4] = NULL;
    keys[5] = &k[3];
    keys[6] = &k[4];
    ck_assert_ptr_eq(aot_online_pick(keys, 7), &k[2]);
    k[2].phase = AOT_ONLINE_EXPLORING;
    ck_assert_ptr_eq(aot_online_pick(keys, 7), &k[3]);
    k[3].cost = -1;                            /* not agreed */
    ck_assert_ptr_eq(aot_online_pick(keys, 7), &k[0]);
    k[0].cost = -1;
    ck_assert_ptr_eq(aot_online_pick(keys, 7), &k[0]);
    k[0].phase = k[3].phase = AOT_ONLINE_FIXED;
    ck_assert_ptr_null(aot_online_pick(keys, 7));
    k[1].calls = AOT_ONLINE_WARMUP - 1;        /* its next call ends the warm-up */
    ck_assert_ptr_eq(aot_online_pick(keys, 7), &k[1]);
}
END_TEST

START_TEST(test_race)
{
    static struct sim s;
    int seen2 = 0;
    sim_init(&s, 3, 16, 1.1);
    for (int i = 0; i < AOT_ONLINE_WARMUP; i++)
        sim_call(&s, time_race);
    for (int i = 0; i < AOT_ONLINE_RACE0 * 3 * (1 + AOT_ONLINE_SETTLE); i++)
        seen2 += sim_call(&s, time_race) == 2;
    ck_assert_int_eq(seen2, AOT_ONLINE_RACE0 * (1 + AOT_ONLINE_SETTLE));
    ck_assert_int_eq(s.k[0].nlive, 2);
    /* the remaining rounds: 0 and 1 take turns, 2 is not run */
    for (int i = 0; i < (AOT_ONLINE_REPS - AOT_ONLINE_RACE0) * 2 * (1 + AOT_ONLINE_SETTLE); i++)
        ck_assert_int_ne(sim_call(&s, time_race), 2);
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq(s.k[r].phase, AOT_ONLINE_MONITORING);
        ck_assert_int_eq(s.k[r].winner, 1);
        ck_assert_int_eq(s.k[r].second, 0);
        ck_assert_int_eq(s.k[r].raced_out, 1);
        ck_assert_int_eq((int) s.k[r].agreements, 2 + AOT_ONLINE_REPS);
        ck_assert_int_eq((int) s.k[r].explore_calls,
                         (3 * AOT_ONLINE_RACE0 + 2 * (AOT_ONLINE_REPS - AOT_ONLINE_RACE0))
                         * (1 + AOT_ONLINE_SETTLE));
        /* the candidate that left keeps the score it had */
        ck_assert(s.k[r].score[2] > 25e-6);
    }
}
END_TEST

/* A key that starts from a table's choice (base 1): it runs that choice in warm-up and while
 * it waits, and a candidate must beat it, not native, by the margin. */
static const double base_us[3] = {9.8, 10, 20}, base_beaten_us[3] = {20, 10, 9};

START_TEST(test_base)
{
    static struct sim s;
    sim_init_base(&s, 3, 1, 16, 1.1);
    fixed_us = base_us;
    s.may_explore = 0;
    for (int i = 0; i < 3 * AOT_ONLINE_WARMUP; i++)
        ck_assert_int_eq(sim_call(&s, time_fixed), 1);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_WARMING);
    s.may_explore = 1;
    for (int i = 0; i < 3 * AOT_ONLINE_REPS * (1 + AOT_ONLINE_SETTLE) + 1; i++)
        sim_call(&s, time_fixed);
    /* native is 2 % faster than the table's choice: not enough */
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq(s.k[r].phase, AOT_ONLINE_MONITORING);
        ck_assert_int_eq(s.k[r].winner, 1);
        ck_assert_int_eq(s.k[r].second, 0);
    }
    /* candidate 2 is 10 % faster than the table's choice: it wins */
    sim_init_base(&s, 3, 1, 16, 1.1);
    fixed_us = base_beaten_us;
    for (int i = 0; i < AOT_ONLINE_WARMUP + 3 * AOT_ONLINE_REPS * (1 + AOT_ONLINE_SETTLE); i++)
        sim_call(&s, time_fixed);
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq(s.k[r].phase, AOT_ONLINE_MONITORING);
        ck_assert_int_eq(s.k[r].winner, 2);
        ck_assert_int_eq(s.k[r].second, 1);
    }
}
END_TEST

START_TEST(test_single_candidate)
{
    static struct sim s;
    sim_init(&s, 1, 16, 1.1);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(sim_call(&s, time_noisy), 0);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_FIXED);
    ck_assert_int_eq((int) s.k[0].agreements, 0);
}
END_TEST

/* ---------------------------------------------------------------- what is saved */

/* What AUTOOPT_TUNE_SAVE would save for rank r's key (as coll_online_run.c's records take it:
 * the choice in force and the agreed scores of native and of that choice), the simulated
 * candidates standing for native (0) and the allreduce algorithms of names[] (1, 2). */
static int saved_of(const struct aot_online_key *k, const char *const *names,
                    struct aot_coll_choice *out, char *note, size_t len)
{
    struct aot_coll_choice c = {AOT_COLL_ALLREDUCE, 0};
    char err[256];

    if (k->winner > 0)
        ck_assert_int_eq(aot_coll_parse_choice(AOT_COLL_ALLREDUCE, names[k->winner], &c, err,
                                               sizeof(err)), 0);
    return aot_online_saved(AOT_COLL_ALLREDUCE, &c, k->score[0], k->score[k->winner],
                            k->tried, k->calls, out, note, len);
}

/* Candidate 1 is twice as fast as native until call 300, then 3.6 times slower (the machine
 * or the program changed): its windows are then far from its score and the key explores
 * again, rescoring every candidate while candidate 1 is still the choice in force. */
static double time_turns(int cand, uint64_t call, int rank)
{
    static const double before[3] = {10, 5, 20}, after[3] = {10, 36, 20};
    (void) rank;
    return (call < 300 ? before[cand] : after[cand]) * 1e-6;
}

START_TEST(test_saved_never_slower)
{
    static const char *const names[3] = {"native", "recursive_doubling", "reduce_bcast"};
    static struct sim s;
    struct aot_coll_choice out;
    char note[160];
    int i;

    sim_init(&s, 3, 16, 1.1);
    for (i = 0; i < 300; i++)
        sim_call(&s, time_turns);
    ck_assert_int_eq(s.k[0].winner, 1);
    ck_assert_int_eq(saved_of(&s.k[0], names, &out, note, sizeof(note)), 1);
    ck_assert_str_eq(aot_coll_algs[out.alg].name, "recursive_doubling");
    ck_assert_msg(strstr(note, "online: 2.00x faster than native"), "note: %s", note);
    /* on until the first round of the new exploration is agreed: a job that ends here has
     * candidate 1 in force and scores that say it is 3.6 times slower than native (the file
     * once said "0.28x faster than native") */
    for (; i < 5000 && !(s.k[0].reexplored == 1 && s.k[0].rounds == 1); i++)
        sim_call(&s, time_turns);
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq(s.k[r].phase, AOT_ONLINE_EXPLORING);
        ck_assert_int_eq(s.k[r].winner, 1);
        ck_assert_double_eq_tol(s.k[r].score[0] / s.k[r].score[1], 10.0 / 36, 1e-9);
        ck_assert_int_eq(saved_of(&s.k[r], names, &out, note, sizeof(note)), 0);
        ck_assert_int_eq(out.alg, AOT_COLL_ALLREDUCE);
        ck_assert_int_eq(out.param, 0);
        ck_assert_msg(strstr(note, "recursive_doubling measured 3.60x slower than native: "
                                   "native kept"), "note: %s", note);
    }
    /* the new exploration ends: native is chosen and saved */
    for (int j = 0; j < 200; j++)
        sim_call(&s, time_turns);
    ck_assert_int_eq(s.k[0].phase, AOT_ONLINE_MONITORING);
    ck_assert_int_eq(s.k[0].winner, 0);
    ck_assert_int_eq(saved_of(&s.k[0], names, &out, note, sizeof(note)), 0);
    ck_assert_int_eq(out.alg, AOT_COLL_ALLREDUCE);
    ck_assert_msg(strstr(note, "no candidate beat native"), "note: %s", note);

    /* the table's choice keeps a tie within the margin: native 2 % faster is not saved over */
    sim_init_base(&s, 3, 1, 16, 1.1);
    fixed_us = base_us;
    for (i = 0; i < AOT_ONLINE_WARMUP + 3 * AOT_ONLINE_REPS * (1 + AOT_ONLINE_SETTLE); i++)
        sim_call(&s, time_fixed);
    ck_assert_int_eq(s.k[0].winner, 1);
    ck_assert_int_eq(saved_of(&s.k[0], names, &out, note, sizeof(note)), 0);
    ck_assert_int_eq(out.alg, AOT_COLL_ALLREDUCE);
    ck_assert_msg(strstr(note, "1.02x slower than native"), "note: %s", note);

    /* not measured against native: native */
    struct aot_coll_choice rd = {AOT_COLL_ALLREDUCE, 0};
    char err[256];
    ck_assert_int_eq(aot_coll_parse_choice(AOT_COLL_ALLREDUCE, "recursive_doubling", &rd, err,
                                           sizeof(err)), 0);
    ck_assert_int_eq(aot_online_saved(AOT_COLL_ALLREDUCE, &rd, -1, 1e-6, 3, 100, &out, note,
                                      sizeof(note)), 0);
    ck_assert_int_eq(out.alg, AOT_COLL_ALLREDUCE);
    ck_assert_int_eq(aot_online_saved(AOT_COLL_ALLREDUCE, &rd, 1e-6, 1e-6, 3, 100, &out, note,
                                      sizeof(note)), 0);
}
END_TEST

/* ---------------------------------------------------------------- few samples, the budget */

/* Heavy calls (seconds): candidate i takes heavy_s[i], with up to 2 % noise by call and rank. */
static const double *heavy_s;
static double time_heavy(int cand, uint64_t call, int rank)
{
    double noise = 1 + 0.02 * (double) ((call * 5 + (uint64_t) rank * 3) % 7) / 6;
    return heavy_s[cand] * noise;
}

/* A key whose calls cost a second (an FFT's alltoall) decides from one sample per candidate
 * when they are far apart: calls 0 and 1 on the base, one turn of one call per candidate from
 * call 2 on, the winner from the call after. */
START_TEST(test_heavy_few_samples)
{
    static const double t[4] = {1.0, 0.6, 0.9, 1.3};
    static struct sim s;

    heavy_s = t;
    sim_init(&s, 4, 16, 1.1);
    ck_assert_int_eq(sim_call(&s, time_heavy), 0);
    ck_assert_int_eq(sim_call(&s, time_heavy), 0);
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq(s.k[r].heavy, 1);
        ck_assert(aot_online_ready(&s.k[r]));
    }
    for (int c = 0; c < 4; c++) {
        ck_assert_int_eq(sim_call(&s, time_heavy), c);
        ck_assert_int_eq(s.k[0].timed, 1);      /* a turn is one call, timed */
    }
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq(s.k[r].phase, AOT_ONLINE_MONITORING);
        ck_assert_int_eq(s.k[r].winner, 1);
        ck_assert_int_eq((int) s.k[r].explore_calls, 4);
        ck_assert_int_eq(s.k[r].raced_out, 3);
    }
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(sim_call(&s, time_heavy), 1);
}
END_TEST

/* Heavy candidates within the noise of each other take a second round, of the leader and
 * the best other only, and no more: 2 + 4 + 2 calls; candidates 1-2 % faster than native do
 * not displace it (the margin is 3 %). */
START_TEST(test_heavy_close)
{
    static const double t[4] = {1.0, 0.99, 0.98, 2.0};
    static struct sim s;

    heavy_s = t;
    sim_init(&s, 4, 16, 1.1);
    for (int i = 0; i < 2 + 4 + 2; i++)
        sim_call(&s, time_heavy);
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq((int) s.k[r].explore_calls, 4 + 2);
        ck_assert_int_eq(s.k[r].rounds, AOT_ONLINE_HEAVY_REPS);
        ck_assert_int_eq(s.k[r].phase, AOT_ONLINE_MONITORING);
        ck_assert_int_eq(s.k[r].winner, 0);
        ck_assert_int_eq(s.k[r].raced_out, 2);
    }
}
END_TEST

/* Light calls whose candidates all lose (3x slower than native, 10 us) with a budget: the
 * loss charged stays within budget x elapsed + allowance x cost + one turn of the first
 * candidate (the bounded start), the others are passed over, native is kept. */
static double time_all_lose(int cand, uint64_t call, int rank)
{
    (void) call;
    (void) rank;
    return (cand == 0 ? 10 : 30) * 1e-6;
}

START_TEST(test_budget_cut)
{
    static struct sim s;
    double ledger = 0, bound;

    sim_init(&s, 5, 16, 1.1);
    for (int r = 0; r < NRANKS; r++)
        aot_online_set_budget(&s.k[r], AOT_ONLINE_BUDGET, AOT_ONLINE_ALLOWANCE, NULL);
    for (int i = 0; i < 20000; i++) {
        /* the program is this key: 10 us a call */
        for (int r = 0; r < NRANKS; r++)
            s.k[r].elapsed = (double) s.calls * 10e-6;
        sim_call(&s, time_all_lose);
        ledger = *s.k[0].ledger;
        bound = AOT_ONLINE_BUDGET * (double) s.calls * 10e-6 + AOT_ONLINE_ALLOWANCE * 10e-6
                + (1 + AOT_ONLINE_SETTLE) * 20e-6;
        ck_assert_msg(ledger <= bound + 1e-12, "call %d: loss %g s over the bound %g s", i,
                      ledger, bound);
    }
    for (int r = 0; r < NRANKS; r++) {
        ck_assert_int_eq(s.k[r].winner, 0);
        ck_assert_int_ge(s.k[r].budget_cut, 3);
        ck_assert_double_eq_tol(*s.k[r].ledger, ledger, 1e-15);
    }
    /* without the budget every candidate is run */
    sim_init(&s, 5, 16, 1.1);
    for (int i = 0; i < 200; i++)
        sim_call(&s, time_all_lose);
    ck_assert_int_eq(s.k[0].budget_cut, 0);
    ck_assert_int_ge((int) s.k[0].explore_calls, 5 * AOT_ONLINE_RACE0 * (1 + AOT_ONLINE_SETTLE));
}
END_TEST

/* aot_online_exact over every class pair, and the classes of every predefined operation and
 * datatype (aot_online_op_class, aot_online_type_class): exact are integers with arithmetic,
 * bitwise and logical operations, logicals with logical ones, bytes with bitwise ones,
 * integer pairs with MINLOC/MAXLOC; nothing of floating point, not even MIN/MAX. */
START_TEST(test_exact_classes)
{
    static const struct { MPI_Op op; const char *name; } ops[] = {
        {MPI_SUM, "sum"}, {MPI_PROD, "prod"}, {MPI_MIN, "min"}, {MPI_MAX, "max"},
        {MPI_LAND, "land"}, {MPI_LOR, "lor"}, {MPI_LXOR, "lxor"}, {MPI_BAND, "band"},
        {MPI_BOR, "bor"}, {MPI_BXOR, "bxor"}, {MPI_MINLOC, "minloc"}, {MPI_MAXLOC, "maxloc"},
        {MPI_REPLACE, "replace"}, {MPI_NO_OP, "no_op"}, {MPI_OP_NULL, "null"},
    };
    /* kind: i integer, f floating, c complex, l logical, b byte, p integer pair, q floating
     * pair, o other */
    static const struct { MPI_Datatype dt; char kind; } types[] = {
        {MPI_INT, 'i'}, {MPI_LONG, 'i'}, {MPI_SHORT, 'i'}, {MPI_UNSIGNED_SHORT, 'i'},
        {MPI_UNSIGNED, 'i'}, {MPI_UNSIGNED_LONG, 'i'}, {MPI_LONG_LONG_INT, 'i'},
        {MPI_LONG_LONG, 'i'}, {MPI_UNSIGNED_LONG_LONG, 'i'}, {MPI_SIGNED_CHAR, 'i'},
        {MPI_UNSIGNED_CHAR, 'i'}, {MPI_INT8_T, 'i'}, {MPI_INT16_T, 'i'}, {MPI_INT32_T, 'i'},
        {MPI_INT64_T, 'i'}, {MPI_UINT8_T, 'i'}, {MPI_UINT16_T, 'i'}, {MPI_UINT32_T, 'i'},
        {MPI_UINT64_T, 'i'}, {MPI_AINT, 'i'}, {MPI_OFFSET, 'i'}, {MPI_COUNT, 'i'},
        {MPI_FLOAT, 'f'}, {MPI_DOUBLE, 'f'}, {MPI_LONG_DOUBLE, 'f'},
        {MPI_C_FLOAT_COMPLEX, 'c'}, {MPI_C_COMPLEX, 'c'}, {MPI_C_DOUBLE_COMPLEX, 'c'},
        {MPI_C_LONG_DOUBLE_COMPLEX, 'c'}, {MPI_C_BOOL, 'l'}, {MPI_BYTE, 'b'},
        {MPI_2INT, 'p'}, {MPI_SHORT_INT, 'p'}, {MPI_LONG_INT, 'p'},
        {MPI_FLOAT_INT, 'q'}, {MPI_DOUBLE_INT, 'q'}, {MPI_LONG_DOUBLE_INT, 'q'},
        {MPI_CHAR, 'o'}, {MPI_WCHAR, 'o'}, {MPI_PACKED, 'o'}, {MPI_DATATYPE_NULL, 'o'},
        {MPI_INTEGER, 'o'}, {MPI_REAL, 'o'}, {MPI_DOUBLE_PRECISION, 'o'}, {MPI_LOGICAL, 'o'},
        {MPI_2REAL, 'o'}, {MPI_CXX_BOOL, 'o'}, {MPI_CXX_DOUBLE_COMPLEX, 'o'},
    };
    int nexact = 0;

    for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
        for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
            const char *op = ops[o].name;
            char kind = types[t].kind;
            int arith = !strcmp(op, "sum") || !strcmp(op, "prod") || !strcmp(op, "min")
                        || !strcmp(op, "max");
            int logical = !strcmp(op, "land") || !strcmp(op, "lor") || !strcmp(op, "lxor");
            int bitwise = !strcmp(op, "band") || !strcmp(op, "bor") || !strcmp(op, "bxor");
            int loc = !strcmp(op, "minloc") || !strcmp(op, "maxloc");
            int want = (kind == 'i' && (arith || logical || bitwise))
                       || (kind == 'l' && logical) || (kind == 'b' && bitwise)
                       || (kind == 'p' && loc);
            int got = aot_online_exact(aot_online_op_class(ops[o].op),
                                       aot_online_type_class(types[t].dt));
            ck_assert_msg(got == want, "op %s, type #%zu (%c): exact %d, expected %d", op, t,
                          kind, got, want);
            nexact += got;
        }
    ck_assert_int_eq(nexact, 22 * 10 + 3 + 3 + 3 * 2);
    /* the classes alone, every pair */
    for (int o = 0; o < AOT_OP_NCLASSES; o++)
        for (int t = 0; t < AOT_TY_NCLASSES; t++) {
            int want = (t == AOT_TY_INT && o <= AOT_OP_BXOR)
                       || (t == AOT_TY_LOGICAL && (o == AOT_OP_LAND || o == AOT_OP_LOR
                                                   || o == AOT_OP_LXOR))
                       || (t == AOT_TY_BYTE && (o == AOT_OP_BAND || o == AOT_OP_BOR
                                                || o == AOT_OP_BXOR))
                       || (t == AOT_TY_INT_PAIR && (o == AOT_OP_MINLOC || o == AOT_OP_MAXLOC));
            ck_assert_int_eq(aot_online_exact(o, t), want);
        }
}
END_TEST

static Suite *online_suite(void)
{
    Suite *s = suite_create("online");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_default_sets_parse);
    tcase_add_test(tc, test_candidates);
    tcase_add_test(tc, test_candidates_shm);
    tcase_add_test(tc, test_candidates_table);
    tcase_add_test(tc, test_candidates_shaped);
    tcase_add_test(tc, test_buckets);
    tcase_add_test(tc, test_score);
    tcase_add_test(tc, test_session_selects);
    tcase_add_test(tc, test_margin_keeps_native);
    tcase_add_test(tc, test_switch);
    tcase_add_test(tc, test_stale_scores);
    tcase_add_test(tc, test_reexplore_cap);
    tcase_add_test(tc, test_one_explorer);
    tcase_add_test(tc, test_race);
    tcase_add_test(tc, test_warmup_cost);
    tcase_add_test(tc, test_floor);
    tcase_add_test(tc, test_seed);
    tcase_add_test(tc, test_pick);
    tcase_add_test(tc, test_base);
    tcase_add_test(tc, test_single_candidate);
    tcase_add_test(tc, test_saved_never_slower);
    tcase_add_test(tc, test_heavy_few_samples);
    tcase_add_test(tc, test_heavy_close);
    tcase_add_test(tc, test_budget_cut);
    tcase_add_test(tc, test_exact_classes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(online_suite());
    int failed;
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
