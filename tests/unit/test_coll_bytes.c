/*
 * test_coll_bytes.c: the message size a collective's decision reads (aot_coll_bytes) and the
 * calls the tuner and autoopt-bench-coll make for a size (collectives/coll_bytes.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "aot_config.h"
#include "coll_bytes.h"

/* The vector (allreduce, reduce, bcast) and one rank's block (allgather, alltoall): count times
 * the type size, in 64 bits. */
START_TEST(test_bytes_count_times_size)
{
    static const enum aot_coll_kind kinds[] = {AOT_COLL_ALLREDUCE, AOT_COLL_REDUCE,
                                               AOT_COLL_BCAST, AOT_COLL_ALLGATHER,
                                               AOT_COLL_ALLTOALL};
    static const int counts[] = {0, 1, 3, 1000, INT_MAX};
    static const int sizes[] = {1, 4, 8, 24};

    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
            for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
                uint64_t want = 0;
                for (int i = 0; i < sizes[t]; i++)   /* count * size by repeated addition */
                    want += (uint64_t) counts[c];
                ck_assert_uint_eq(aot_coll_bytes(kinds[k], 7, counts[c], sizes[t], NULL), want);
            }
    /* the communicator's size does not enter */
    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_BCAST, 1, 10, 4, NULL),
                      aot_coll_bytes(AOT_COLL_BCAST, 64, 10, 4, NULL));
}
END_TEST

/* Allgatherv: the mean of the receive counts in bytes, negative counts as zero, rounded down. */
START_TEST(test_bytes_allgatherv)
{
    static const int rc1[] = {3, -1, 5, 0};
    static const int rc2[] = {1, 0, 0};
    static const int rc3[] = {7};
    int equal[16];

    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLGATHERV, 4, 0, 8, rc1), (3 + 5) * 8 / 4);
    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLGATHERV, 3, 0, 1, rc2), 0);
    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLGATHERV, 3, 0, 2, rc2), 0);
    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLGATHERV, 3, 0, 3, rc2), 1);
    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLGATHERV, 1, 0, 4, rc3), 28);
    /* the count argument is not read when rcounts are given */
    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLGATHERV, 4, 999, 8, rc1), 16);
    /* rcounts NULL: every rank's count is `count`, the same as an array of equal counts, and
     * the same as an allgather of that count */
    for (int p = 1; p <= 16; p++)
        for (int c = 0; c < 40; c += 13) {
            for (int i = 0; i < p; i++)
                equal[i] = c;
            ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLGATHERV, p, c, 4, NULL),
                              aot_coll_bytes(AOT_COLL_ALLGATHERV, p, 0, 4, equal));
            ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLGATHERV, p, c, 4, NULL),
                              aot_coll_bytes(AOT_COLL_ALLGATHER, p, c, 4, NULL));
        }
    /* large counts do not overflow */
    int big[2] = {INT_MAX, INT_MAX};
    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLGATHERV, 2, 0, 16, big),
                      (uint64_t) INT_MAX * 16);
}
END_TEST

/* Alltoallv (counts differ by rank: its bytes come from an agreement) and barrier: 0
 * whatever the arguments. */
START_TEST(test_bytes_zero)
{
    static const int rc[] = {5, 6};

    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLTOALLV, 2, 100, 8, rc), 0);
    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_ALLTOALLV, 2, 100, 8, NULL), 0);
    ck_assert_uint_eq(aot_coll_bytes(AOT_COLL_BARRIER, 2, 100, 8, NULL), 0);
}
END_TEST

/* alltoallv's agreed bytes: the mean block of the whole call, exact on the skew threshold;
 * a rank's own part skips negative counts. */
