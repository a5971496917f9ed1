/*
 * test_mem: the services of src/aot_mem.h.  The arena (size classes, reuse, zeroing, large
 * objects and their bounded cache, shadow alignment); the mapping query against the truth of
 * /proc/self/maps, read here with stdio, on regions this test maps itself (private read-write,
 * shared, read-only, no access, a hole), asked through PROCMAP_QUERY where the kernel has it
 * and through the forced /proc/self/maps fallback; the cache and its invalidation by the
 * exported munmap, mprotect and fixed mmap of paging/syscalls.c; the stack query.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "aot_mem.h"
#include "proc_maps.h"

static size_t ps;

static void setup(void)
{
    ps = (size_t) sysconf(_SC_PAGESIZE);
}

static int mapped(const void *p)
{
    unsigned char v;
    return mincore((void *) ((uintptr_t) p & ~(ps - 1)), ps, &v) == 0;
}

/* ---------------------------------------------------------------- arena */

START_TEST(test_arena_classes)
{
    size_t sizes[] = { 0, 1, 15, 16, 17, 100, 128, 129, 1000, 4095, 4096, 5000, 40000, 65536 };
    void *p[sizeof(sizes) / sizeof(sizes[0])];
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t cls = 16, align;
        while (cls < sizes[i])
            cls *= 2;
        align = cls < ps ? cls : ps;
        p[i] = aot_mem_alloc(sizes[i]);
        ck_assert_ptr_nonnull(p[i]);
        ck_assert_msg((uintptr_t) p[i] % align == 0, "%zu B at %p: not aligned to %zu", sizes[i],
                      p[i], align);
        memset(p[i], 0x5a, cls);         /* the whole class is usable */
        for (size_t j = 0; j < i; j++) {
            size_t cj = 16;
            while (cj < sizes[j])
                cj *= 2;
            ck_assert_msg((char *) p[i] >= (char *) p[j] + cj ||
                          (char *) p[j] >= (char *) p[i] + cls, "blocks %zu and %zu overlap", i, j);
        }
    }
}
END_TEST

START_TEST(test_arena_reuse)
{
    char *a = aot_mem_alloc(100), *b, *c;
    aot_mem_free(a, 100);
    b = aot_mem_alloc(120);             /* the same class (128) */
    ck_assert_ptr_eq(a, b);
    c = aot_mem_alloc(100);             /* none free now: a new block */
    ck_assert_ptr_ne(c, b);
    aot_mem_free(b, 120);
    ck_assert_ptr_ne(aot_mem_alloc(64), b);     /* another class */
    aot_mem_free(c, 100);
    ck_assert_ptr_eq(aot_mem_alloc(65), c);     /* last freed, first reused */
    ck_assert_ptr_eq(aot_mem_alloc(128), b);
}
END_TEST

START_TEST(test_arena_zero)
{
    unsigned char *a = aot_mem_zalloc(300), *b;
    for (int i = 0; i < 300; i++)
        ck_assert_int_eq(a[i], 0);
    memset(a, 0xab, 512);
    aot_mem_free(a, 300);
    b = aot_mem_zalloc(400);            /* the same block, zeroed again */
    ck_assert_ptr_eq(a, b);
    for (int i = 0; i < 400; i++)
        ck_assert_int_eq(b[i], 0);

    /* large: a fresh mapping, then the cached one */
    a = aot_mem_zalloc(1 << 20);
    for (int i = 0; i < 1 << 20; i += 4093)
        ck_assert_int_eq(a[i], 0);
    memset(a, 0xcd, 1 << 20);
    aot_mem_free(a, 1 << 20);
    b = aot_mem_zalloc(1 << 20);
    ck_assert_ptr_eq(a, b);
    for (int i = 0; i < 1 << 20; i++)
        if (b[i])
            ck_abort_msg("byte %d of a reused large block is %d", i, b[i]);
}
END_TEST

START_TEST(test_arena_large)
{
    size_t big = (size_t) 256 << 20;
    char *a = aot_mem_alloc(100000), *b, *x, *y, *z;

    /* beyond 64 KiB: a mapping of the class size (128 KiB), page-aligned */
    ck_assert((uintptr_t) a % ps == 0);
    memset(a, 1, 131072);
    aot_mem_free(a, 100000);
    ck_assert(mapped(a));               /* kept for reuse */
    b = aot_mem_alloc(131072);
    ck_assert_ptr_eq(a, b);

    /* the cache keeps at most AOT_MEM_SHADOW_KEEP bytes: the third 256 MiB object is unmapped */
    ck_assert_uint_eq(AOT_MEM_SHADOW_KEEP, 2 * big);
    x = aot_mem_alloc(big);
    y = aot_mem_alloc(big);
    z = aot_mem_alloc(big);
    ck_assert(x && y && z);
    aot_mem_free(x, big);
    aot_mem_free(y, big);
    aot_mem_free(z, big);
    ck_assert(mapped(x) && mapped(y));
    ck_assert(!mapped(z));
    ck_assert_ptr_eq(aot_mem_alloc(big), y);
    ck_assert_ptr_eq(aot_mem_alloc(big), x);
}
END_TEST

