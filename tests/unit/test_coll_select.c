/*
 * test_coll_select.c: the algorithm registry, the "name[:param=value]" syntax and the pure
 * decision function of collectives/ (coll_registry.c, coll_select.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"
#include "aot_tuning_file.h"
#include "coll_engines.h"
#include "coll_registry.h"
#include "coll_select.h"
#include "coll_util.h"

static int find(enum aot_coll_kind kind, const char *name)
{
    return aot_coll_find(kind, name, strlen(name));
}

static void policy_init(struct aot_coll_policy *pol)
{
    memset(pol, 0, sizeof(*pol));
    for (int k = 0; k < AOT_COLL_NKINDS; k++)
        pol->forced[k] = -1;
}

/* ---------------------------------------------------------------- registry */

START_TEST(test_registry_natives_first)
{
    for (int k = 0; k < AOT_COLL_NKINDS; k++) {
        ck_assert_int_eq(aot_coll_algs[k].kind, k);
        ck_assert_str_eq(aot_coll_algs[k].name, "native");
        ck_assert_int_eq(find(k, "native"), k);
    }
}
END_TEST

START_TEST(test_registry_entries)
{
    for (int i = 0; i < aot_coll_nalgs; i++) {
        const struct aot_coll_alg *a = &aot_coll_algs[i];
        const struct aot_coll_param *par = &a->param;
        int reduction = a->kind == AOT_COLL_ALLREDUCE || a->kind == AOT_COLL_REDUCE;
        ck_assert_ptr_nonnull(a->fn.allreduce);
        ck_assert_ptr_nonnull(a->summary);
        /* names are unique within a collective */
        ck_assert_int_eq(find(a->kind, a->name), i);
        ck_assert_uint_eq(a->restrictions & ~(unsigned) (AOT_R_COMMUTATIVE | AOT_R_POF2), 0);
        /* only reductions care about commutativity; autoopt's own reductions fix their
         * order of operations, except those whose order follows the placement of ranks on
         * hosts and switches (shm, near_first, far_first), which therefore need a commutative
         * operation */
        int placed = !strcmp(a->name, "shm") || !strcmp(a->name, "near_first")
                     || !strcmp(a->name, "far_first");
        if (!reduction)
            ck_assert_uint_eq(a->restrictions & AOT_R_COMMUTATIVE, 0);
        if (reduction && i >= AOT_COLL_NKINDS && !placed)
            ck_assert_uint_eq(a->properties & AOT_P_ORDERED, AOT_P_ORDERED);
        if (reduction && placed) {
            ck_assert_uint_eq(a->properties & AOT_P_ORDERED, 0);
            ck_assert_uint_eq(a->restrictions, AOT_R_COMMUTATIVE);
        }
        if (par->name) {
            ck_assert_int_ge(par->dflt, par->min);
            ck_assert_int_le(par->dflt, par->max);
            ck_assert_int_ge(par->ntune, 1);
            ck_assert_int_le(par->ntune, AOT_COLL_MAXTUNE);
            for (int v = 0; v < par->ntune; v++) {
                ck_assert_int_ge(par->tune[v], par->min);
                ck_assert_int_le(par->tune[v], par->max);
            }
        } else {
            ck_assert_int_eq(par->ntune, 0);
        }
    }
}
END_TEST

