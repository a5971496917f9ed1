/*
 * test_paging_ranges: the pure parts of paging/ (range merging, page runs) and the page table
 * on real anonymous mappings: owner counts, the protection in force, merging of neighbours,
 * lifting and restoring, and removal back to the original protection.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "paging.h"
#include "proc_maps.h"

/* The protection of the page at addr as /proc/self/maps shows it (r, w bits), or -1. */
static int prot_of(const void *addr)
{
    struct aot_map m;
    if (proc_maps_find((uintptr_t) addr, &m) != 0)
        return -1;
    return m.prot & (PROT_READ | PROT_WRITE);
}

START_TEST(test_normalize)
{
    struct aot_pg_range r[] = { { 40, 50 }, { 0, 8 }, { 8, 16 }, { 30, 41 }, { 60, 60 }, { 100, 120 } };
    int n = aot_pg_ranges_normalize(r, 6);
    ck_assert_int_eq(n, 3);
    ck_assert(r[0].lo == 0 && r[0].hi == 16);
    ck_assert(r[1].lo == 30 && r[1].hi == 50);
    ck_assert(r[2].lo == 100 && r[2].hi == 120);
    ck_assert(aot_pg_ranges_meet(r, n, 15, 16));
    ck_assert(!aot_pg_ranges_meet(r, n, 16, 30));
    ck_assert(aot_pg_ranges_meet(r, n, 16, 31));
    ck_assert(!aot_pg_ranges_meet(r, n, 50, 100));
    ck_assert(aot_pg_ranges_meet(r, n, 119, 500));
    ck_assert(!aot_pg_ranges_meet(r, n, -5, 0));
}
END_TEST

START_TEST(test_page_runs)
{
    /* a column of a row-major grid with 16 KiB rows: one page per element */
    struct aot_pg_range r[8];
    struct aot_pg_run runs[8];
    for (int i = 0; i < 8; i++) {
        r[i].lo = 0x100000 + i * 16384 + 8;
        r[i].hi = r[i].lo + 8;
    }
    ck_assert_int_eq(aot_pg_page_runs(r, 8, runs), 8);
    ck_assert(runs[1].p0 == AOT_PG_PAGE(0x100000 + 16384) && runs[1].p1 == runs[1].p0 + 1);
    /* ranges on neighbouring pages merge into one run */
    r[0].lo = 0x200000 + 4000;
    r[0].hi = 0x200000 + 4100;                /* pages 0 and 1 */
    r[1].lo = 0x200000 + 5000;
    r[1].hi = 0x200000 + 9000;                /* pages 1 and 2 */
    r[2].lo = 0x200000 + 12288;
    r[2].hi = 0x200000 + 12289;               /* page 3 */
    ck_assert_int_eq(aot_pg_page_runs(r, 3, runs), 1);
    ck_assert(runs[0].p0 == AOT_PG_PAGE(0x200000) && runs[0].p1 == AOT_PG_PAGE(0x200000) + 4);
}
END_TEST

START_TEST(test_page_table)
{
    long ps = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 8 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uintptr_t p = AOT_PG_PAGE(m);
    struct aot_pg_run send = { p + 1, p + 4 }, recv = { p + 3, p + 6 };
    const struct aot_pg_seg *s;

    ck_assert(m != MAP_FAILED);
    ck_assert_int_eq(aot_pg_guard_init(100), 0);
    ck_assert_int_eq(aot_pg_guard_check(&send, 1, AOT_PG_SEND), 0);
    ck_assert_int_eq(aot_pg_guard_add(&send, 1, AOT_PG_SEND), 0);
    ck_assert_int_eq(prot_of(m + 2 * ps), PROT_READ);
    ck_assert_int_eq(prot_of(m), PROT_READ | PROT_WRITE);
    ck_assert_int_eq(aot_pg_guard_add(&recv, 1, AOT_PG_RECV), 0);
    /* page 3 holds both: no access; pages 1-2 read-only; 4-5 no access */
    ck_assert_int_eq(prot_of(m + 1 * ps), PROT_READ);
    ck_assert_int_eq(prot_of(m + 3 * ps), 0);
    ck_assert_int_eq(prot_of(m + 5 * ps), 0);
    ck_assert_int_eq(prot_of(m + 6 * ps), PROT_READ | PROT_WRITE);
    s = aot_pg_seg_find(p + 3);
    ck_assert(s && s->nsend == 1 && s->nrecv == 1);
    ck_assert_int_eq(aot_pg_nseg, 3);          /* [1,3) send, [3,4) both, [4,6) recv */
    ck_assert(aot_pg_guarded_meet((uintptr_t) m + 4 * ps, (uintptr_t) m + 4 * ps + 1));
    ck_assert(!aot_pg_guarded_meet((uintptr_t) m, (uintptr_t) m + ps));
    /* lift for a system call and restore */
    aot_pg_pages_lift(p + 3, p + 5);
    ck_assert_int_eq(prot_of(m + 4 * ps), PROT_READ | PROT_WRITE);
    aot_pg_pages_restore(p + 3, p + 5);
    ck_assert_int_eq(prot_of(m + 4 * ps), 0);
    /* a second send on the same pages adds no segment and no protection change */
    ck_assert_int_eq(aot_pg_guard_add(&send, 1, AOT_PG_SEND), 0);
    ck_assert_int_eq(aot_pg_nseg, 3);
    aot_pg_guard_remove(&send, 1, AOT_PG_SEND);
    aot_pg_guard_remove(&recv, 1, AOT_PG_RECV);
    ck_assert_int_eq(prot_of(m + 3 * ps), PROT_READ);
    ck_assert_int_eq(prot_of(m + 5 * ps), PROT_READ | PROT_WRITE);
    aot_pg_guard_remove(&send, 1, AOT_PG_SEND);
    ck_assert_int_eq(aot_pg_nseg, 0);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(prot_of(m + i * ps), PROT_READ | PROT_WRITE);
    munmap(m, 8 * ps);
}
END_TEST

START_TEST(test_page_table_cap)
{
    long ps = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 64 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct aot_pg_run runs[20];
    uintptr_t p = AOT_PG_PAGE(m);
    ck_assert_int_eq(aot_pg_guard_init(10), 0);
    for (int i = 0; i < 20; i++) {
        runs[i].p0 = p + 2 * i;           /* every other page: one segment each */
        runs[i].p1 = p + 2 * i + 1;
    }
    ck_assert_int_eq(aot_pg_guard_check(runs, 20, AOT_PG_RECV), AOT_PASS_GUARD_CAP);
    ck_assert_int_eq(aot_pg_guard_check(runs, 3, AOT_PG_RECV), 0);
    ck_assert_int_ne(aot_pg_guard_add(runs, 20, AOT_PG_RECV), 0);
    ck_assert_int_eq(aot_pg_nseg, 0);            /* refused whole */
    ck_assert_int_eq(prot_of(m), PROT_READ | PROT_WRITE);
    munmap(m, 64 * ps);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("paging");
    TCase *tc = tcase_create("ranges");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_normalize);
    tcase_add_test(tc, test_page_runs);
    tcase_add_test(tc, test_page_table);
    tcase_add_test(tc, test_page_table_cap);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