START_TEST(test_arena_shadow)
{
    size_t cap;
    char *s = aot_mem_shadow_get(100, &cap), *t;
    ck_assert_uint_eq(cap, ps);
    ck_assert((uintptr_t) s % ps == 0);
    aot_mem_alloc(16);                  /* a small block between two shadows */
    t = aot_mem_shadow_get(5000, &cap);
    ck_assert_uint_eq(cap, 8192);
    ck_assert((uintptr_t) t % ps == 0);
    s = aot_mem_shadow_get(300000, &cap);
    ck_assert_uint_eq(cap, (size_t) 1 << 19);
    ck_assert((uintptr_t) s % ps == 0);
    aot_mem_shadow_put(s, cap);
    ck_assert_ptr_eq(aot_mem_shadow_get(262145, &cap), s);     /* same class: reused */
    aot_mem_shadow_put(t, 8192);
    ck_assert_ptr_eq(aot_mem_shadow_get(8000, &cap), t);
}
END_TEST

/* ---------------------------------------------------------------- mappings */

/* Eight pages: 0 private rw, 1 shared rw, 2 private read-only, 3 no access, 4 a hole,
 * 5 and 6 private rw, 7 private r-x.  Laid out with the exported mmap and munmap. */
static char *layout(void)
{
    char *r = mmap(NULL, 8 * ps, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    const int prot[8] = { PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE, PROT_READ, PROT_NONE,
                          0, PROT_READ | PROT_WRITE, PROT_READ | PROT_WRITE,
                          PROT_READ | PROT_EXEC };
    ck_assert(r != MAP_FAILED);
    for (int i = 0; i < 8; i++) {
        int flags = (i == 1 ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS | MAP_FIXED;
        if (i == 4)
            ck_assert_int_eq(munmap(r + 4 * ps, ps), 0);
        else
            ck_assert(mmap(r + i * ps, ps, prot[i], flags, -1, 0) == r + i * ps);
    }
    return r;
}

/* Every page of the layout and one byte inside it: the query against the truth. */
static void compare_all(const char *r)
{
    for (int i = 0; i < 8; i++) {
        uintptr_t at = (uintptr_t) r + (size_t) i * ps + 100;
        struct aot_map q, t;
        int qr = aot_maps_find(at, &q), tr = proc_maps_find(at, &t);
        ck_assert_msg(qr == tr, "page %d: query %d, truth %d", i, qr, tr);
        if (tr != 0)
            continue;
        ck_assert_msg(q.lo == t.lo && q.hi == t.hi, "page %d: [%lx, %lx) against [%lx, %lx)", i,
                      (unsigned long) q.lo, (unsigned long) q.hi, (unsigned long) t.lo,
                      (unsigned long) t.hi);
        ck_assert_msg(q.prot == t.prot, "page %d: prot %d against %d", i, q.prot, t.prot);
        ck_assert_msg(q.shared == t.shared, "page %d: shared %d against %d", i, q.shared,
                      t.shared);
    }
}

static void check_verdicts(const char *r)
{
    uintptr_t b = (uintptr_t) r;
    const int rw = PROT_READ | PROT_WRITE;
    ck_assert_int_eq(aot_maps_check(b, b + ps, rw), AOT_MAPS_OK);
    ck_assert_int_eq(aot_maps_check(b + 10, b + 20, rw), AOT_MAPS_OK);
    ck_assert_int_eq(aot_maps_check(b, b + 2 * ps, rw), AOT_MAPS_SHARED);
    ck_assert_int_eq(aot_maps_check(b + ps, b + ps + 1, PROT_READ), AOT_MAPS_SHARED);
    ck_assert_int_eq(aot_maps_check(b + 2 * ps, b + 3 * ps, PROT_READ), AOT_MAPS_OK);
    ck_assert_int_eq(aot_maps_check(b + 2 * ps, b + 3 * ps, rw), AOT_MAPS_PROT);
    ck_assert_int_eq(aot_maps_check(b + 3 * ps, b + 4 * ps, PROT_READ), AOT_MAPS_PROT);
    ck_assert_int_eq(aot_maps_check(b + 4 * ps, b + 5 * ps, PROT_READ), AOT_MAPS_UNMAPPED);
    ck_assert_int_eq(aot_maps_check(b + 3 * ps, b + 6 * ps, 0), AOT_MAPS_UNMAPPED);
    ck_assert_int_eq(aot_maps_check(b + 5 * ps, b + 7 * ps, rw), AOT_MAPS_OK);
    ck_assert_int_eq(aot_maps_check(b + 5 * ps, b + 8 * ps, rw), AOT_MAPS_PROT);
    ck_assert_int_eq(aot_maps_check(b + 7 * ps, b + 8 * ps, PROT_READ | PROT_EXEC), AOT_MAPS_OK);
    ck_assert_int_eq(aot_maps_check(b + 5 * ps, b + 5 * ps, rw), AOT_MAPS_OK);     /* empty */
}

/* The query in one mode (text: the forced /proc/self/maps fallback) against the truth. */
static void maps_against_truth(int text)
{
    char *r = layout();
    uint64_t q0, r0, q1, r1;

    aot_maps_force_text(text);
    aot_maps_invalidate();
    aot_maps_counts(&q0, &r0);
    compare_all(r);
    check_verdicts(r);
    aot_maps_counts(&q1, &r1);
    if (text) {
        ck_assert_uint_eq(q1, q0);          /* the ioctl is never tried */
        ck_assert_uint_gt(r1, r0);
    } else if (aot_maps_have_query() == 1) {
        ck_assert_uint_gt(q1, q0);
        ck_assert_uint_eq(r1, r0);          /* the table is never read */
    } else {
        ck_assert_int_eq(aot_maps_have_query(), 0);
        ck_assert_uint_gt(r1, r0);
    }
    /* everything found is cached now: asking again costs no system call */
    compare_all(r);
    aot_maps_counts(&q0, &r0);
    for (int i = 0; i < 8; i++) {
        struct aot_map m;
        if (i != 4)
            ck_assert_int_eq(aot_maps_find((uintptr_t) r + (size_t) i * ps, &m), 0);
    }
    aot_maps_counts(&q1, &r1);
    ck_assert_uint_eq(q1, q0);
    ck_assert_uint_eq(r1, r0);
}

START_TEST(test_maps_query)
{
    maps_against_truth(0);
    fprintf(stderr, "test_mem: PROCMAP_QUERY %s on this kernel\n",
            aot_maps_have_query() == 1 ? "works" : "is not available");
}
END_TEST

START_TEST(test_maps_text)
{
    maps_against_truth(1);
}
END_TEST

/* The cache forgets through the exported munmap, mprotect and fixed mmap, not through
 * autoopt's own aot_sys_mprotect (guards keep the program's protection in the cache). */
static void maps_invalidation(int text)
{
    char *r = layout();
    uintptr_t b = (uintptr_t) r;
    struct aot_map m;
    uint64_t q0, r0, q1, r1;

    /* x86-64: UCX's patch, "jmp rel32" or "movabs $to, %rax; jmp *%rax", where the wrapper's
     * code should be */
    const volatile unsigned char *code = (const volatile unsigned char *) (uintptr_t) munmap;
    ck_assert_msg(code[0] != 0xe9 && !(code[0] == 0x48 && code[1] == 0xb8),
                  "munmap was patched (UCX's memory hooks): run with UCX_MEM_MMAP_HOOK_MODE=none");

    aot_maps_force_text(text);
    aot_maps_invalidate();
    ck_assert_int_eq(aot_maps_check(b + 5 * ps, b + 7 * ps, PROT_READ | PROT_WRITE),
                     AOT_MAPS_OK);

    /* a guard-like change with the raw system call: the cache still says rw */
    ck_assert_int_eq(aot_sys_mprotect(b + 5 * ps, ps, PROT_NONE), 0);
    ck_assert_int_eq(aot_maps_find(b + 5 * ps, &m), 0);
    ck_assert_int_eq(m.prot, PROT_READ | PROT_WRITE);
    ck_assert_int_eq(aot_sys_mprotect(b + 5 * ps, ps, PROT_READ | PROT_WRITE), 0);

    /* the exported munmap: the page is gone, and the next query asks the kernel */
    aot_maps_counts(&q0, &r0);
    ck_assert_int_eq(munmap(r + 6 * ps, ps), 0);
    ck_assert_int_ne(aot_maps_find(b + 6 * ps, &m), 0);
    ck_assert_int_eq(aot_maps_check(b + 5 * ps, b + 7 * ps, PROT_READ | PROT_WRITE),
                     AOT_MAPS_UNMAPPED);
    aot_maps_counts(&q1, &r1);
    ck_assert(q1 + r1 > q0 + r0);

    /* the exported mprotect */
    ck_assert_int_eq(aot_maps_find(b, &m), 0);
    ck_assert_int_eq(m.prot, PROT_READ | PROT_WRITE);
    ck_assert_int_eq(mprotect(r, ps, PROT_READ), 0);
    ck_assert_int_eq(aot_maps_find(b, &m), 0);
    ck_assert_int_eq(m.prot, PROT_READ);
    ck_assert_int_eq(aot_maps_check(b, b + ps, PROT_READ | PROT_WRITE), AOT_MAPS_PROT);

    /* the exported fixed mmap: the no-access page becomes private rw */
    ck_assert_int_eq(aot_maps_check(b + 3 * ps, b + 4 * ps, PROT_READ), AOT_MAPS_PROT);
    ck_assert(mmap(r + 3 * ps, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                   -1, 0) == r + 3 * ps);
    ck_assert_int_eq(aot_maps_check(b + 3 * ps, b + 4 * ps, PROT_READ | PROT_WRITE),
                     AOT_MAPS_OK);
    compare_all(r);
}

START_TEST(test_maps_invalidate_query)
{
    maps_invalidation(0);
}
END_TEST

START_TEST(test_maps_invalidate_text)
{
    maps_invalidation(1);
}
END_TEST

/* ---------------------------------------------------------------- stacks */

static char *main_local;

static void *thread_main(void *arg)
{
    char local[64];
    uintptr_t lo, hi;
    int *ok = arg;

    memset(local, 1, sizeof(local));
    aot_stack_bounds(&lo, &hi);
    *ok = (uintptr_t) local >= lo && (uintptr_t) local < hi &&          /* its own */
          aot_on_stack((uintptr_t) local, (uintptr_t) local + 64) &&
          aot_on_stack((uintptr_t) main_local, (uintptr_t) main_local + 8) &&   /* the main one */
          !((uintptr_t) main_local >= lo && (uintptr_t) main_local < hi);
    return NULL;
}

START_TEST(test_stack)
{
    char local[64];
    char *heap = malloc(64);
    uintptr_t lo, hi;
    pthread_t t;
    int ok = 0;

    memset(local, 0, sizeof(local));
    main_local = local;
    aot_stack_main_init();
    aot_stack_bounds(&lo, &hi);
    ck_assert((uintptr_t) local >= lo && (uintptr_t) local < hi);
    ck_assert(aot_on_stack((uintptr_t) local, (uintptr_t) local + 64));
    ck_assert(!aot_on_stack((uintptr_t) heap, (uintptr_t) heap + 64));
    ck_assert(!aot_on_stack(lo - 64, lo));           /* ends where the stack begins */
    ck_assert(aot_on_stack(lo - 64, lo + 1));
    ck_assert_int_eq(pthread_create(&t, NULL, thread_main, &ok), 0);
    pthread_join(t, NULL);
    ck_assert_msg(ok, "a thread's stack query");
    free(heap);
}
END_TEST

/* A thread on a stack of the test's own: the bounds are exactly that memory. */
static void *thread_bounds(void *arg)
{
    uintptr_t *b = arg;
    aot_stack_bounds(&b[0], &b[1]);
    return NULL;
}

START_TEST(test_stack_exact)
{
    size_t size = 256 << 10;
    void *stack = aligned_alloc(ps, size);
    uintptr_t b[2] = { 0, 0 };
    pthread_attr_t a;
    pthread_t t;

    ck_assert_ptr_nonnull(stack);
    pthread_attr_init(&a);
    ck_assert_int_eq(pthread_attr_setstack(&a, stack, size), 0);
    ck_assert_int_eq(pthread_create(&t, &a, thread_bounds, b), 0);
    pthread_join(t, NULL);
    pthread_attr_destroy(&a);
    ck_assert(b[0] == (uintptr_t) stack && b[1] == (uintptr_t) stack + size);
    free(stack);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mem");
    TCase *a = tcase_create("arena"), *m = tcase_create("maps"), *k = tcase_create("stack");
    SRunner *sr;
    int failed;

    tcase_add_checked_fixture(a, setup, NULL);
    tcase_add_checked_fixture(m, setup, NULL);
    tcase_add_test(a, test_arena_classes);
    tcase_add_test(a, test_arena_reuse);
    tcase_add_test(a, test_arena_zero);
    tcase_add_test(a, test_arena_large);
    tcase_add_test(a, test_arena_shadow);
    tcase_add_test(m, test_maps_query);
    tcase_add_test(m, test_maps_text);
    tcase_add_test(m, test_maps_invalidate_query);
    tcase_add_test(m, test_maps_invalidate_text);
    tcase_add_checked_fixture(k, setup, NULL);
    tcase_add_test(k, test_stack);
    tcase_add_test(k, test_stack_exact);
    suite_add_tcase(s, a);
    suite_add_tcase(s, m);
    suite_add_tcase(s, k);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
