/*
 * test_calib.c: self-calibration (src/calib.c) and its setting, AUTOOPT_CALIB (src/config.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Each test runs in its own process (CK_FORK=yes, set by govern.cmake): measuring is once per
 * process.  The figures depend on the machine: the tests check that they are there, positive
 * and finite, measured once, within the repetition cap; what they were is printed, not judged
 * (timing decides no test).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aot_calib.h"
#include "aot_config.h"
#include "aot_state.h"

START_TEST(measures_once)
{
    struct aot_calib first;

    ck_assert_int_eq(aot_calib.measured, 0);
    aot_calib_measure();
    first = aot_calib;
    fprintf(stderr, "calibration: guard %.1f us, +%.2f us per page, copy %.3f us per KiB; "
                    "%d runs in %.0f us\n", first.guard_ns * 1e-3, first.guard_page_ns * 1e-3,
            first.copy_ns_per_kib * 1e-3, first.runs, first.cost_ns * 1e-3);
    ck_assert_int_eq(first.measured, 1);
    ck_assert(isfinite(first.guard_ns) && first.guard_ns > 0);
    ck_assert(isfinite(first.guard_page_ns) && first.guard_page_ns >= 0);
    ck_assert(isfinite(first.copy_ns_per_kib) && first.copy_ns_per_kib > 0);
    ck_assert(isfinite(first.cost_ns) && first.cost_ns > 0);
    /* at least the 3 + 2 + 3 timed runs and 3 untimed ones, at most the cap */
    ck_assert_int_ge(first.runs, 11);
    ck_assert_int_le(first.runs, AOT_CALIB_MAX_RUNS);
    /* measuring takes at least what its guards took */
    ck_assert(first.cost_ns >= first.guard_ns);

    /* a second call measures nothing: a figure changed meanwhile stays changed */
    aot_calib.guard_ns = 12345;
    aot_calib_measure();
    ck_assert(aot_calib.guard_ns == 12345);
    ck_assert_int_eq(aot_calib.runs, first.runs);
    ck_assert(aot_calib.cost_ns == first.cost_ns);
}
END_TEST

START_TEST(guard_cost_of_a_range)
{
    ck_assert(aot_calib_guard_cost(16) == 0);      /* nothing measured yet */
    aot_calib_measure();
    ck_assert(aot_calib_guard_cost(0) == 0);
    ck_assert(aot_calib_guard_cost(1) == aot_calib.guard_ns);
    ck_assert(fabs(aot_calib_guard_cost(16) -
                   (aot_calib.guard_ns + 15 * aot_calib.guard_page_ns)) < 1e-6);
}
END_TEST

START_TEST(off_measures_nothing)
{
    aot_cfg.calib = AOT_CALIB_OFF;
    aot_calib_measure();
    ck_assert_int_eq(aot_calib.measured, 0);
    ck_assert_int_eq(aot_calib.runs, 0);
    ck_assert(aot_calib_guard_cost(4) == 0);
}
END_TEST

START_TEST(given_figures_are_taken)
{
    aot_cfg.calib = AOT_CALIB_GIVEN;
    aot_cfg.calib_guard_ns = 40000;
    aot_cfg.calib_page_ns = 2000;
    aot_cfg.calib_copy_ns = 300;
    aot_calib_measure();
    ck_assert_int_eq(aot_calib.measured, 2);
    ck_assert_int_eq(aot_calib.runs, 0);
    ck_assert(aot_calib.guard_ns == 40000 && aot_calib.guard_page_ns == 2000 &&
              aot_calib.copy_ns_per_kib == 300);
    ck_assert(aot_calib_guard_cost(3) == 44000);
}
END_TEST

/* ---------------------------------------------------------------- AUTOOPT_CALIB */

static const char *one_var(const char *name, void *arg)
{
    return strcmp(name, "AUTOOPT_CALIB") == 0 ? arg : NULL;
}

static int parse(const char *value, struct aot_config *c, char *err)
{
    return aot_config_parse(c, one_var, (void *) value, err, 256);
}

START_TEST(setting_good)
{
    struct aot_config c;
    char err[256];

    ck_assert_int_eq(parse(NULL, &c, err), 0);
    ck_assert_int_eq(c.calib, AOT_CALIB_MEASURE);
    ck_assert_int_eq(parse("1", &c, err), 0);
    ck_assert_int_eq(c.calib, AOT_CALIB_MEASURE);
    ck_assert_int_eq(parse("0", &c, err), 0);
    ck_assert_int_eq(c.calib, AOT_CALIB_OFF);
    ck_assert_int_eq(parse("guard=40000,page=2000,copy=300", &c, err), 0);
    ck_assert_int_eq(c.calib, AOT_CALIB_GIVEN);
    ck_assert(c.calib_guard_ns == 40000 && c.calib_page_ns == 2000 && c.calib_copy_ns == 300);
    ck_assert_int_eq(parse("guard=4.5e3,copy=250", &c, err), 0);
    ck_assert_int_eq(c.calib, AOT_CALIB_GIVEN);
    ck_assert(c.calib_guard_ns == 4500 && c.calib_page_ns == 0 && c.calib_copy_ns == 250);
    ck_assert_int_eq(parse("guard=3000", &c, err), 0);
    ck_assert(c.calib_guard_ns == 3000 && c.calib_page_ns == 0 && c.calib_copy_ns == 0);
}
END_TEST

static const char *const bad_calib[] = {
    "2", "fast", "guard", "guard=", "guard=-5", "guard=nan", "guard=inf", "guard=5,",
    "guard=5;page=2", "page=2000", "copy=3,guard=5", "guard=5,copy=3,page=2", "guard=5,guard=6",
    "guard=5,speed=1", "guard=1e13",
};

START_TEST(setting_bad)
{
    struct aot_config c;
    char err[256];

    ck_assert_int_eq(parse(bad_calib[_i], &c, err), -1);
    ck_assert_msg(strncmp(err, "AUTOOPT_CALIB=", 14) == 0 && strstr(err, "expected 1, 0 or guard="),
                  "%s: %s", bad_calib[_i], err);
}
END_TEST

static Suite *calib_suite(void)
{
    Suite *s = suite_create("calib");
    TCase *tc = tcase_create("calib");

    tcase_add_test(tc, measures_once);
    tcase_add_test(tc, guard_cost_of_a_range);
    tcase_add_test(tc, off_measures_nothing);
    tcase_add_test(tc, given_figures_are_taken);
    tcase_add_test(tc, setting_good);
    tcase_add_loop_test(tc, setting_bad, 0, (int) (sizeof(bad_calib) / sizeof(bad_calib[0])));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(calib_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