START_TEST(test_a2av_bytes)
{
    static const int counts[4] = {10, -3, 0, 25};
    uint64_t sum, max;
    int skewed;

    aot_coll_a2av_local(counts, 4, 8, &sum, &max);
    ck_assert_uint_eq(sum, 35 * 8);
    ck_assert_uint_eq(max, 25 * 8);
    /* 4 ranks of 4 equal blocks of 1 KiB */
    ck_assert_uint_eq(aot_coll_a2av_bytes(16 * 1024, 1024, 4, &skewed), 1024);
    ck_assert_int_eq(skewed, 0);
    /* a largest block of exactly twice the mean is not skewed, one byte more is */
    ck_assert_uint_eq(aot_coll_a2av_bytes(16 * 1024, 2048, 4, &skewed), 1024);
    ck_assert_int_eq(skewed, 0);
    aot_coll_a2av_bytes(16 * 1024, 2049, 4, &skewed);
    ck_assert_int_eq(skewed, 1);
    /* the mean rounds down; nothing moved is not skewed */
    ck_assert_uint_eq(aot_coll_a2av_bytes(17, 2, 3, &skewed), 1);
    ck_assert_int_eq(skewed, 0);
    ck_assert_uint_eq(aot_coll_a2av_bytes(0, 0, 8, &skewed), 0);
    ck_assert_int_eq(skewed, 0);
    /* large figures do not overflow */
    ck_assert_uint_eq(aot_coll_a2av_bytes(UINT64_MAX, UINT64_MAX / 4, 2, &skewed),
                      UINT64_MAX / 4);
    ck_assert_int_eq(skewed, 0);
}
END_TEST

/* The calls between agreements: doubling while the choice holds, up to the hold, 1 after a
 * change, never so few that the agreements cost more than 0.5 % of the calls, never more than
 * the cap. */
START_TEST(test_a2av_interval)
{
    int n = 0;

    n = aot_coll_a2av_interval(n, 1, 0);        /* the first agreement: "same" means nothing */
    ck_assert_int_eq(n, 1);
    for (int want = 2; want <= AOT_COLL_A2AV_HOLD; want *= 2) {
        n = aot_coll_a2av_interval(n, 1, 0);
        ck_assert_int_eq(n, want);
    }
    /* the choice holds on: the interval stays at the hold, so a size that changes is seen
     * within AOT_COLL_A2AV_HOLD calls where agreements are cheap */
    for (int i = 0; i < 20; i++)
        n = aot_coll_a2av_interval(n, 1, 0);
    ck_assert_int_eq(n, AOT_COLL_A2AV_HOLD);
    ck_assert_int_eq(aot_coll_a2av_interval(n, 0, 0), 1);
    /* an agreement as long as a call: 200 calls apart even after a change; 6 per mille: 2 */
    ck_assert_int_eq(aot_coll_a2av_interval(n, 0, 1000), 200);
    ck_assert_int_eq(aot_coll_a2av_interval(200, 1, 1000), 200);
    ck_assert_int_eq(aot_coll_a2av_interval(1, 0, 6), 2);
    ck_assert_int_eq(aot_coll_a2av_interval(1, 0, 5), 1);
    ck_assert_int_eq(aot_coll_a2av_interval(4, 1, 100), 20);
    ck_assert_int_eq(aot_coll_a2av_interval(16, 1, 100), 20);
    ck_assert_int_eq(aot_coll_a2av_interval(2, 1, 10), AOT_COLL_A2AV_HOLD);
    /* dearer than the cap allows: the cap */
    ck_assert_int_eq(aot_coll_a2av_interval(1, 0, UINT64_MAX), AOT_COLL_A2AV_MAX_INTERVAL);
}
END_TEST

/* The tuner's and the benchmark's calls: floats for the reductions, chars otherwise; a size
 * made of whole elements comes back as the decision's bytes of the call. */
START_TEST(test_bench_calls)
{
    for (int k = 0; k < AOT_COLL_NKINDS; k++) {
        int reduction = k == AOT_COLL_ALLREDUCE || k == AOT_COLL_REDUCE;
        int esize = aot_coll_bench_type_size(k);
        ck_assert_int_eq(esize, reduction ? 4 : 1);
        ck_assert_int_eq(aot_coll_bench_count(k, 0), 0);
        ck_assert_int_eq(aot_coll_bench_count(k, 3), reduction ? 0 : 3);
        ck_assert_int_eq(aot_coll_bench_count(k, 7), reduction ? 1 : 7);
        ck_assert_int_eq(aot_coll_bench_count(k, 1u << 20), reduction ? 1 << 18 : 1 << 20);
        if (k == AOT_COLL_ALLTOALLV || k == AOT_COLL_BARRIER)
            continue;
        for (uint64_t b = 4; b <= (1u << 24); b *= 2)
            ck_assert_uint_eq(aot_coll_bytes(k, 8, aot_coll_bench_count(k, b), esize, NULL), b);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("coll_bytes");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_bytes_count_times_size);
    tcase_add_test(tc, test_bytes_allgatherv);
    tcase_add_test(tc, test_bytes_zero);
    tcase_add_test(tc, test_bench_calls);
    tcase_add_test(tc, test_a2av_bytes);
    tcase_add_test(tc, test_a2av_interval);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
