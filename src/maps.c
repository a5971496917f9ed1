/*
 * maps.c: where a buffer lives -- thread stacks and the process's mappings (aot_mem.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Paging asks whether the pages of a request can be guarded (private, readable, and writable
 * for a receive) and what protection each page has; chains asks whether a buffer's pages are
 * private and read-write (lifting a probe restores PROT_READ | PROT_WRITE).  Both get their
 * answers from one cache of mappings, a sorted array in arena memory.
 *
 * A miss asks the kernel.  Linux 6.11 and later answer for one address with the PROCMAP_QUERY
 * ioctl on /proc/self/maps (about 1 us with the open and close); the mapping it returns joins
 * the cache.  Older kernels only print the whole table, which costs 0.4 ms for the 250
 * mappings of an MPICH process: it is read again whole, replacing the cache.  An address that
 * is not mapped is never cached, so a new mapping is always found.
 *
 * The cache is forgotten by aot_maps_invalidate(), which the exported munmap, mremap, mprotect
 * and fixed mmap of paging/syscalls.c call (whoever calls them: the program, MPI, UCX).  It is
 * not forgotten when autoopt itself guards or probes pages with aot_sys_mprotect: the cache
 * keeps the protections the program gave its memory, which is what paging records as a page's
 * original protection.  Changes made inside the C library without its exported entry points
 * (malloc's own mmap and munmap) are not seen until the next invalidation; those mappings are
 * private and read-write, as the cache says of them.
 *
 * Everything is read with raw system calls (aot_syscall), without stdio or malloc: a query may
 * come while the program holds a FILE lock or is inside the allocator (a libc wrapper), and an
 * fd is never kept open (the program could close it, or a child inherit it).
 * Not thread-safe: queries come from the thread that makes MPI calls.  Invalidation is one
 * atomic increment of a generation number, from any thread or signal handler; a query that
 * sees a newer generation than its cache's starts from an empty one.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>

#include "aot_mem.h"
#include "aot_sys.h"

/* ---------------------------------------------------------------- stacks */

static uintptr_t aot_stk_main_lo, aot_stk_main_hi;
static __thread uintptr_t aot_stk_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t aot_stk_hi __attribute__((tls_model("initial-exec")));

void aot_stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
    if (!aot_stk_hi) {
        pthread_attr_t a;
        void *addr = NULL;
        size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &a) == 0) {
            if (pthread_attr_getstack(&a, &addr, &size) == 0) {
                aot_stk_lo = (uintptr_t) addr;
                aot_stk_hi = (uintptr_t) addr + size;
            }
            pthread_attr_destroy(&a);
        }
    }
    *lo = aot_stk_lo;
    *hi = aot_stk_hi;
}

void aot_stack_main_init(void)
{
    aot_stack_bounds(&aot_stk_main_lo, &aot_stk_main_hi);
}

int aot_on_stack(uintptr_t lo, uintptr_t hi)
{
    uintptr_t a, b;
    aot_stack_bounds(&a, &b);
    if (lo < b && hi > a)
        return 1;
    return lo < aot_stk_main_hi && hi > aot_stk_main_lo;
}

/* ---------------------------------------------------------------- the cache */

static struct aot_map *aot_maps_tab;         /* sorted by address, disjoint */
static int aot_maps_n, aot_maps_cap;
static unsigned aot_maps_tab_gen;            /* the generation the table holds */
static unsigned aot_maps_gen = 1;            /* bumped by aot_maps_invalidate */
static int aot_maps_text_only;               /* aot_maps_force_text */
static uint64_t aot_maps_nqueries, aot_maps_nreads;

void aot_maps_invalidate(void)
{
    __atomic_fetch_add(&aot_maps_gen, 1, __ATOMIC_RELEASE);
}

