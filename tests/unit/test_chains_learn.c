/*
 * test_chains_learn.c: the chain learner and the chain-mode state machine (chains/learn.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <stdlib.h>

#include "chains.h"

static int ev_count[AOT_CH_EV_REJECT + 1];
static int allow = 1;

static void on_event(void *arg, enum aot_ch_event ev, const struct aot_ch_chain *c)
{
    (void) arg;
    (void) c;
    ev_count[ev]++;
}

static int on_allowed(void *arg, const struct aot_ch_chain *c)
{
    (void) arg;
    (void) c;
    return allow;
}

static void setup(struct aot_ch_learner *L, int confirm, int max_breaks)
{
    for (int i = 0; i <= AOT_CH_EV_REJECT; i++)
        ev_count[i] = 0;
    allow = 1;
    aot_ch_learner_init(L, confirm, max_breaks);
    L->event = on_event;
    L->allowed = on_allowed;
}

/* One phase of the given calls, ended by a touch. */
static void phase(struct aot_ch_learner *L, const uint32_t *ids, int n, int *acts)
{
    for (int i = 0; i < n; i++) {
        int a = aot_ch_learn_call(L, ids[i]);
        if (acts)
            acts[i] = a;
    }
    aot_ch_learn_touch(L);
}

START_TEST(confirms_after_n_repetitions)
{
    struct aot_ch_learner L;
    const uint32_t p[4] = { 10, 11, 12, 13 };
    int acts[4];

    setup(&L, 3, 3);
    for (int rep = 0; rep < 3; rep++) {
        phase(&L, p, 4, acts);
        for (int i = 0; i < 4; i++)
            ck_assert_int_eq(acts[i], AOT_CH_PLAIN);
    }
    ck_assert_int_eq(ev_count[AOT_CH_EV_CONFIRM], 1);
    phase(&L, p, 4, acts);
    ck_assert_int_eq(acts[0], AOT_CH_FIRST);
    ck_assert_int_eq(acts[1], AOT_CH_NEXT);
    ck_assert_int_eq(acts[2], AOT_CH_NEXT);
    ck_assert_int_eq(acts[3], AOT_CH_LAST);
    ck_assert_ptr_null(L.active);
    ck_assert_int_eq(L.all[0]->completions, 1);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(single_calls_never_chain)
{
    struct aot_ch_learner L;
    const uint32_t p[1] = { 7 };
    int acts[1];

    setup(&L, 1, 3);
    for (int rep = 0; rep < 10; rep++) {
        phase(&L, p, 1, acts);
        ck_assert_int_eq(acts[0], AOT_CH_PLAIN);
    }
    ck_assert_int_eq(L.nall, 0);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(different_phase_restarts_count)
{
    struct aot_ch_learner L;
    const uint32_t a[3] = { 1, 2, 3 }, b[3] = { 1, 3, 2 };

    setup(&L, 3, 3);
    phase(&L, a, 3, NULL);
    phase(&L, a, 3, NULL);
    phase(&L, b, 3, NULL);                 /* same first member, other order */
    ck_assert_int_eq(L.all[0]->reps, 1);
    phase(&L, b, 3, NULL);
    phase(&L, b, 3, NULL);
    ck_assert_int_eq(L.all[0]->confirmed, 1);
    ck_assert_int_eq(L.all[0]->members[1], 3);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(boundary_splits_phases)
{
    struct aot_ch_learner L;

    setup(&L, 2, 3);
    for (int rep = 0; rep < 2; rep++) {
        aot_ch_learn_call(&L, 1);
        aot_ch_learn_call(&L, 2);
        aot_ch_learn_boundary(&L);         /* e.g. an MPI_Allreduce */
        aot_ch_learn_call(&L, 3);
        aot_ch_learn_call(&L, 4);
        aot_ch_learn_touch(&L);
    }
    ck_assert_int_eq(L.nall, 2);
    ck_assert_int_eq(L.all[0]->n, 2);
    ck_assert_int_eq(L.all[1]->n, 2);
    ck_assert_int_eq(ev_count[AOT_CH_EV_CONFIRM], 2);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(break_demotes_and_relearns)
{
    struct aot_ch_learner L;
    const uint32_t p[3] = { 1, 2, 3 };
    int a;

    setup(&L, 2, 3);
    phase(&L, p, 3, NULL);
    phase(&L, p, 3, NULL);
    ck_assert_int_eq(aot_ch_learn_call(&L, 1), AOT_CH_FIRST);
    a = aot_ch_learn_call(&L, 9);          /* not the expected member */
    ck_assert_int_eq(a, AOT_CH_PLAIN | AOT_CH_BROKE);
    ck_assert_int_eq(L.all[0]->confirmed, 0);
    ck_assert_int_eq(L.all[0]->breaks, 1);
    aot_ch_learn_touch(&L);
    phase(&L, p, 3, NULL);
    phase(&L, p, 3, NULL);
    ck_assert_int_eq(L.all[0]->confirmed, 1);
    ck_assert_int_eq(aot_ch_learn_call(&L, 1), AOT_CH_FIRST);
    ck_assert_int_eq(aot_ch_learn_boundary(&L), AOT_CH_BROKE);
    ck_assert_int_eq(L.all[0]->breaks, 2);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(max_breaks_disables)
{
    struct aot_ch_learner L;
    const uint32_t p[2] = { 5, 6 };

    setup(&L, 1, 2);
    for (int b = 0; b < 2; b++) {
        phase(&L, p, 2, NULL);
        ck_assert_int_eq(aot_ch_learn_call(&L, 5), AOT_CH_FIRST);
        aot_ch_learn_boundary(&L);
    }
    ck_assert_int_eq(L.all[0]->disabled, 1);
    ck_assert_int_eq(ev_count[AOT_CH_EV_DISABLE], 1);
    for (int rep = 0; rep < 5; rep++) {
        int acts[2];
        phase(&L, p, 2, acts);
        ck_assert_int_eq(acts[0], AOT_CH_PLAIN);
    }
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(zero_max_breaks_never_disables)
{
    struct aot_ch_learner L;
    const uint32_t p[2] = { 5, 6 };

    setup(&L, 1, 0);
    for (int b = 0; b < 20; b++) {
        phase(&L, p, 2, NULL);
        ck_assert_int_eq(aot_ch_learn_call(&L, 5), AOT_CH_FIRST);
        aot_ch_learn_boundary(&L);
    }
    ck_assert_int_eq(L.all[0]->disabled, 0);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(rejected_when_not_allowed)
{
    struct aot_ch_learner L;
    const uint32_t p[2] = { 1, 2 };
    int acts[2];

    setup(&L, 2, 3);
    allow = 0;
    phase(&L, p, 2, NULL);
    phase(&L, p, 2, NULL);
    ck_assert_int_eq(ev_count[AOT_CH_EV_REJECT], 1);
    ck_assert_int_eq(L.all[0]->disabled, 1);
    phase(&L, p, 2, acts);
    ck_assert_int_eq(acts[0], AOT_CH_PLAIN);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(touch_mid_chain_is_reported)
{
    struct aot_ch_learner L;
    const uint32_t p[3] = { 1, 2, 3 };

    setup(&L, 1, 3);
    phase(&L, p, 3, NULL);
    ck_assert_int_eq(aot_ch_learn_call(&L, 1), AOT_CH_FIRST);
    ck_assert_int_eq(aot_ch_learn_touch(&L), 1);   /* chain mode would have missed it */
    ck_assert_int_eq(aot_ch_learn_call(&L, 2), AOT_CH_NEXT);
    ck_assert_int_eq(aot_ch_learn_call(&L, 3), AOT_CH_LAST);
    ck_assert_int_eq(aot_ch_learn_touch(&L), 0);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(long_phase_overflows)
{
    struct aot_ch_learner L;

    setup(&L, 1, 3);
    for (uint32_t i = 0; i < AOT_CH_MAX_MEMBERS + 5; i++)
        aot_ch_learn_call(&L, i);
    aot_ch_learn_touch(&L);
    ck_assert_int_eq(L.nall, 0);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(red_black_identical_members_one_chain)
{
    /* site depth 1: the red and the black exchange have the same signatures */
    struct aot_ch_learner L;
    const uint32_t p[4] = { 0, 1, 2, 3 };
    int acts[4];

    setup(&L, 3, 3);
    for (int it = 0; it < 10; it++)
        for (int color = 0; color < 2; color++)
            phase(&L, p, 4, acts);
    ck_assert_int_eq(L.nall, 1);
    ck_assert_int_eq(acts[3], AOT_CH_LAST);
    ck_assert_int_eq(L.all[0]->completions, 17);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(repeat_splits_phases_without_probes)
{
    /* safe chains learn without touch probes: a loop of the same calls with no boundary and no
     * touch is cut where its first signature comes again */
    struct aot_ch_learner L;
    int act = 0, firsts = 0, lasts = 0;

    setup(&L, 3, 3);
    L.split_on_repeat = 1;
    for (int it = 0; it < 10; it++)
        for (uint32_t i = 0; i < 4; i++) {
            act = aot_ch_learn_call(&L, 20 + i);
            firsts += (act & AOT_CH_ACTION) == AOT_CH_FIRST;
            lasts += (act & AOT_CH_ACTION) == AOT_CH_LAST;
        }
    ck_assert_int_eq(L.nall, 1);
    ck_assert_int_eq(L.all[0]->n, 4);
    ck_assert_int_eq(ev_count[AOT_CH_EV_CONFIRM], 1);
    /* phases end where iterations 2, 3 and 4 begin (the call that repeats the first one):
     * confirmed as the fourth begins, run as a chain from the fifth on: six complete runs */
    ck_assert_int_eq(firsts, 6);
    ck_assert_int_eq(lasts, 6);
    ck_assert_int_eq(act, AOT_CH_LAST);
    aot_ch_learner_free(&L);
}
END_TEST

START_TEST(repeat_split_off_keeps_one_phase)
{
    /* the same stream with probes' segmentation only (split_on_repeat off): one long phase
     * overflows, nothing is learned */
    struct aot_ch_learner L;

    setup(&L, 3, 3);
    for (int it = 0; it < 20; it++)
        for (uint32_t i = 0; i < 4; i++)
            ck_assert_int_eq(aot_ch_learn_call(&L, 20 + i), AOT_CH_PLAIN);
    ck_assert_int_eq(ev_count[AOT_CH_EV_CONFIRM], 0);
    aot_ch_learner_free(&L);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("chains_learn");
    TCase *tc = tcase_create("learner");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, confirms_after_n_repetitions);
    tcase_add_test(tc, single_calls_never_chain);
    tcase_add_test(tc, different_phase_restarts_count);
    tcase_add_test(tc, boundary_splits_phases);
    tcase_add_test(tc, break_demotes_and_relearns);
    tcase_add_test(tc, max_breaks_disables);
    tcase_add_test(tc, zero_max_breaks_never_disables);
    tcase_add_test(tc, rejected_when_not_allowed);
    tcase_add_test(tc, touch_mid_chain_is_reported);
    tcase_add_test(tc, long_phase_overflows);
    tcase_add_test(tc, red_black_identical_members_one_chain);
    tcase_add_test(tc, repeat_splits_phases_without_probes);
    tcase_add_test(tc, repeat_split_off_keeps_one_phase);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
