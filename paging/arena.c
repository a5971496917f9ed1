/*
 * arena.c: paging's private memory.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Why not malloc: a guarded buffer shares its first and last page with whatever malloc put
 * next to it.  If the page table or a request lived there, the fault handler would fault on
 * its own data; if a shadow buffer lived there, MPI (or the kernel, for CMA) would write into
 * a protected page.  So everything paging keeps comes from pages it mapped itself, which never
 * hold a program buffer and are never guarded.
 *
 * Small objects: power-of-two classes from 16 B to 64 KiB, carved from 1 MiB chunks, with a
 * free list per class.  Larger objects and shadow buffers: their own mapping, rounded up to a
 * power of two and kept on a free list when released (a shadow of the same size is wanted again
 * at the next iteration, and re-faulting fresh pages costs more than the copy).  The cache
 * keeps at most AOT_PG_SHADOW_KEEP bytes; beyond that released mappings are unmapped.
 *
 * Not thread-safe and not async-signal-safe: paging converts only at MPI_THREAD_SINGLE, and the
 * fault handler allocates or frees only when it interrupted the program outside autoopt.
 */
#include <string.h>

#include "paging.h"

#define AOT_PG_MIN_SHIFT 4                   /* 16 B */
#define AOT_PG_SMALL_SHIFT 16                /* up to 64 KiB from chunks */
#define AOT_PG_CHUNK ((size_t) 1 << 20)
#define AOT_PG_NCLASSES 48
#define AOT_PG_SHADOW_KEEP ((size_t) 512 << 20)

struct aot_pg_free_node {
    struct aot_pg_free_node *next;
};

static struct aot_pg_free_node *aot_pg_free_lists[AOT_PG_NCLASSES];
static char *aot_pg_chunk_next, *aot_pg_chunk_end;
static size_t aot_pg_kept;

static unsigned aot_pg_class(size_t n)
{
    unsigned k = AOT_PG_MIN_SHIFT;
    while (((size_t) 1 << k) < n)
        k++;
    return k;
}

static void *aot_pg_map(size_t n)
{
    void *p = aot_pg_sys_mmap(n);
    return p == MAP_FAILED ? NULL : p;
}

void *aot_pg_alloc(size_t n)
{
    unsigned k = aot_pg_class(n ? n : 1);
    size_t sz = (size_t) 1 << k;
    struct aot_pg_free_node *node = aot_pg_free_lists[k];

    if (node) {
        aot_pg_free_lists[k] = node->next;
        if (k > AOT_PG_SMALL_SHIFT)
            aot_pg_kept -= sz;
        return node;
    }
    if (k > AOT_PG_SMALL_SHIFT)
        return aot_pg_map(sz);
    if ((size_t) (aot_pg_chunk_end - aot_pg_chunk_next) < sz) {
        /* the rest of the old chunk is dropped: at most 64 KiB per chunk */
        char *c = aot_pg_map(AOT_PG_CHUNK);
        if (!c)
            return NULL;
        aot_pg_chunk_next = c;
        aot_pg_chunk_end = c + AOT_PG_CHUNK;
    }
    node = (struct aot_pg_free_node *) aot_pg_chunk_next;
    aot_pg_chunk_next += sz;
    return node;
}

/* A large object on a fresh mapping is zero already: writing zeros would only make every page
 * of it resident (the 1 Mi lazy-status table alone is 32 MiB per process). */
void *aot_pg_zalloc(size_t n)
{
    unsigned k = aot_pg_class(n ? n : 1);
    void *p;

    if (k > AOT_PG_SMALL_SHIFT && !aot_pg_free_lists[k])
        return aot_pg_map((size_t) 1 << k);
    p = aot_pg_alloc(n);
    if (p)
        memset(p, 0, n);
    return p;
}

void aot_pg_free(void *p, size_t n)
{
    unsigned k;
    struct aot_pg_free_node *node = p;

    if (!p)
        return;
    k = aot_pg_class(n ? n : 1);
    if (k > AOT_PG_SMALL_SHIFT && aot_pg_kept + ((size_t) 1 << k) > AOT_PG_SHADOW_KEEP) {
        aot_pg_sys_munmap(p, (size_t) 1 << k);
        return;
    }
    if (k > AOT_PG_SMALL_SHIFT)
        aot_pg_kept += (size_t) 1 << k;
    node->next = aot_pg_free_lists[k];
    aot_pg_free_lists[k] = node;
}

/* Shadows use the same classes: a shadow's capacity is its class size.  Large ones come back
 * from the free list, so their pages are already faulted in. */
void *aot_pg_shadow_get(size_t n, size_t *cap)
{
    unsigned k = aot_pg_class(n ? n : 1);

    *cap = (size_t) 1 << k;
    return aot_pg_alloc(*cap);
}

void aot_pg_shadow_put(void *p, size_t cap)
{
    aot_pg_free(p, cap);
}