/* The first entry ending above addr. */
static int aot_maps_lower(uintptr_t addr)
{
    int a = 0, b = aot_maps_n;
    while (a < b) {
        int mid = a + (b - a) / 2;
        if (aot_maps_tab[mid].hi <= addr)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

static int aot_maps_cached(uintptr_t addr, struct aot_map *m)
{
    int i = aot_maps_lower(addr);
    if (i < aot_maps_n && aot_maps_tab[i].lo <= addr) {
        *m = aot_maps_tab[i];
        return 1;
    }
    return 0;
}

/* Room for at least need entries (the old ones kept).  0, or -1. */
static int aot_maps_reserve(int need)
{
    int cap = aot_maps_cap ? aot_maps_cap : 256;
    struct aot_map *t;

    if (need <= aot_maps_cap)
        return 0;
    while (cap < need)
        cap *= 2;
    t = aot_mem_alloc((size_t) cap * sizeof(*t));
    if (!t)
        return -1;
    if (aot_maps_n)
        memcpy(t, aot_maps_tab, (size_t) aot_maps_n * sizeof(*t));
    aot_mem_free(aot_maps_tab, (size_t) aot_maps_cap * sizeof(*t));
    aot_maps_tab = t;
    aot_maps_cap = cap;
    return 0;
}

/* Adds m, replacing the entries it overlaps (they are older news). */
static void aot_maps_insert(const struct aot_map *m)
{
    int i = aot_maps_lower(m->lo), j = i;

    while (j < aot_maps_n && aot_maps_tab[j].lo < m->hi)
        j++;
    if (j == i && aot_maps_reserve(aot_maps_n + 1) != 0)
        return;                              /* not cached: asked again next time */
    memmove(&aot_maps_tab[i + 1], &aot_maps_tab[j], (size_t) (aot_maps_n - j) * sizeof(*m));
    aot_maps_tab[i] = *m;
    aot_maps_n += 1 - (j - i);
}

/* ---------------------------------------------------------------- PROCMAP_QUERY */

/* The kernel's struct procmap_query and its ioctl (uapi linux/fs.h, Linux 6.11), declared here
 * because Debian 12's headers predate it. */
struct aot_procmap_query {
    uint64_t size, query_flags, query_addr;
    uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
    uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
    uint64_t vma_name_addr, build_id_addr;
};
#define AOT_PROCMAP_QUERY _IOWR('f', 17, struct aot_procmap_query)
enum { AOT_VMA_R = 0x01, AOT_VMA_W = 0x02, AOT_VMA_X = 0x04, AOT_VMA_SHARED = 0x08 };

static int aot_maps_pmq = -1;                /* -1: not tried yet, 0: kernel lacks it, 1: works */

/* The mapping holding addr from the kernel: 1 found, 0 not mapped, -1 cannot tell. */
static int aot_maps_query(uintptr_t addr, struct aot_map *m)
{
    struct aot_procmap_query q;
    long fd, rc;
    int err;

    fd = aot_syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    memset(&q, 0, sizeof(q));
    q.size = sizeof(q);
    q.query_addr = addr;                     /* flags 0: only the mapping covering addr */
    rc = aot_syscall(SYS_ioctl, fd, AOT_PROCMAP_QUERY, &q);
    err = errno;
    aot_syscall(SYS_close, fd);
    aot_maps_nqueries++;
    if (rc != 0) {
        if (aot_maps_pmq < 0 && (err == ENOTTY || err == EINVAL || err == EOPNOTSUPP)) {
            aot_maps_pmq = 0;                /* the kernel does not know the ioctl */
            return -1;
        }
        return err == ENOENT ? 0 : -1;
    }
    aot_maps_pmq = 1;
    if (q.vma_start > addr || q.vma_end <= addr)
        return 0;
    m->lo = (uintptr_t) q.vma_start;
    m->hi = (uintptr_t) q.vma_end;
    m->prot = (q.vma_flags & AOT_VMA_R ? PROT_READ : 0) |
              (q.vma_flags & AOT_VMA_W ? PROT_WRITE : 0) |
              (q.vma_flags & AOT_VMA_X ? PROT_EXEC : 0);
    m->shared = (q.vma_flags & AOT_VMA_SHARED) != 0;
    return 1;
}

/* ---------------------------------------------------------------- /proc/self/maps */

static char *aot_maps_text;
static size_t aot_maps_text_cap;

/* Reads hex digits at *s; sets *ok when there was at least one. */
static uintptr_t aot_maps_hex(const char **s, int *ok)
{
    uintptr_t v = 0;
    *ok = 0;
    for (;; (*s)++) {
        char c = **s;
        if (c >= '0' && c <= '9')
            v = v * 16 + (uintptr_t) (c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v * 16 + (uintptr_t) (c - 'a' + 10);
        else
            return v;
        *ok = 1;
    }
}

/* The whole file into aot_maps_text (NUL-terminated), growing the buffer until it fits. */
static int aot_maps_slurp(void)
{
    for (;;) {
        size_t len = 0;
        long fd, n;

        if (!aot_maps_text) {
            if (!aot_maps_text_cap)
                aot_maps_text_cap = 256 << 10;
            aot_maps_text = aot_mem_alloc(aot_maps_text_cap);
            if (!aot_maps_text)
                return -1;
        }
        fd = aot_syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return -1;
        while ((n = aot_syscall(SYS_read, fd, aot_maps_text + len,
                                aot_maps_text_cap - 1 - len)) > 0)
            len += (size_t) n;
        aot_syscall(SYS_close, fd);
        if (n < 0)
            return -1;
        if (len + 1 < aot_maps_text_cap) {
            aot_maps_text[len] = '\0';
            return 0;
        }
        aot_mem_free(aot_maps_text, aot_maps_text_cap);
        aot_maps_text = NULL;
        aot_maps_text_cap *= 2;
    }
}

/* Replaces the cache with the whole table.  0, or -1 (the cache is then empty). */
static int aot_maps_read(void)
{
    const char *s;

    aot_maps_n = 0;
    aot_maps_nreads++;
    if (aot_maps_slurp() != 0)
        return -1;
    for (s = aot_maps_text; *s;) {
        struct aot_map m;
        int ok1, ok2;

        m.lo = aot_maps_hex(&s, &ok1);
        if (*s == '-')
            s++;
        m.hi = aot_maps_hex(&s, &ok2);
        if (ok1 && ok2 && m.hi > m.lo && s[0] == ' ' && s[1] && s[2] && s[3] && s[4]) {
            m.prot = (s[1] == 'r' ? PROT_READ : 0) | (s[2] == 'w' ? PROT_WRITE : 0) |
                     (s[3] == 'x' ? PROT_EXEC : 0);
            m.shared = s[4] == 's';
            if (aot_maps_reserve(aot_maps_n + 1) != 0)
                return -1;
            aot_maps_tab[aot_maps_n++] = m;
        }
        while (*s && *s != '\n')
            s++;
        if (*s)
            s++;
    }
    return 0;
}

/* ---------------------------------------------------------------- queries */

int aot_maps_find(uintptr_t addr, struct aot_map *m)
{
    unsigned gen = __atomic_load_n(&aot_maps_gen, __ATOMIC_ACQUIRE);
    int saved_errno = errno, r = -1;

    if (aot_maps_tab_gen != gen) {
        aot_maps_n = 0;                      /* forgotten: start afresh */
        aot_maps_tab_gen = gen;
    }
    if (aot_maps_cached(addr, m))
        return 0;
    if (!aot_maps_text_only && aot_maps_pmq != 0) {
        int q = aot_maps_query(addr, m);
        if (q == 1)
            aot_maps_insert(m);
        if (q >= 0) {
            errno = saved_errno;
            return q == 1 ? 0 : -1;
        }
    }
    if (aot_maps_read() == 0 && aot_maps_cached(addr, m))
        r = 0;
    errno = saved_errno;
    return r;
}

enum aot_maps_verdict aot_maps_check(uintptr_t lo, uintptr_t hi, int prot)
{
    uintptr_t at = lo;

    while (at < hi) {
        struct aot_map m;
        if (aot_maps_find(at, &m) != 0)
            return AOT_MAPS_UNMAPPED;
        if (m.shared)
            return AOT_MAPS_SHARED;
        if ((m.prot & prot) != prot)
            return AOT_MAPS_PROT;
        at = m.hi;
    }
    return AOT_MAPS_OK;
}

/* ---------------------------------------------------------------- for tests */

int aot_maps_force_text(int on)
{
    int old = aot_maps_text_only;
    aot_maps_text_only = on;
    return old;
}

void aot_maps_counts(uint64_t *queries, uint64_t *reads)
{
    *queries = aot_maps_nqueries;
    *reads = aot_maps_nreads;
}

int aot_maps_have_query(void)
{
    return aot_maps_pmq;
}