START_TEST(test_registry_contents)
{
    /* the list, collective by collective */
    static const char *const want[][16] = {
        [AOT_COLL_ALLREDUCE] = {"reduce_bcast", "allgather", "recursive_doubling", "rabenseifner",
                                "rabenseifner_v1", "rabenseifner_v2", "ring", "shm", NULL},
        [AOT_COLL_BCAST] = {"linear", "binomial", "binary", "split_binary", "chain",
                            "scatter_allgather", "imamura_binomial", "imamura_vandegeijn",
                            "imamura_hybrid1", "shm", NULL},
        [AOT_COLL_REDUCE] = {"linear", "binomial", "binary", "chain", "rabenseifner", "shm",
                             NULL},
        [AOT_COLL_ALLGATHER] = {"simple", "spreading_simple", "ring", "ring_light_barrier",
                                "ring_mpi_barrier", "ring_n_barriers", "pair",
                                "pair_light_barrier", "pair_mpi_barrier", "pair_n_barriers",
                                "mesh2d", "mesh3d", "recursive_doubling", "bruck",
                                "gather_bcast", NULL},
        [AOT_COLL_ALLGATHERV] = {"simple", "recursive_doubling", "ring", "ring_light_barrier",
                                 "ring_mpi_barrier", "ring_n_barriers", "pair",
                                 "pair_light_barrier", "pair_mpi_barrier", "pair_n_barriers",
                                 NULL},
        [AOT_COLL_ALLTOALL] = {"simple", "spreading_simple", "mesh2d", "mesh3d",
                               "recursive_doubling", "bruck", "ring", "ring_light_barrier",
                               "ring_mpi_barrier", "ring_n_barriers", "pair",
                               "pair_light_barrier", "pair_mpi_barrier", "pair_n_barriers",
                               NULL},
        [AOT_COLL_ALLTOALLV] = {"simple", "spreading_simple", "ring", "ring_light_barrier",
                                "ring_mpi_barrier", "ring_n_barriers", "pair",
                                "pair_light_barrier", "pair_mpi_barrier", "pair_n_barriers",
                                NULL},
        [AOT_COLL_BARRIER] = {"linear", "dissemination", "recursive_doubling", "tree", "shm",
                              NULL},
    };
    for (int k = 0; k < AOT_COLL_NKINDS; k++)
        for (int j = 0; want[k][j]; j++)
            ck_assert_msg(find(k, want[k][j]) >= 0, "%s %s not registered",
                          aot_coll_kind_names[k], want[k][j]);
    ck_assert_uint_eq(aot_coll_algs[find(AOT_COLL_ALLREDUCE, "ring")].restrictions,
                      AOT_R_COMMUTATIVE);
    ck_assert_uint_eq(aot_coll_algs[find(AOT_COLL_ALLTOALL, "pair")].restrictions, AOT_R_POF2);
    ck_assert_int_eq(find(AOT_COLL_ALLREDUCE, "pair"), -1);
    ck_assert_int_eq(aot_coll_find_kind("alltoallv", 9), AOT_COLL_ALLTOALLV);
    ck_assert_int_eq(aot_coll_find_kind("scatter", 7), -1);
}
END_TEST

/* ---------------------------------------------------------------- name[:param=value] */

START_TEST(test_parse_choice_good)
{
    struct aot_coll_choice c;
    char err[512];

    ck_assert_int_eq(aot_coll_parse_choice(AOT_COLL_ALLREDUCE, "ring", &c, err, sizeof(err)), 0);
    ck_assert_int_eq(c.alg, find(AOT_COLL_ALLREDUCE, "ring"));
    ck_assert_int_eq(c.param, 0);
    ck_assert_int_eq(aot_coll_parse_choice(AOT_COLL_ALLTOALL, "ring_n_barriers:n=3", &c, err,
                                           sizeof(err)), 0);
    ck_assert_int_eq(c.alg, find(AOT_COLL_ALLTOALL, "ring_n_barriers"));
    ck_assert_int_eq(c.param, 3);
    /* the default when the parameter is left out */
    ck_assert_int_eq(aot_coll_parse_choice(AOT_COLL_ALLTOALL, "ring_n_barriers", &c, err,
                                           sizeof(err)), 0);
    ck_assert_int_eq(c.param, aot_coll_algs[c.alg].param.dflt);
    ck_assert_int_eq(aot_coll_parse_choice(AOT_COLL_BCAST, "chain:segment=64K", &c, err,
                                           sizeof(err)), 0);
    ck_assert_int_eq(c.param, 65536);
    ck_assert_int_eq(aot_coll_parse_choice(AOT_COLL_BARRIER, "native", &c, err, sizeof(err)), 0);
    ck_assert_int_eq(c.alg, AOT_COLL_BARRIER);
}
END_TEST

