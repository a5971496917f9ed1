/*
 * mapping.c: calls that change the mappings under pending requests (munmap, mremap, madvise,
 * mmap MAP_FIXED, mprotect, pkey_mprotect, shmat SHM_REMAP, shmdt, brk and sbrk), by
 * whichever way they come.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Rule: before such a call takes effect, every pending request with a byte on a page the call
 * concerns completes (its guard goes with it); then the call runs.  Natively the blocking call
 * had completed before the program could make it, so the peer got the message and the receive
 * buffer held it.
 *
 * Three ways in, each reaching the functions below:
 *   - syscalls.c's exported munmap, mremap, madvise, mprotect, pkey_mprotect, mmap(64),
 *     shmat, shmdt, brk, sbrk;
 *   - syscalls.c's syscall(3) for the same numbers;
 *   - UCX's memory hooks.  libucm (loaded with MPICH's ch4:ucx) overwrites the entry of
 *     mmap, munmap, mremap, madvise, shmat, shmdt and brk with a jump to its own code ("bistro"
 *     mode, the default of UCX 1.13 on x86-64: it patches the first definition dlsym finds,
 *     which under LD_PRELOAD is autoopt's own wrapper) or rewrites every object's relocation
 *     to them ("reloc" mode), and then calls the kernel itself.  Measured 2026-12 with UCX
 *     1.13.1: autoopt's exported munmap began with a jmp (0xe9) after MPI_Init, so its
 *     wrapper never ran.  libucm dispatches each call to the handlers registered with
 *     ucm_set_event_handler, those of negative priority before the kernel sees the call, so
 *     paging registers one (aot_pg_ucm_init), found with dlsym when libucm is loaded, with
 *     UCM_EVENT_FLAG_NO_INSTALL (libucm patches nothing more than UCX asked for: a call it does
 *     not hook reaches autoopt's wrapper).  A call that reaches both is handled twice; the
 *     second finds nothing pending.
 *
 * madvise: the advices that can drop, move or touch the contents complete the requests:
 * DONTNEED, DONTNEED_LOCKED, FREE (the kernel may drop the pages at any time), REMOVE,
 * POPULATE_READ/WRITE (they fault the pages in: EFAULT or ENOMEM on a guard), HWPOISON,
 * SOFT_OFFLINE, COLLAPSE and every advice this file does not know.  Hints and flags that leave
 * this process's contents and access as they are do not wait: NORMAL, RANDOM, SEQUENTIAL,
 * WILLNEED, DONTFORK, DOFORK, WIPEONFORK, KEEPONFORK (fork completes everything anyway),
 * MERGEABLE, UNMERGEABLE (KSM shares identical pages copy-on-write), HUGEPAGE, NOHUGEPAGE,
 * DONTDUMP, DODUMP, COLD, PAGEOUT (pages go to swap and come back with their contents).
 * mmap with MAP_FIXED_NOREPLACE fails rather than replace a mapping: nothing to wait for;
 * shmat without SHM_REMAP fails (EINVAL) where a mapping is, the same.  pkey_mprotect is
 * mprotect with a protection key (pkey -1: none): the same rule.
 *
 * Runs only in the thread that makes MPI calls, outside MPI (aot_tls.depth == 0): UCX's own
 * munmap inside a progress call reaches the UCX handler with depth > 0 and changes nothing.
 */
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/shm.h>

#include "paging.h"

/* Whether madvise(advice) must wait: see the comment at the top. */
int aot_pg_advice_waits(int advice)
{
    switch (advice) {
    case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL: case MADV_WILLNEED:
    case MADV_DONTFORK: case MADV_DOFORK: case MADV_MERGEABLE: case MADV_UNMERGEABLE:
    case MADV_HUGEPAGE: case MADV_NOHUGEPAGE: case MADV_DONTDUMP: case MADV_DODUMP:
    case 18: /* MADV_WIPEONFORK */ case 19: /* MADV_KEEPONFORK */
    case 20: /* MADV_COLD */ case 21: /* MADV_PAGEOUT */
        return 0;
    default:
        return 1;
    }
}

/* Requests with any byte on the pages of [addr, addr + len). */
void aot_pg_pages_done(const void *addr, size_t len)
{
    if (aot_pg_on && aot_pg_npending && aot_tls.depth == 0 && len) {
        int n;
        aot_tls.depth = 1;
        aot_pg_mpi_window = 1;
        n = aot_pg_complete_pages((intptr_t) addr, (intptr_t) addr + (intptr_t) len);
        aot_pg_lifted_restore();
        aot_pg_mpi_window = 0;
        aot_tls.depth = 0;
        if (n)
            AOT_PG_COUNT(syscall_waits, n);
    }
}

/* The heap's end moves to brk_new: what it gives back. */
void aot_pg_heap_to(uintptr_t brk_new)
{
    uintptr_t cur;
    if (!aot_pg_on || !aot_pg_npending || aot_tls.depth != 0)
        return;
    cur = (uintptr_t) aot_syscall(SYS_brk, 0);
    if (brk_new && brk_new < cur)
        aot_pg_pages_done((const void *) brk_new, cur - brk_new);
}

/* shmdt(addr): the mapping that holds addr.  (Shared mappings are never converted, so this
 * finds nothing in practice; it stays for the rule's sake.) */
void aot_pg_shm_detach(const void *addr)
{
    struct aot_map m;
    if (aot_pg_on && aot_pg_npending && aot_tls.depth == 0 && aot_maps_find((uintptr_t) addr, &m) == 0)
        aot_pg_pages_done((const void *) m.lo, m.hi - m.lo);
}

