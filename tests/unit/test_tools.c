/*
 * test_tools.c: the pure part of the tools' narrow header (tools/lib/aot_tools.h: registry.c,
 * calls.c): every collective and algorithm seen through it is the registry's, named, looked up,
 * restricted and spelled as collectives/ does it; the timed calls' sizes, worked out by hand.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_config.h"
#include "aot_tools.h"
#include "coll_registry.h"
#include "coll_select.h"

/* Each collective by its name and back; unknown names and a cut name are none. */
START_TEST(test_kinds)
{
    for (int k = 0; k < AOT_COLL_NKINDS; k++) {
        const char *n = aot_tools_kind_name(k);
        ck_assert_str_eq(n, aot_coll_kind_names[k]);
        ck_assert_int_eq(aot_tools_find_kind(n, strlen(n)), k);
    }
    ck_assert_int_eq(aot_tools_find_kind("allreduce", 8), -1);
    ck_assert_int_eq(aot_tools_find_kind("bcast", 5), AOT_COLL_BCAST);
    ck_assert_int_eq(aot_tools_find_kind("scatter", 7), -1);
}
END_TEST

/* Every algorithm: its collective, name and lookup are the registry's; the first
 * AOT_COLL_NKINDS are the natives, in the order of the collectives. */
START_TEST(test_algorithms)
{
    ck_assert_int_eq(aot_tools_nalgs(), aot_coll_nalgs);
    ck_assert_int_gt(aot_tools_nalgs(), AOT_COLL_NKINDS);
    for (int a = 0; a < aot_tools_nalgs(); a++) {
        const char *n = aot_tools_alg_name(a);
        int k = aot_tools_alg_kind(a);
        ck_assert_int_eq(k, (int) aot_coll_algs[a].kind);
        ck_assert_str_eq(n, aot_coll_algs[a].name);
        ck_assert_int_eq(aot_tools_find_alg(k, n, strlen(n)), a);
        if (a < AOT_COLL_NKINDS) {
            ck_assert_int_eq(k, a);
            ck_assert_str_eq(n, "native");
        }
    }
    ck_assert_int_eq(aot_tools_find_alg(AOT_COLL_BCAST, "no_such", 7), -1);
    /* bcast's chain is not an algorithm of barrier */
    ck_assert_int_ge(aot_tools_find_alg(AOT_COLL_BCAST, "chain", 5), AOT_COLL_NKINDS);
    ck_assert_int_eq(aot_tools_find_alg(AOT_COLL_BARRIER, "chain", 5), -1);
}
END_TEST

/* Restrictions as the selection checks them (aot_coll_check), and two worked by hand: ring
 * allreduce needs a commutative operation, pairwise allgather a power of two. */
START_TEST(test_applies)
{
    for (int a = 0; a < aot_tools_nalgs(); a++)
        for (int p = 1; p <= 9; p++)
            for (int c = 0; c <= 1; c++)
                ck_assert_int_eq(aot_tools_alg_applies(a, p, c), aot_coll_check(a, p, c) == 0);
    int ring = aot_tools_find_alg(AOT_COLL_ALLREDUCE, "ring", 4);
    ck_assert_int_ge(ring, 0);
    ck_assert_int_eq(aot_tools_alg_applies(ring, 6, 1), 1);
    ck_assert_int_eq(aot_tools_alg_applies(ring, 6, 0), 0);
    int rd = aot_tools_find_alg(AOT_COLL_ALLGATHER, "pair", 4);
    ck_assert_int_ge(rd, 0);
    ck_assert_int_eq(aot_tools_alg_applies(rd, 8, 1), 1);
    ck_assert_int_eq(aot_tools_alg_applies(rd, 6, 1), 0);
    ck_assert_int_eq(aot_tools_alg_applies(AOT_COLL_ALLGATHER, 6, 0), 1);   /* native */
}
END_TEST

/* Parameters are the registry's; the spelling is aot_coll_format_choice's, and bcast chain's
 * (segment, default 16384, tuner values 4096, 16384, 65536) is worked out here. */
