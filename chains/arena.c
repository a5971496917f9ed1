/*
 * arena.c: private memory for the tables of chains/.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Probes (probe.c) protect pages of the program's buffers; a table of autoopt that shared such a
 * page with a program buffer (as malloc'd memory can) would fault in autoopt's own code.  So
 * everything chains/ allocates comes from mappings of its own.  Small blocks (up to 4 KiB) are
 * carved from 1 MiB chunks and recycled per power-of-two size class; larger blocks get a mapping
 * each.  Not async-signal-safe (the signal handler never allocates).
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "chains.h"

#define AOT_CH_CHUNK ((size_t) 1 << 20)
#define AOT_CH_SMALL_MAX 4096
#define AOT_CH_NCLASSES 13            /* 1 B .. 4 KiB */

static char *aot_ch_chunk_next, *aot_ch_chunk_end;
static void *aot_ch_free_list[AOT_CH_NCLASSES];

static void *aot_ch_map(size_t n)
{
    void *p = (void *) aot_syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static int aot_ch_class(size_t n)
{
    int c = 0;
    while (((size_t) 1 << c) < n)
        c++;
    return c;
}

static size_t aot_ch_round_pages(size_t n)
{
    size_t pg = (size_t) sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

void *aot_ch_alloc(size_t n)
{
    int c;
    size_t sz;
    void *p;

    if (n == 0)
        n = 1;
    if (n > AOT_CH_SMALL_MAX)
        return aot_ch_map(aot_ch_round_pages(n));
    c = aot_ch_class(n < 16 ? 16 : n);
    sz = (size_t) 1 << c;
    if (aot_ch_free_list[c]) {
        p = aot_ch_free_list[c];
        aot_ch_free_list[c] = *(void **) p;
        memset(p, 0, sz);
        return p;
    }
    if (!aot_ch_chunk_next || (size_t) (aot_ch_chunk_end - aot_ch_chunk_next) < sz) {
        aot_ch_chunk_next = aot_ch_map(AOT_CH_CHUNK);
        if (!aot_ch_chunk_next)
            return NULL;
        aot_ch_chunk_end = aot_ch_chunk_next + AOT_CH_CHUNK;
    }
    p = aot_ch_chunk_next;            /* fresh mappings are zeroed */
    aot_ch_chunk_next += sz;
    return p;
}

void aot_ch_free(void *p, size_t n)
{
    int c;

    if (!p)
        return;
    if (n == 0)
        n = 1;
    if (n > AOT_CH_SMALL_MAX) {
        aot_syscall(SYS_munmap, p, aot_ch_round_pages(n));
        return;
    }
    c = aot_ch_class(n < 16 ? 16 : n);
    *(void **) p = aot_ch_free_list[c];
    aot_ch_free_list[c] = p;
}
