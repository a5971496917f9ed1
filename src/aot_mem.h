/*
 * aot_mem.h: the low-level memory services every subsystem shares -- autoopt's private arena
 * (arena.c), its raw memory system calls (below), and the stack and mapping queries (maps.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Paging guards pages of the program's buffers and chains probes them; neither may ever
 * protect a page that holds autoopt's own data, nor change a mapping through autoopt's own
 * exported wrappers of mmap, munmap and mprotect (paging/syscalls.c), which may wait for
 * requests or release probes.  So everything here maps its memory itself and calls the kernel
 * through aot_syscall (src/sys.c).  Hidden, like everything of src/.
 */
#ifndef AOT_MEM_H_INCLUDED
#define AOT_MEM_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "aot_sys.h"

/* ---------------------------------------------------------------- raw system calls */

/* The kernel's own mprotect, mmap, munmap and madvise, never the exported wrappers.
 * -1 (MAP_FAILED for mmap) and errno on failure.  Async-signal-safe. */
static inline int aot_sys_mprotect(uintptr_t addr, size_t len, int prot)
{
    return (int) aot_syscall(SYS_mprotect, addr, len, prot);
}

/* A private anonymous read-write mapping of len bytes (zero-filled by the kernel). */
static inline void *aot_sys_mmap(size_t len)
{
    return (void *) aot_syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static inline int aot_sys_munmap(void *addr, size_t len)
{
    return (int) aot_syscall(SYS_munmap, addr, len);
}

static inline int aot_sys_madvise(uintptr_t addr, size_t len, int advice)
{
    return (int) aot_syscall(SYS_madvise, addr, len, advice);
}

/* ---------------------------------------------------------------- arena.c */

/*
 * Memory that never shares a page with a program buffer: a guard or a probe on a program's
 * page can then never cover autoopt's own tables, and MPI (or the kernel, for CMA) never
 * writes into a shadow buffer through a protected page.
 *
 * Sizes are rounded up to a power of two (at least 16 B): the size class.  Objects up to
 * 64 KiB are carved from 1 MiB chunks and aligned to their class, or to a page when the class
 * is larger; freed ones go to a free list of their class.  Larger objects get a mapping of
 * their own; freed ones are kept per class for reuse (their pages are already faulted in)
 * while the cache holds at most AOT_MEM_SHADOW_KEEP bytes, and unmapped beyond that.
 *
 * aot_mem_free must be given the size asked for (or any size of the same class).
 * Not thread-safe and not async-signal-safe: callers allocate only in the thread that makes
 * MPI calls (paging converts only at MPI_THREAD_SINGLE; chains likewise), and paging's fault
 * handler allocates or frees only when it interrupted the program outside autoopt.
 */
#define AOT_MEM_SHADOW_KEEP ((size_t) 512 << 20)

void *aot_mem_alloc(size_t n);
/* Zeroed.  A large object on a fresh mapping is zero already and is not written (writing
 * would make every page of it resident). */
void *aot_mem_zalloc(size_t n);
void aot_mem_free(void *p, size_t n);
/* Shadow buffers: page-aligned, *cap (the class size, at least a page) is what
 * aot_mem_shadow_put gets back.  Not zeroed. */
void *aot_mem_shadow_get(size_t n, size_t *cap);
void aot_mem_shadow_put(void *p, size_t cap);

/* ---------------------------------------------------------------- maps.c: stacks */

/* The calling thread's stack [*lo, *hi), from pthread_getattr_np, cached per thread
 * (0, 0 when unknown).  Not async-signal-safe on its first call in a thread. */
void aot_stack_bounds(uintptr_t *lo, uintptr_t *hi);
/* Records the calling thread's stack as the main thread's (MPI_Init's caller).  Idempotent in
 * that thread.  The main thread's stack is found with /proc/self/maps by glibc: do it once. */
void aot_stack_main_init(void);
/* Whether [lo, hi) meets the calling thread's stack or the main thread's. */
int aot_on_stack(uintptr_t lo, uintptr_t hi);

/* ---------------------------------------------------------------- maps.c: mappings */

/* One mapping of the process, as /proc/self/maps shows it. */
struct aot_map {
    uintptr_t lo, hi;         /* bytes, page-aligned */
    int prot;                 /* PROT_READ | PROT_WRITE | PROT_EXEC */
    int shared;               /* MAP_SHARED (the 's' of "rw-s") */
};

/*
 * The mapping that holds addr: 0 with *m filled, or -1 when addr is not mapped (or the table
 * cannot be read).  Answers come from one cache of mappings, asked of the kernel on a miss:
 * the PROCMAP_QUERY ioctl (Linux 6.11 and later, one mapping) or else the whole of
 * /proc/self/maps, read with raw system calls into arena memory (no stdio, no malloc).
 * The protection is the one in force when the kernel was asked: guards and probes set after
 * that (with aot_sys_mprotect) do not change the cache, so a guarded page still shows what
 * the program gave it.  Not thread-safe, not async-signal-safe (the thread making MPI calls).
 */
int aot_maps_find(uintptr_t addr, struct aot_map *m);

/* What aot_maps_check says of a range. */
enum aot_maps_verdict {
    AOT_MAPS_OK = 0,          /* every page private and with all of prot */
    AOT_MAPS_UNMAPPED,        /* some page is not mapped */
    AOT_MAPS_SHARED,          /* some page is in a shared mapping */
    AOT_MAPS_PROT             /* some page lacks a protection of prot */
};
/* Whether every page of [lo, hi) lies in private mappings with at least the protections
 * prot: the first problem met walking up from lo, or AOT_MAPS_OK (also for hi <= lo). */
enum aot_maps_verdict aot_maps_check(uintptr_t lo, uintptr_t hi, int prot);

/* Forgets the cache: a mapping changed (the exported mmap, munmap, mremap and mprotect call
 * it).  Safe from any thread and in signal context. */
void aot_maps_invalidate(void);

/* For tests: 1 makes every miss read /proc/self/maps even where PROCMAP_QUERY works; returns
 * the previous setting.  The counts of PROCMAP_QUERY calls and of whole-table reads so far;
 * whether the kernel has PROCMAP_QUERY (1), has not (0), not known yet (-1). */
int aot_maps_force_text(int on);
void aot_maps_counts(uint64_t *queries, uint64_t *reads);
int aot_maps_have_query(void);

#endif /* AOT_MEM_H_INCLUDED */