/* shmat(id, addr, flags): with SHM_REMAP, the segment replaces what is mapped at addr (rounded
 * down to SHMLBA with SHM_RND), over the segment's size (asked of the kernel itself: shmctl is
 * wrapped).  Without it the call fails where anything is mapped. */
void aot_pg_shm_attach(int id, const void *addr, int flags)
{
    struct shmid_ds ds;
    uintptr_t lo = (uintptr_t) addr;
    if (!(flags & SHM_REMAP) || !addr || !aot_pg_on || !aot_pg_npending || aot_tls.depth != 0)
        return;
    if (flags & SHM_RND)
        lo -= lo % SHMLBA;
    if (aot_syscall(SYS_shmctl, id, IPC_STAT, &ds) == 0)
        aot_pg_pages_done((const void *) lo, ds.shm_segsz);
}

/* ---------------------------------------------------------------- UCX's memory hooks */

/* The parts of libucm's API used here (ucm/api/ucm.h, stable since UCX 1.3; MADVISE and BRK
 * since 1.5). */
enum {
    AOT_UCM_MMAP = 1 << 0, AOT_UCM_MUNMAP = 1 << 1, AOT_UCM_MREMAP = 1 << 2,
    AOT_UCM_SHMAT = 1 << 3, AOT_UCM_SHMDT = 1 << 4, AOT_UCM_SBRK = 1 << 5, AOT_UCM_MADVISE = 1 << 6,
    AOT_UCM_BRK = 1 << 7, AOT_UCM_NO_INSTALL = 1 << 24
};

union aot_ucm_event {
    struct { void *result, *address; size_t size; int prot, flags, fd; off_t offset; } mmap;
    struct { int result; void *address; size_t size; } munmap;
    struct { void *result, *address; size_t old_size, new_size; int flags; } mremap;
    struct { void *result; int shmid; const void *shmaddr; int shmflg; } shmat;
    struct { int result; const void *shmaddr; } shmdt;
    struct { void *result; intptr_t increment; } sbrk;
    struct { int result; void *addr; size_t length; int advice; } madvise;
    struct { int result; void *addr; } brk;
};

typedef void aot_ucm_cb(int type, union aot_ucm_event *ev, void *arg);
typedef int aot_ucm_set_fn(int events, int priority, aot_ucm_cb *cb, void *arg);

static const int aot_pg_ucm_events[] = {
    AOT_UCM_MMAP, AOT_UCM_MUNMAP, AOT_UCM_MREMAP, AOT_UCM_SHMAT, AOT_UCM_SHMDT, AOT_UCM_SBRK,
    AOT_UCM_MADVISE, AOT_UCM_BRK
};
static int aot_pg_ucm_registered;

/* Before the call (arg NULL): complete what it concerns.  After (arg non-NULL): the mapping
 * cache forgets. */
static void aot_pg_ucm_event(int type, union aot_ucm_event *ev, void *arg)
{
    if (arg) {
        if (type != AOT_UCM_MADVISE && (type != AOT_UCM_MMAP || (ev->mmap.flags & MAP_FIXED)))
            aot_maps_invalidate();
        return;
    }
    if (!aot_pg_on || !aot_pg_npending || aot_tls.depth != 0)
        return;
    aot_pg_probes_release();
    switch (type) {
    case AOT_UCM_MMAP:
        if (ev->mmap.flags & MAP_FIXED)
            aot_pg_pages_done(ev->mmap.address, ev->mmap.size);
        break;
    case AOT_UCM_MUNMAP:
        aot_pg_pages_done(ev->munmap.address, ev->munmap.size);
        break;
    case AOT_UCM_MREMAP:
        aot_pg_pages_done(ev->mremap.address, ev->mremap.old_size);
        break;
    case AOT_UCM_SHMAT:
        aot_pg_shm_attach(ev->shmat.shmid, ev->shmat.shmaddr, ev->shmat.shmflg);
        break;
    case AOT_UCM_SHMDT:
        aot_pg_shm_detach(ev->shmdt.shmaddr);
        break;
    case AOT_UCM_SBRK:
        if (ev->sbrk.increment < 0)
            aot_pg_heap_to((uintptr_t) aot_syscall(SYS_brk, 0) + (uintptr_t) ev->sbrk.increment);
        break;
    case AOT_UCM_MADVISE:
        if (aot_pg_advice_waits(ev->madvise.advice))
            aot_pg_pages_done(ev->madvise.addr, ev->madvise.length);
        break;
    case AOT_UCM_BRK:
        aot_pg_heap_to((uintptr_t) ev->brk.addr);
        break;
    default:
        break;
    }
}

/* At MPI_Init, once: the handlers, each event on its own (an event this libucm does not know
 * fails alone).  Returns how many were registered. */
int aot_pg_ucm_init(void)
{
    aot_ucm_set_fn *set;
    int n = 0;

    if (aot_pg_ucm_registered)
        return aot_pg_ucm_registered;
    set = (aot_ucm_set_fn *) dlsym(RTLD_DEFAULT, "ucm_set_event_handler");
    if (!set)
        return 0;
    for (size_t k = 0; k < sizeof(aot_pg_ucm_events) / sizeof(aot_pg_ucm_events[0]); k++) {
        int ev = aot_pg_ucm_events[k] | AOT_UCM_NO_INSTALL;
        if (set(ev, -1, aot_pg_ucm_event, NULL) == 0) {
            n++;
            set(ev, 1, aot_pg_ucm_event, (void *) 1);
        }
    }
    aot_pg_ucm_registered = n;
    AOT_LOG(2, "paging: %d memory-event handlers registered with UCX's libucm", n);
    return n;
}
