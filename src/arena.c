/*
 * arena.c: autoopt's private memory (aot_mem.h), for paging, chains and anyone else whose data
 * must never share a page with a program buffer.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Why not malloc: a guarded or probed buffer shares its first and last page with whatever
 * malloc put next to it.  If the page table or a request lived there, the fault handler would
 * fault on its own data; if a shadow buffer lived there, MPI (or the kernel, for CMA) would
 * write into a protected page.  So this memory comes from pages autoopt mapped itself, which
 * never hold a program buffer and are never guarded.
 *
 * Small objects: power-of-two classes from 16 B to 64 KiB, carved from 1 MiB chunks (each
 * aligned to its class, at most to a page), with a free list per class.  Larger objects and
 * shadow buffers: their own mapping of the class size, kept on the class's free list when
 * released (a shadow of the same size is wanted again at the next iteration, and re-faulting
 * fresh pages costs more than the copy), while the kept bytes stay within AOT_MEM_SHADOW_KEEP;
 * beyond that a released mapping is unmapped.
 *
 * Not thread-safe and not async-signal-safe (aot_mem.h says who may call it).
 */
#include <string.h>
#include <unistd.h>

#include "aot_mem.h"

#define AOT_MEM_MIN_SHIFT 4                  /* 16 B */
#define AOT_MEM_SMALL_SHIFT 16               /* up to 64 KiB from chunks */
#define AOT_MEM_CHUNK ((size_t) 1 << 20)
#define AOT_MEM_NCLASSES 64

struct aot_mem_node {
    struct aot_mem_node *next;
};

static struct aot_mem_node *aot_mem_lists[AOT_MEM_NCLASSES];
static uintptr_t aot_mem_chunk_next, aot_mem_chunk_end;
static size_t aot_mem_kept;                  /* bytes of large objects on the free lists */

/* log2 of the page size (a mapping's alignment) */
static unsigned aot_mem_page_shift(void)
{
    static unsigned shift;
    if (!shift) {
        long ps = sysconf(_SC_PAGESIZE);
        unsigned s = 12;
        if (ps > 0)
            for (s = 0; ((long) 1 << s) < ps; s++)
                ;
        shift = s;
    }
    return shift;
}

static unsigned aot_mem_class(size_t n)
{
    unsigned k = AOT_MEM_MIN_SHIFT;
    while (k < AOT_MEM_NCLASSES - 1 && ((size_t) 1 << k) < n)
        k++;
    return k;
}

static void *aot_mem_map(size_t n)
{
    void *p = aot_sys_mmap(n);
    return p == MAP_FAILED ? NULL : p;
}

/* A block of class k (<= AOT_MEM_SMALL_SHIFT) from the current chunk, or a new one. */
static void *aot_mem_carve(unsigned k)
{
    size_t sz = (size_t) 1 << k;
    unsigned ps = aot_mem_page_shift();
    uintptr_t align = (uintptr_t) 1 << (k < ps ? k : ps);
    uintptr_t at = (aot_mem_chunk_next + align - 1) & ~(align - 1);
    void *p;

    if (!aot_mem_chunk_next || at + sz > aot_mem_chunk_end) {
        /* the rest of the old chunk is dropped: less than 64 KiB */
        char *c = aot_mem_map(AOT_MEM_CHUNK);
        if (!c)
            return NULL;
        at = (uintptr_t) c;
        aot_mem_chunk_end = at + AOT_MEM_CHUNK;
    }
    p = (void *) at;
    aot_mem_chunk_next = at + sz;
    return p;
}

void *aot_mem_alloc(size_t n)
{
    unsigned k = aot_mem_class(n);
    struct aot_mem_node *node = aot_mem_lists[k];

    if (node) {
        aot_mem_lists[k] = node->next;
        if (k > AOT_MEM_SMALL_SHIFT)
            aot_mem_kept -= (size_t) 1 << k;
        return node;
    }
    if (k > AOT_MEM_SMALL_SHIFT)
        return aot_mem_map((size_t) 1 << k);
    return aot_mem_carve(k);
}

void *aot_mem_zalloc(size_t n)
{
    unsigned k = aot_mem_class(n);
    void *p;

    if (k > AOT_MEM_SMALL_SHIFT && !aot_mem_lists[k])
        return aot_mem_map((size_t) 1 << k);
    p = aot_mem_alloc(n);
    if (p)
        memset(p, 0, n);
    return p;
}

void aot_mem_free(void *p, size_t n)
{
    unsigned k;
    size_t sz;
    struct aot_mem_node *node = p;

    if (!p)
        return;
    k = aot_mem_class(n);
    sz = (size_t) 1 << k;
    if (k > AOT_MEM_SMALL_SHIFT) {
        if (aot_mem_kept + sz > AOT_MEM_SHADOW_KEEP) {
            aot_sys_munmap(p, sz);
            return;
        }
        aot_mem_kept += sz;
    }
    node->next = aot_mem_lists[k];
    aot_mem_lists[k] = node;
}

/* A shadow's capacity is its class size, at least a page, so it is page-aligned; large ones
 * come back from the free list with their pages already faulted in. */
void *aot_mem_shadow_get(size_t n, size_t *cap)
{
    unsigned k = aot_mem_class(n);

    if (k < aot_mem_page_shift())
        k = aot_mem_page_shift();
    *cap = (size_t) 1 << k;
    return aot_mem_alloc(*cap);
}

void aot_mem_shadow_put(void *p, size_t cap)
{
    aot_mem_free(p, cap);
}
