/*
 * test_cache.c: the cache of decisions' pure core (src/cache.c): the file's text read into a
 * table and written back unchanged; damaged text (a garbage file, a truncated last line, bad
 * lines among good ones, an empty file) ignored line by line with the first bad line named;
 * merging keeps every key of both tables and the newer value of each; the oldest beyond the
 * cap are dropped; invalid keys and values refused.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_cache.h"

#define HDR AOT_CACHE_HEADER "\n"

static int parse(const char *text, struct aot_cache_table *t, struct aot_cache_damage *d)
{
    return aot_cache_parse(text, strlen(text), t, d);
}

static const char *get(const struct aot_cache_table *t, const char *key)
{
    const struct aot_cache_entry *e = aot_cache_table_find(t, key);
    return e ? e->value : NULL;
}

START_TEST(round_trip)
{
    const char *text = HDR "100\tcoll m1-h1x4-n2 alltoall 4 64K\tbruck\n"
                           "200\tp2p m1-h1x4-n2 b00ff 4 c0123\tguarded\n";
    struct aot_cache_table t = {0};
    struct aot_cache_damage d;
    size_t len;
    char *out;

    ck_assert_int_eq(parse(text, &t, &d), 0);
    ck_assert_uint_eq(t.n, 2);
    ck_assert_str_eq(get(&t, "coll m1-h1x4-n2 alltoall 4 64K"), "bruck");
    ck_assert_str_eq(get(&t, "p2p m1-h1x4-n2 b00ff 4 c0123"), "guarded");
    ck_assert_ptr_null(get(&t, "p2p m1-h1x4-n2 b00ff 4"));
    out = aot_cache_serialise(&t, &len);
    ck_assert_ptr_nonnull(out);
    ck_assert_str_eq(out, text);
    ck_assert_uint_eq(len, strlen(text));
    free(out);
    aot_cache_table_free(&t);
}
END_TEST

/* Entries out of key order and a key twice: sorted, the newer stamp wins. */
START_TEST(unsorted_and_repeated)
{
    const char *text = HDR "5\tz\t1\n" "9\ta\tnew\n" "3\ta\told\n" "7\tm\t2\n";
    struct aot_cache_table t = {0};
    struct aot_cache_damage d;
    size_t len;
    char *out;

    ck_assert_int_eq(parse(text, &t, &d), 0);
    out = aot_cache_serialise(&t, &len);
    ck_assert_str_eq(out, HDR "9\ta\tnew\n" "7\tm\t2\n" "5\tz\t1\n");
    free(out);
    aot_cache_table_free(&t);
}
END_TEST

START_TEST(garbage_file)
{
    struct aot_cache_table t = {0};
    struct aot_cache_damage d;

    ck_assert_int_eq(parse("\x7f" "ELF\x01\x02 garbage\nmore\n", &t, &d), 1);
    ck_assert_int_eq(d.whole, 1);
    ck_assert_uint_eq(d.first_bad, 1);
    ck_assert_uint_eq(t.n, 0);
    ck_assert_ptr_nonnull(strstr(d.why, "first line"));
    /* another version's header: not read either */
    ck_assert_int_eq(parse("autoopt-cache 2\n1\ta\tb\n", &t, &d), 1);
    ck_assert_int_eq(d.whole, 1);
    ck_assert_uint_eq(t.n, 0);
    ck_assert_int_eq(aot_cache_parse("", 0, &t, &d), 1);
    ck_assert_int_eq(d.whole, 1);
    /* a file cut inside its header */
    ck_assert_int_eq(parse("autoopt-ca", &t, &d), 1);
    ck_assert_int_eq(d.whole, 1);
    aot_cache_table_free(&t);
}
END_TEST

START_TEST(truncated_file)
{
    struct aot_cache_table t = {0};
    struct aot_cache_damage d;

    ck_assert_int_eq(parse(HDR "1\tk1\tv1\n2\tk2\tv", &t, &d), 1);
    ck_assert_int_eq(d.whole, 0);
    ck_assert_uint_eq(d.bad, 1);
    ck_assert_uint_eq(d.first_bad, 3);
    ck_assert_ptr_nonnull(strstr(d.why, "cut short"));
    ck_assert_uint_eq(t.n, 1);          /* the good line is kept */
    ck_assert_str_eq(get(&t, "k1"), "v1");
    aot_cache_table_free(&t);
}
END_TEST