START_TEST(test_params)
{
    char got[128], want[128];
    int with = 0;

    for (int a = 0; a < aot_tools_nalgs(); a++) {
        const struct aot_coll_param *rp = &aot_coll_algs[a].param;
        struct aot_tools_param p;
        memset(&p, 0x5a, sizeof(p));
        int has = aot_tools_alg_param(a, &p);
        ck_assert_int_eq(has, rp->name != NULL);
        ck_assert_int_eq(aot_tools_alg_param(a, NULL), has);
        with += has;
        if (has) {
            ck_assert_str_eq(p.name, rp->name);
            ck_assert_int_eq(p.dflt, rp->dflt);
            ck_assert_int_eq(p.min, rp->min);
            ck_assert_int_eq(p.max, rp->max);
            ck_assert_int_eq(p.ntune, rp->ntune);
            for (int i = 0; i < p.ntune; i++)
                ck_assert_int_eq(p.tune[i], rp->tune[i]);
        } else {
            ck_assert_ptr_null(p.name);
        }
        struct aot_coll_choice c = {a, has ? rp->dflt : 0};
        ck_assert_int_eq(aot_coll_format_choice(&c, want, sizeof(want)), 0);
        ck_assert_int_eq(aot_tools_format_choice(a, c.param, got, sizeof(got)), 0);
        ck_assert_str_eq(got, want);
    }
    ck_assert_int_gt(with, 0);

    int chain = aot_tools_find_alg(AOT_COLL_BCAST, "chain", 5);
    struct aot_tools_param p;
    ck_assert_int_eq(aot_tools_alg_param(chain, &p), 1);
    ck_assert_str_eq(p.name, "segment");
    ck_assert_int_eq(p.dflt, 16384);
    ck_assert_int_eq(p.ntune, 3);
    ck_assert_int_eq(p.tune[0], 4096);
    ck_assert_int_eq(p.tune[2], 65536);
    ck_assert_int_eq(aot_tools_format_choice(chain, 4096, got, sizeof(got)), 0);
    ck_assert_str_eq(got, "chain:segment=4096");
    ck_assert_int_eq(aot_tools_format_choice(AOT_COLL_BCAST, 0, got, sizeof(got)), 0);
    ck_assert_str_eq(got, "native");
    ck_assert_int_eq(aot_tools_format_choice(chain, 4096, got, 18), -1);   /* no room for NUL */
}
END_TEST

/* The timed calls: floats for the reductions, chars otherwise; the count rounds down, the
 * bytes a decision sees take at least one element; alltoallv's are its (equal) block, barrier
 * decides on 0. */
START_TEST(test_calls)
{
    ck_assert_int_eq(aot_tools_call_type_size(AOT_COLL_ALLREDUCE), 4);
    ck_assert_int_eq(aot_tools_call_type_size(AOT_COLL_REDUCE), 4);
    ck_assert_int_eq(aot_tools_call_type_size(AOT_COLL_BCAST), 1);
    ck_assert_int_eq(aot_tools_call_type_size(AOT_COLL_ALLGATHERV), 1);
    ck_assert_int_eq(aot_tools_call_count(AOT_COLL_ALLREDUCE, 10), 2);
    ck_assert_int_eq(aot_tools_call_count(AOT_COLL_REDUCE, 3), 0);
    ck_assert_int_eq(aot_tools_call_count(AOT_COLL_ALLTOALL, 1000), 1000);
    ck_assert_uint_eq(aot_tools_call_bytes(AOT_COLL_ALLREDUCE, 10), 8);
    ck_assert_uint_eq(aot_tools_call_bytes(AOT_COLL_ALLREDUCE, 3), 4);
    ck_assert_uint_eq(aot_tools_call_bytes(AOT_COLL_REDUCE, 1 << 20), 1 << 20);
    ck_assert_uint_eq(aot_tools_call_bytes(AOT_COLL_BCAST, 1), 1);
    ck_assert_uint_eq(aot_tools_call_bytes(AOT_COLL_BCAST, 0), 1);
    ck_assert_uint_eq(aot_tools_call_bytes(AOT_COLL_ALLGATHER, 777), 777);
    ck_assert_uint_eq(aot_tools_call_bytes(AOT_COLL_ALLGATHERV, 4096), 4096);
    ck_assert_uint_eq(aot_tools_call_bytes(AOT_COLL_ALLTOALL, 64), 64);
    ck_assert_uint_eq(aot_tools_call_bytes(AOT_COLL_ALLTOALLV, 1024), 1024);
    ck_assert_uint_eq(aot_tools_call_bytes(AOT_COLL_BARRIER, 0), 0);
}
END_TEST

/* Back to back: AOT_TOOLS_B2B_CALLS calls in a row, fewer only where they would last more than
 * AOT_TOOLS_B2B_MAX_S (rounded up), never fewer than asked (nor than 1). */
START_TEST(test_b2b_calls)
{
    ck_assert_int_eq(AOT_TOOLS_B2B_CALLS, 256);
    ck_assert_int_eq(aot_tools_b2b_calls(1e-6, 1), 256);        /* 256 calls: 0.26 ms */
    ck_assert_int_eq(aot_tools_b2b_calls(0.0, 1), 256);         /* not measurable */
    ck_assert_int_eq(aot_tools_b2b_calls(-1.0, 3), 256);
    ck_assert_int_eq(aot_tools_b2b_calls(1e-4, 1), 100);        /* 10 ms / 100 us */
    ck_assert_int_eq(aot_tools_b2b_calls(3e-4, 1), 34);         /* 33.3 rounds up */
    ck_assert_int_eq(aot_tools_b2b_calls(3e-4, 50), 50);        /* the 1 ms repetition's k */
    ck_assert_int_eq(aot_tools_b2b_calls(1e-6, 1000), 1000);
    ck_assert_int_eq(aot_tools_b2b_calls(0.5, 1), 1);           /* one call longer than the cap */
    ck_assert_int_eq(aot_tools_b2b_calls(0.5, 0), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tools");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_kinds);
    tcase_add_test(tc, test_algorithms);
    tcase_add_test(tc, test_applies);
    tcase_add_test(tc, test_params);
    tcase_add_test(tc, test_calls);
    tcase_add_test(tc, test_b2b_calls);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