START_TEST(test_parse_choice_bad)
{
    static const struct { int kind; const char *spec, *msg; } cases[] = {
        {AOT_COLL_ALLTOALL, "ring_n_barriers:n=0", "n must be an integer 1..1048576"},
        {AOT_COLL_ALLTOALL, "ring_n_barriers:n=", "n must be an integer 1..1048576"},
        {AOT_COLL_ALLTOALL, "ring_n_barriers:n=3x", "n must be an integer 1..1048576"},
        {AOT_COLL_ALLTOALL, "ring_n_barriers:n=-1", "n must be an integer 1..1048576"},
        {AOT_COLL_ALLTOALL, "ring_n_barriers:m=3", "expected 'ring_n_barriers:n=<value>'"},
        {AOT_COLL_ALLTOALL, "ring_n_barriers:", "expected 'ring_n_barriers:n=<value>'"},
        {AOT_COLL_ALLREDUCE, "ring:n=2", "ring takes no parameter"},
        {AOT_COLL_BARRIER, "tree:k=1", "k must be an integer 2..1024"},
        {AOT_COLL_ALLREDUCE, "", "unknown algorithm (known: native, reduce_bcast, allgather, "
                                 "recursive_doubling, rabenseifner, rabenseifner_v1, "
                                 "rabenseifner_v2, ring, shm)"},
        {AOT_COLL_BARRIER, "fast", "unknown algorithm (known: native, linear, dissemination, "
                                   "recursive_doubling, tree, shm)"},
        {AOT_COLL_ALLREDUCE, "Ring", "unknown algorithm (known: native, reduce_bcast, "
                                     "allgather, recursive_doubling, rabenseifner, "
                                     "rabenseifner_v1, rabenseifner_v2, ring, shm)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct aot_coll_choice c;
        char err[512] = "";
        ck_assert_int_eq(aot_coll_parse_choice(cases[i].kind, cases[i].spec, &c, err,
                                               sizeof(err)), -1);
        ck_assert_str_eq(err, cases[i].msg);
    }
}
END_TEST

START_TEST(test_format_round_trip)
{
    for (int i = 0; i < aot_coll_nalgs; i++) {
        const struct aot_coll_param *par = &aot_coll_algs[i].param;
        int nv = par->name ? par->ntune : 1;
        for (int v = 0; v < nv; v++) {
            struct aot_coll_choice c = {i, par->name ? par->tune[v] : 0}, back;
            char buf[128], err[512];
            ck_assert_int_eq(aot_coll_format_choice(&c, buf, sizeof(buf)), 0);
            ck_assert_int_eq(aot_coll_parse_choice(aot_coll_algs[i].kind, buf, &back, err,
                                                   sizeof(err)), 0);
            ck_assert_int_eq(back.alg, c.alg);
            ck_assert_int_eq(back.param, c.param);
        }
    }
}
END_TEST

/* ---------------------------------------------------------------- restrictions */

START_TEST(test_check)
{
    int ring = find(AOT_COLL_ALLREDUCE, "ring"), pair = find(AOT_COLL_ALLTOALL, "pair");
    int rd = find(AOT_COLL_ALLREDUCE, "recursive_doubling");

    ck_assert_uint_eq(aot_coll_check(ring, 5, 1), 0);
    ck_assert_uint_eq(aot_coll_check(ring, 5, 0), AOT_R_COMMUTATIVE);
    ck_assert_uint_eq(aot_coll_check(pair, 8, 0), 0);
    ck_assert_uint_eq(aot_coll_check(pair, 1, 1), 0);
    ck_assert_uint_eq(aot_coll_check(pair, 6, 1), AOT_R_POF2);
    ck_assert_uint_eq(aot_coll_check(rd, 7, 0), 0);
    ck_assert_str_eq(aot_coll_restriction_text(AOT_R_POF2),
                     "needs a power-of-two communicator size");
    ck_assert_str_eq(aot_coll_restriction_text(AOT_R_COMMUTATIVE),
                     "needs a commutative operation");
}
END_TEST

/* ---------------------------------------------------------------- decision */

START_TEST(test_decide_default_and_forced)
{
    struct aot_coll_policy pol;
    struct aot_coll_decision d;

    policy_init(&pol);
    for (int k = 0; k < AOT_COLL_NKINDS; k++) {
        aot_coll_decide(&pol, k, 4, 1024, 1, &d);
        ck_assert_int_eq(d.choice.alg, k);
        ck_assert_int_eq(d.why, AOT_WHY_DEFAULT);
        ck_assert_int_eq(d.rejected, -1);
    }
    pol.forced[AOT_COLL_ALLTOALL] = find(AOT_COLL_ALLTOALL, "ring_n_barriers");
    pol.forced_param[AOT_COLL_ALLTOALL] = 3;
    aot_coll_decide(&pol, AOT_COLL_ALLTOALL, 7, 1, 1, &d);
    ck_assert_int_eq(d.choice.alg, pol.forced[AOT_COLL_ALLTOALL]);
    ck_assert_int_eq(d.choice.param, 3);
    ck_assert_int_eq(d.why, AOT_WHY_FORCED);
    /* other collectives are not affected */
    aot_coll_decide(&pol, AOT_COLL_ALLGATHER, 7, 1, 1, &d);
    ck_assert_int_eq(d.choice.alg, AOT_COLL_ALLGATHER);
}
END_TEST

START_TEST(test_decide_restriction_fallback)
{
    struct aot_coll_policy pol;
    struct aot_coll_decision d;

    policy_init(&pol);
    pol.forced[AOT_COLL_ALLREDUCE] = find(AOT_COLL_ALLREDUCE, "ring");
    aot_coll_decide(&pol, AOT_COLL_ALLREDUCE, 4, 64, 0, &d);
    ck_assert_int_eq(d.choice.alg, AOT_COLL_ALLREDUCE);
    ck_assert_int_eq(d.why, AOT_WHY_RESTRICTED);
    ck_assert_int_eq(d.rejected, pol.forced[AOT_COLL_ALLREDUCE]);
    ck_assert_uint_eq(d.failed, AOT_R_COMMUTATIVE);
    aot_coll_decide(&pol, AOT_COLL_ALLREDUCE, 4, 64, 1, &d);
    ck_assert_int_eq(d.choice.alg, pol.forced[AOT_COLL_ALLREDUCE]);

    pol.forced[AOT_COLL_ALLTOALL] = find(AOT_COLL_ALLTOALL, "pair");
    for (int p = 1; p <= 16; p++) {
        aot_coll_decide(&pol, AOT_COLL_ALLTOALL, p, 8, 1, &d);
        ck_assert_int_eq(d.choice.alg, aot_coll_is_pof2(p) ? pol.forced[AOT_COLL_ALLTOALL]
                                                          : AOT_COLL_ALLTOALL);
    }
}
END_TEST

START_TEST(test_decide_tuning)
{
    struct aot_coll_policy pol;
    struct aot_coll_decision d;
    struct aot_tuning t;
    char err[256];
    struct aot_tuning_rule r1 = {AOT_COLL_BCAST, 2, 8, 0, 1023, 0, 0, 0, NULL, 0, 0, 0, 0};
    struct aot_tuning_rule r2 = {AOT_COLL_BCAST, 2, 8, 1024, AOT_TUNING_INF_BYTES, 0, 4096, 0,
                                 NULL, 0, 0, 0, 0};

    r1.alg = find(AOT_COLL_BCAST, "binomial");
    r2.alg = find(AOT_COLL_BCAST, "chain");
    aot_tuning_init(&t);
    ck_assert_int_eq(aot_tuning_add(&t, &r1, err, sizeof(err)), 0);
    ck_assert_int_eq(aot_tuning_add(&t, &r2, err, sizeof(err)), 0);
    policy_init(&pol);
    pol.tuning = &t;

    aot_coll_decide(&pol, AOT_COLL_BCAST, 4, 1023, 1, &d);
    ck_assert_int_eq(d.choice.alg, r1.alg);
    ck_assert_int_eq(d.why, AOT_WHY_TUNED);
    aot_coll_decide(&pol, AOT_COLL_BCAST, 8, 1024, 1, &d);
    ck_assert_int_eq(d.choice.alg, r2.alg);
    ck_assert_int_eq(d.choice.param, 4096);
    /* outside every range: native */
    aot_coll_decide(&pol, AOT_COLL_BCAST, 9, 1024, 1, &d);
    ck_assert_int_eq(d.choice.alg, AOT_COLL_BCAST);
    ck_assert_int_eq(d.why, AOT_WHY_DEFAULT);
    aot_coll_decide(&pol, AOT_COLL_BCAST, 1, 0, 1, &d);
    ck_assert_int_eq(d.choice.alg, AOT_COLL_BCAST);
    /* a block for 2 hosts of 2 ranks (format version 2) takes 4 ranks of that shape only */
    struct aot_tuning_rule r3 = r1;
    r3.ranks_lo = r3.ranks_hi = 12;
    r3.hosts_lo = r3.hosts_hi = 2;
    r3.ppn_lo = r3.ppn_hi = 6;
    r3.alg = find(AOT_COLL_BCAST, "linear");
    ck_assert_int_eq(aot_tuning_add(&t, &r3, err, sizeof(err)), 0);
    struct aot_coll_shape sh = {12, 2, 6};
    aot_coll_decide_shape(&pol, AOT_COLL_BCAST, &sh, 100, 1, &d);
    ck_assert_int_eq(d.choice.alg, r3.alg);
    ck_assert_int_eq(d.why, AOT_WHY_TUNED);
    sh.ppn = 11;
    aot_coll_decide_shape(&pol, AOT_COLL_BCAST, &sh, 100, 1, &d);
    ck_assert_int_eq(d.why, AOT_WHY_DEFAULT);
    aot_coll_decide(&pol, AOT_COLL_BCAST, 12, 100, 1, &d);      /* shape unknown */
    ck_assert_int_eq(d.why, AOT_WHY_DEFAULT);
    sh = (struct aot_coll_shape){4, 2, 2};                       /* unqualified blocks still */
    aot_coll_decide_shape(&pol, AOT_COLL_BCAST, &sh, 1023, 1, &d);
    ck_assert_int_eq(d.choice.alg, r1.alg);
    /* forced beats the tuning file */
    pol.forced[AOT_COLL_BCAST] = find(AOT_COLL_BCAST, "linear");
    aot_coll_decide(&pol, AOT_COLL_BCAST, 4, 10, 1, &d);
    ck_assert_int_eq(d.choice.alg, pol.forced[AOT_COLL_BCAST]);
    ck_assert_int_eq(d.why, AOT_WHY_FORCED);
    aot_tuning_free(&t);
}
END_TEST

/* Whether alltoallv must agree on its bytes: only where the rules covering the communicator
 * (and native between them) give different choices at different sizes. */
START_TEST(test_bytes_matter)
{
    struct aot_coll_policy pol;
    struct aot_tuning t;
    char err[256];
    const int ring = find(AOT_COLL_ALLTOALLV, "ring"), simple = find(AOT_COLL_ALLTOALLV, "simple");
    struct aot_tuning_rule whole = {AOT_COLL_ALLTOALLV, 2, 4, 0, AOT_TUNING_INF_BYTES, 0, 0, 0,
                                    NULL, 0, 0, 0, 0};
    struct aot_tuning_rule lo = {AOT_COLL_ALLTOALLV, 8, 8, 0, 65535, 0, 0, 0, NULL, 0, 0, 0, 0};
    struct aot_tuning_rule hi = {AOT_COLL_ALLTOALLV, 8, 8, 65536, AOT_TUNING_INF_BYTES, 0, 0, 0,
                                 NULL, 0, 0, 0, 0};
    struct aot_tuning_rule mid = {AOT_COLL_ALLTOALLV, 16, 16, 1024, 4095, 0, 0, 0, NULL, 0, 0,
                                  0, 0};
    struct aot_coll_shape sh = {4, 0, 0};

    whole.alg = ring;
    lo.alg = ring;
    hi.alg = ring;
    mid.alg = simple;
    aot_tuning_init(&t);
    policy_init(&pol);
    ck_assert_int_eq(aot_coll_bytes_matter(&pol, AOT_COLL_ALLTOALLV, &sh), 0);   /* no file */
    pol.tuning = &t;
    ck_assert_int_eq(aot_tuning_add(&t, &whole, err, sizeof(err)), 0);
    ck_assert_int_eq(aot_tuning_add(&t, &lo, err, sizeof(err)), 0);
    ck_assert_int_eq(aot_tuning_add(&t, &hi, err, sizeof(err)), 0);
    ck_assert_int_eq(aot_tuning_add(&t, &mid, err, sizeof(err)), 0);
    /* one rule over every size */
    ck_assert_int_eq(aot_coll_bytes_matter(&pol, AOT_COLL_ALLTOALLV, &sh), 0);
    /* two rules, one choice */
    sh.size = 8;
    ck_assert_int_eq(aot_coll_bytes_matter(&pol, AOT_COLL_ALLTOALLV, &sh), 0);
    /* native below and above a middle range */
    sh.size = 16;
    ck_assert_int_eq(aot_coll_bytes_matter(&pol, AOT_COLL_ALLTOALLV, &sh), 1);
    /* no rule for the size, or another collective */
    sh.size = 5;
    ck_assert_int_eq(aot_coll_bytes_matter(&pol, AOT_COLL_ALLTOALLV, &sh), 0);
    sh.size = 16;
    ck_assert_int_eq(aot_coll_bytes_matter(&pol, AOT_COLL_ALLTOALL, &sh), 0);
    /* a different choice above 64 KiB on 8 ranks */
    t.rules[2].alg = simple;
    sh.size = 8;
    ck_assert_int_eq(aot_coll_bytes_matter(&pol, AOT_COLL_ALLTOALLV, &sh), 1);
    /* a forced algorithm decides alone */
    pol.forced[AOT_COLL_ALLTOALLV] = ring;
    ck_assert_int_eq(aot_coll_bytes_matter(&pol, AOT_COLL_ALLTOALLV, &sh), 0);
    aot_tuning_free(&t);
}
END_TEST

START_TEST(test_decide_reproducible)
{
    struct aot_coll_policy pol;
    struct aot_coll_decision d;
    int rd = find(AOT_COLL_ALLREDUCE, "recursive_doubling");
    int rab = find(AOT_COLL_ALLREDUCE, "rabenseifner");
    int ring = find(AOT_COLL_ALLREDUCE, "ring");

    policy_init(&pol);
    pol.reproducible = 1;
    /* MPI's own reduction is not known to fix its order: replaced */
    aot_coll_decide(&pol, AOT_COLL_ALLREDUCE, 6, 8, 0, &d);
    ck_assert_int_eq(d.choice.alg, rd);
    ck_assert_int_eq(d.why, AOT_WHY_REPRODUCIBLE);
    ck_assert_int_eq(d.rejected, AOT_COLL_ALLREDUCE);
    aot_coll_decide(&pol, AOT_COLL_ALLREDUCE, 6, 1 << 20, 1, &d);
    ck_assert_int_eq(d.choice.alg, rab);
    aot_coll_decide(&pol, AOT_COLL_REDUCE, 6, 8, 0, &d);
    ck_assert_int_eq(d.choice.alg, find(AOT_COLL_REDUCE, "binomial"));
    /* an order-fixed forced algorithm stays */
    pol.forced[AOT_COLL_ALLREDUCE] = ring;
    aot_coll_decide(&pol, AOT_COLL_ALLREDUCE, 6, 8, 1, &d);
    ck_assert_int_eq(d.choice.alg, ring);
    ck_assert_int_eq(d.why, AOT_WHY_FORCED);
    /* restricted, then replaced by the order-fixed default, not by native */
    aot_coll_decide(&pol, AOT_COLL_ALLREDUCE, 6, 8, 0, &d);
    ck_assert_int_eq(d.choice.alg, rd);
    ck_assert_int_eq(d.why, AOT_WHY_REPRODUCIBLE);
    ck_assert_int_eq(d.rejected, ring);
    ck_assert_uint_eq(d.failed, AOT_R_COMMUTATIVE);
    /* no effect on data movement */
    aot_coll_decide(&pol, AOT_COLL_BCAST, 6, 8, 1, &d);
    ck_assert_int_eq(d.choice.alg, AOT_COLL_BCAST);
    /* the defaults themselves have no restriction */
    for (uint64_t bytes = 1; bytes < (1u << 24); bytes *= 4) {
        ck_assert_uint_eq(aot_coll_check(aot_coll_reproducible_default(AOT_COLL_ALLREDUCE, bytes),
                                         7, 0), 0);
        ck_assert_uint_eq(aot_coll_check(aot_coll_reproducible_default(AOT_COLL_REDUCE, bytes),
                                         7, 0), 0);
    }
}
END_TEST

START_TEST(test_mesh_radix)
{
    for (int p = 1; p <= 200; p++) {
        int r[3], n, prod = 1;
        n = aot_coll_mesh_radix(p, 2, r);
        ck_assert_int_eq(n, 2);
        ck_assert_int_ge(r[0] * r[1], p);
        ck_assert_int_le(r[0], r[1] + 1);
        n = aot_coll_mesh_radix(p, 3, r);
        ck_assert_int_eq(n, 3);
        for (int i = 0; i < 3; i++)
            prod *= r[i];
        ck_assert_int_ge(prod, p);
    }
}
END_TEST

START_TEST(test_binary_tree)
{
    /* every rank but 0 has exactly one parent, and subtrees are contiguous ranges */
    for (int p = 1; p <= 40; p++) {
        int *parents = calloc((size_t) p, sizeof(int));
        for (int v = 0; v < p; v++) {
            struct aot_bnode n;
            aot_coll_binary_node(v, p, &n);
            ck_assert_int_eq(n.lo, v);
            ck_assert_int_le(n.hi, p);
            if (n.left >= 0)
                parents[n.left]++;
            if (n.right >= 0)
                parents[n.right]++;
            if (v == 0)
                ck_assert_int_eq(n.parent, -1);
            else
                ck_assert_int_lt(n.parent, v);
        }
        for (int v = 1; v < p; v++)
            ck_assert_int_eq(parents[v], 1);
        free(parents);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll_select");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_registry_natives_first);
    tcase_add_test(tc, test_registry_entries);
    tcase_add_test(tc, test_registry_contents);
    tcase_add_test(tc, test_parse_choice_good);
    tcase_add_test(tc, test_parse_choice_bad);
    tcase_add_test(tc, test_format_round_trip);
    tcase_add_test(tc, test_check);
    tcase_add_test(tc, test_decide_default_and_forced);
    tcase_add_test(tc, test_decide_restriction_fallback);
    tcase_add_test(tc, test_decide_tuning);
    tcase_add_test(tc, test_decide_reproducible);
    tcase_add_test(tc, test_bytes_matter);
    tcase_add_test(tc, test_mesh_radix);
    tcase_add_test(tc, test_binary_tree);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