START_TEST(bad_lines)
{
    struct aot_cache_table t = {0};
    struct aot_cache_damage d;
    const char *text = HDR "1\tgood one\tv\n"
                           "x\tk\tv\n"              /* 3: time not a number */
                           "2\tonly two fields\n"   /* 4 */
                           "3\t double  space\tv\n" /* 5: key with bad spaces */
                           "4\tk\t\n"               /* 6: empty value */
                           "5\tk\tv\x01\n"          /* 7: control character */
                           "-6\tk\tv\n"             /* 8: negative time */
                           "7\tgood two\tw\n";

    ck_assert_int_eq(parse(text, &t, &d), 1);
    ck_assert_int_eq(d.whole, 0);
    ck_assert_uint_eq(d.bad, 6);
    ck_assert_uint_eq(d.first_bad, 3);
    ck_assert_ptr_nonnull(strstr(d.why, "number"));
    ck_assert_uint_eq(t.n, 2);
    ck_assert_str_eq(get(&t, "good two"), "w");
    aot_cache_table_free(&t);
}
END_TEST

/* Two jobs' tables: every key of both survives; the newer value wins; a tie goes to from. */
START_TEST(merge_keeps_both)
{
    struct aot_cache_table file = {0}, run = {0};
    struct aot_cache_damage d;

    ck_assert_int_eq(parse(HDR "10\ta\tfile\n10\tb\tfile\n30\tc\tfile\n10\td\tfile\n", &file, &d),
                     0);
    ck_assert_int_eq(aot_cache_table_set(&run, "b", "run", 20), 0);   /* newer: wins */
    ck_assert_int_eq(aot_cache_table_set(&run, "c", "run", 20), 0);   /* older: loses */
    ck_assert_int_eq(aot_cache_table_set(&run, "d", "run", 10), 0);   /* tie: from wins */
    ck_assert_int_eq(aot_cache_table_set(&run, "e", "run", 5), 0);    /* new key */
    ck_assert_int_eq(aot_cache_merge(&file, &run), 0);
    ck_assert_uint_eq(file.n, 5);
    ck_assert_str_eq(get(&file, "a"), "file");
    ck_assert_str_eq(get(&file, "b"), "run");
    ck_assert_str_eq(get(&file, "c"), "file");
    ck_assert_str_eq(get(&file, "d"), "run");
    ck_assert_str_eq(get(&file, "e"), "run");
    aot_cache_table_free(&file);
    aot_cache_table_free(&run);
}
END_TEST

START_TEST(cap_drops_oldest)
{
    struct aot_cache_table t = {0}, more = {0};
    char key[32];

    for (int i = 0; i < AOT_CACHE_MAX_ENTRIES; i++) {
        snprintf(key, sizeof(key), "k%05d", i);
        ck_assert_int_eq(aot_cache_table_set(&t, key, "v", 1000 + i), 0);
    }
    ck_assert_int_eq(aot_cache_table_set(&more, "new1", "v", 99999), 0);
    ck_assert_int_eq(aot_cache_table_set(&more, "new2", "v", 99999), 0);
    ck_assert_int_eq(aot_cache_merge(&t, &more), 0);
    ck_assert_uint_eq(t.n, AOT_CACHE_MAX_ENTRIES);
    ck_assert_ptr_null(get(&t, "k00000"));
    ck_assert_ptr_null(get(&t, "k00001"));
    ck_assert_ptr_nonnull(get(&t, "k00002"));
    ck_assert_ptr_nonnull(get(&t, "new1"));
    ck_assert_ptr_nonnull(get(&t, "new2"));
    aot_cache_table_free(&t);
    aot_cache_table_free(&more);
}
END_TEST

START_TEST(text_checks)
{
    char longkey[AOT_CACHE_MAX_KEY + 2];
    struct aot_cache_table t = {0};

    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    ck_assert_int_eq(aot_cache_text_ok("p2p fp prog 4 c12", 1), 1);
    ck_assert_int_eq(aot_cache_text_ok("two words", 0), 1);
    ck_assert_int_eq(aot_cache_text_ok("", 1), 0);
    ck_assert_int_eq(aot_cache_text_ok("a\tb", 1), 0);
    ck_assert_int_eq(aot_cache_text_ok("a\tb", 0), 0);
    ck_assert_int_eq(aot_cache_text_ok("a\nb", 0), 0);
    ck_assert_int_eq(aot_cache_text_ok("trailing ", 1), 0);
    ck_assert_int_eq(aot_cache_text_ok(longkey, 1), 0);
    ck_assert_int_eq(aot_cache_text_ok("caf\xc3\xa9", 0), 0);
    ck_assert_int_eq(aot_cache_table_set(&t, "a\tb", "v", 1), -1);
    ck_assert_uint_eq(t.n, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, unsorted_and_repeated);
    tcase_add_test(tc, garbage_file);
    tcase_add_test(tc, truncated_file);
    tcase_add_test(tc, bad_lines);
    tcase_add_test(tc, merge_keeps_both);
    tcase_add_test(tc, cap_drops_oldest);
    tcase_add_test(tc, text_checks);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
