/*
 * mapping_calls: the memory-mapping calls on a buffer with a request in flight (issue 55,
 * item 3).  Natively MPI_Send and MPI_Recv have completed when they return, so whatever the
 * program then does to the buffer's mapping (unmap it, discard or move its pages, map over it,
 * give heap back with sbrk, change its protection) cannot change the message, and a received
 * buffer holds the message until the program discards it.  Each case checks exactly that:
 * the peer's data, and what the program reads afterwards (zeros after MADV_DONTNEED, the
 * message at mremap's new address, ...), with the return values natively seen.
 *
 * Send side (rank 0 sends from an mmap'ed buffer of 1 MiB while rank 1 waits 50 ms before it
 * receives, so a converted send is in flight): munmap, madvise DONTNEED / FREE, mmap MAP_FIXED
 * over it, mremap (moving), the program's own mprotect, and the same through syscall(2);
 * sbrk shrinking the heap over a buffer the program grew it for; a System V segment attached
 * over it with shmat(SHM_REMAP) (UCX's libucm patches shmat too); pkey_mprotect with pkey -1
 * (mprotect without a key; no protection keys on our machines), over a mapping twice the
 * message whose first half no request has, then PROT_READ and a second send from it, after
 * which the buffer must still be read-only.  Receive side (rank 0 waits 50 ms before it sends,
 * so a converted receive is in flight): madvise DONTNEED / FREE / REMOVE, mremap, munmap, mmap
 * MAP_FIXED, mprotect, syscall(SYS_madvise), shmat(SHM_REMAP) and pkey_mprotect.
 * Before 2026-12 (autoopt 99c5d71, guarded mode) the receiver's CMA read aborted the job after
 * munmap, DONTNEED and MAP_FIXED sent wrong data, and mremap killed the sender: UCX's libucm
 * patches these functions, autoopt's wrappers included, so the wrappers never ran.
 *
 * Arguments: the number of rounds (default 1; the default-configuration run repeats the cases
 * so that the benefit governor gets to try guarded conversion at their call sites), and
 * optionally one case's number to run it alone.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "paging_test.h"

#define N (1L << 17)                  /* doubles: 1 MiB */
#define BYTES ((size_t) N * sizeof(double))

enum {
    S_MUNMAP, S_DONTNEED, S_FREE, S_FIXED, S_MREMAP, S_MPROTECT, S_SYS_MUNMAP, S_SYS_MADVISE,
    S_SYS_MREMAP, S_SYS_FIXED, S_SBRK, S_SHMAT, S_PKEY_MPROTECT,
    R_DONTNEED, R_FREE, R_REMOVE, R_MREMAP, R_MUNMAP, R_FIXED, R_MPROTECT, R_SYS_MADVISE,
    R_SYS_MREMAP, R_SHMAT, R_PKEY_MPROTECT, NCASES
};

static const char *const names[NCASES] = {
    "send, munmap", "send, madvise(MADV_DONTNEED)", "send, madvise(MADV_FREE)",
    "send, mmap(MAP_FIXED) over it", "send, mremap", "send, mprotect",
    "send, syscall(SYS_munmap)", "send, syscall(SYS_madvise)", "send, syscall(SYS_mremap)",
    "send, syscall(SYS_mmap, MAP_FIXED)", "send, sbrk shrinking",
    "send, shmat(SHM_REMAP) over it", "send, pkey_mprotect(pkey -1)",
    "receive, madvise(MADV_DONTNEED)", "receive, madvise(MADV_FREE)",
    "receive, madvise(MADV_REMOVE)", "receive, mremap", "receive, munmap",
    "receive, mmap(MAP_FIXED) over it", "receive, mprotect", "receive, syscall(SYS_madvise)",
    "receive, syscall(SYS_mremap)", "receive, shmat(SHM_REMAP) over it",
    "receive, pkey_mprotect(pkey -1)",
};

static void pause_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000L * 1000L };
    nanosleep(&ts, NULL);
}

/* The pkey_mprotect cases map twice the message and use the second half: the call's range
 * then starts on pages without a request (a wrapper that looked at its first page only would
 * not wait). */
static size_t map_len(int c)
{
    return c == S_PKEY_MPROTECT || c == R_PKEY_MPROTECT ? 2 * BYTES : BYTES;
}

static double *map_buf(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED, "mmap: errno %d", errno);
    return p == MAP_FAILED ? NULL : p;
}

/* Every element zero. */
static int all_zero(const double *a, long n)
{
    for (long i = 0; i < n; i++)
        if (a[i] != 0.0)
            return 0;
    return 1;
}

/* After MADV_FREE each page holds either the message or zeros. */
static int message_or_zero(const double *a, long n, int m)
{
    long per_page = 4096 / (long) sizeof(double);
    for (long p = 0; p < n; p += per_page) {
        int zero = a[p] == 0.0;
        for (long i = p; i < p + per_page && i < n; i++)
            if (a[i] != (zero ? 0.0 : pt_val(m, i)))
                return 0;
    }
    return 1;
}

/* madvise(advice) on the buffer, through libc or syscall(2): then zeros (DONTNEED) or, page
 * by page, the message or zeros (FREE). */
static void discard(int c, double *a, int m, int advice, int via_syscall)
{
    long r = via_syscall ? syscall(SYS_madvise, a, BYTES, advice) : madvise(a, BYTES, advice);
    CHECK(r == 0, "%s: returned %ld, errno %d", names[c], r, errno);
    if (advice == MADV_DONTNEED)
        CHECK(all_zero(a, N), "%s: the buffer is not zero afterwards", names[c]);
    else
        CHECK(message_or_zero(a, N, m), "%s: the buffer holds other data", names[c]);
}

/* mremap to twice the size, moving: the message at the new address.  Unmaps it. */
static void move(int c, double *a, int m, int via_syscall)
{
    double *b = via_syscall ? (double *) syscall(SYS_mremap, a, BYTES, 2 * BYTES, MREMAP_MAYMOVE)
                            : mremap(a, BYTES, 2 * BYTES, MREMAP_MAYMOVE);
    CHECK(b != MAP_FAILED, "%s: errno %d", names[c], errno);
    if (b == MAP_FAILED)
        return;
    pt_check(b, N, m, names[c]);
    munmap(b, 2 * BYTES);
}

/* Whether the process may write the byte at p (a write to itself through the kernel: no
 * fault, EFAULT if not). */
static int writable(const void *p)
{
    char byte = *(const char *) p;
    struct iovec local = { &byte, 1 }, remote = { (void *) p, 1 };
    return process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == 1;
}

/* A child that exits at once: autoopt completes every pending request before fork. */
static void forked(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    CHECK(pid > 0 && waitpid(pid, NULL, 0) == pid, "fork: errno %d", errno);
}

/* A new System V segment attached over the buffer with SHM_REMAP (as a program that maps a
 * segment where its buffer was): zeros, also after MPI calls made progress (barrier: rank 1
 * only, where rank 0 makes the same call); then detached (the buffer's range is unmapped). */
static void shm_over(int c, double *a, int barrier)
{
    int id = shmget(IPC_PRIVATE, BYTES, IPC_CREAT | 0600);
    void *s;

    CHECK(id >= 0, "%s: shmget: errno %d", names[c], errno);
    if (id < 0)
        return;
    s = shmat(id, a, SHM_REMAP);
    CHECK(s == (void *) a, "%s: returned %p for %p, errno %d", names[c], s, (void *) a, errno);
    shmctl(id, IPC_RMID, NULL);
    if (s == (void *) a)
        CHECK(all_zero(a, N), "%s: the segment is not zero", names[c]);
    if (barrier) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (s == (void *) a)
            CHECK(all_zero(a, N), "%s: the segment is not zero after MPI_Barrier", names[c]);
    }
    if (s == (void *) a)
        CHECK(shmdt(a) == 0, "%s: shmdt: errno %d", names[c], errno);
}

/* The buffer of the sbrk case: the heap grown by the program, page-aligned; NULL if sbrk
 * cannot be used here.  *grown is what to give back. */
static double *heap_buf(intptr_t *grown)
{
    char *top = sbrk(0), *lo;
    uintptr_t pad = (4096 - (uintptr_t) top % 4096) % 4096;
    if (top == (void *) -1 || sbrk((intptr_t) (pad + BYTES)) == (void *) -1)
        return NULL;
    lo = top + pad;
    *grown = (intptr_t) (pad + BYTES);
    return (double *) lo;
}

static void send_case(int c, int m)
{
    intptr_t grown = 0;
    size_t len = map_len(c);
    double *a = c == S_SBRK ? heap_buf(&grown) : map_buf(len), *b, *msg;

    if (!a)
        return;
    msg = len > BYTES ? a + N : a;
    pt_fill(msg, N, m);
    MPI_Send(msg, (int) N, MPI_DOUBLE, 1, m, MPI_COMM_WORLD);
    switch (c) {
    case S_MUNMAP:
        CHECK(munmap(a, BYTES) == 0, "%s: errno %d", names[c], errno);
        return;
    case S_SYS_MUNMAP:
        CHECK(syscall(SYS_munmap, a, BYTES) == 0, "%s: errno %d", names[c], errno);
        return;
    case S_DONTNEED:
    case S_SYS_MADVISE:
        discard(c, a, m, MADV_DONTNEED, c == S_SYS_MADVISE);
        break;
    case S_FREE:
        discard(c, a, m, MADV_FREE, 0);
        break;
    case S_FIXED:
    case S_SYS_FIXED:
        b = c == S_FIXED ? mmap(a, BYTES, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
                         : (double *) syscall(SYS_mmap, a, BYTES, PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        CHECK(b == a, "%s: returned %p for %p, errno %d", names[c], (void *) b, (void *) a, errno);
        CHECK(all_zero(a, N), "%s: the new mapping is not zero", names[c]);
        break;
    case S_MREMAP:
    case S_SYS_MREMAP:
        move(c, a, m, c == S_SYS_MREMAP);
        return;
    case S_MPROTECT:
        CHECK(mprotect(a, BYTES, PROT_NONE) == 0, "%s: errno %d", names[c], errno);
        CHECK(mprotect(a, BYTES, PROT_READ | PROT_WRITE) == 0, "%s: errno %d", names[c], errno);
        pt_check(a, N, m, names[c]);
        pt_fill(a, N, m + 1);
        break;
    case S_PKEY_MPROTECT:
        CHECK(pkey_mprotect(a, len, PROT_NONE, -1) == 0, "%s: errno %d", names[c], errno);
        CHECK(pkey_mprotect(a, len, PROT_READ | PROT_WRITE, -1) == 0, "%s: errno %d", names[c],
              errno);
        pt_check(msg, N, m, names[c]);
        /* read-only, then sent again: once that send completed (fork completes everything),
         * the buffer is read-only as the program made it (a guard is undone to the protection
         * autoopt's mapping cache knew: pkey_mprotect must make it forget) */
        CHECK(pkey_mprotect(a, len, PROT_READ, -1) == 0, "%s: errno %d", names[c], errno);
        MPI_Send(msg, (int) N, MPI_DOUBLE, 1, m + NCASES, MPI_COMM_WORLD);
        forked();
        CHECK(!writable(msg), "%s: PROT_READ, sent: writable after the send completed", names[c]);
        CHECK(pkey_mprotect(a, len, PROT_READ | PROT_WRITE, -1) == 0, "%s: errno %d", names[c],
              errno);
        pt_fill(msg, N, m + 1);
        break;
    case S_SHMAT:
        shm_over(c, a, 0);
        break;
    case S_SBRK:
        /* only the program's own growth is given back, and only if nothing grew it since */
        if ((char *) sbrk(0) == (char *) a + BYTES) {
            CHECK(sbrk(-grown) != (void *) -1, "%s: errno %d", names[c], errno);
        } else {
            pt_fill(a, N, m + 1);    /* the heap moved on: overwrite instead */
        }
        return;
    default:
        break;
    }
    munmap(a, len);
}

static void recv_case(int c, int m)
{
    size_t len = map_len(c);
    double *a = map_buf(len), *b, *msg;
    long r;

    if (!a)
        return;
    msg = len > BYTES ? a + N : a;
    pt_fill(msg, N, 999);
    MPI_Recv(msg, (int) N, MPI_DOUBLE, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    switch (c) {
    case R_DONTNEED:
    case R_SYS_MADVISE:
        discard(c, a, m, MADV_DONTNEED, c == R_SYS_MADVISE);
        break;
    case R_FREE:
        discard(c, a, m, MADV_FREE, 0);
        break;
    case R_REMOVE:
        /* private anonymous memory: EINVAL natively; the message stays */
        r = madvise(a, BYTES, MADV_REMOVE);
        CHECK(r == -1 && errno == EINVAL, "%s: returned %ld, errno %d", names[c], r, errno);
        pt_check(a, N, m, names[c]);
        break;
    case R_MREMAP:
    case R_SYS_MREMAP:
        move(c, a, m, c == R_SYS_MREMAP);
        return;
    case R_MUNMAP:
    case R_FIXED:
        /* a new mapping where the buffer was (as an allocator reusing the address would make):
         * zeros, also after MPI calls made progress */
        if (c == R_MUNMAP)
            CHECK(munmap(a, BYTES) == 0, "%s: errno %d", names[c], errno);
        b = mmap(a, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        CHECK(b == a, "%s: returned %p, errno %d", names[c], (void *) b, errno);
        CHECK(all_zero(a, N), "%s: the new mapping is not zero", names[c]);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(all_zero(a, N), "%s: the new mapping is not zero after MPI_Barrier", names[c]);
        break;
    case R_MPROTECT:
        CHECK(mprotect(a, BYTES, PROT_READ) == 0, "%s: errno %d", names[c], errno);
        pt_check(a, N, m, names[c]);
        CHECK(mprotect(a, BYTES, PROT_READ | PROT_WRITE) == 0, "%s: errno %d", names[c], errno);
        break;
    case R_PKEY_MPROTECT:
        CHECK(pkey_mprotect(a, len, PROT_READ, -1) == 0, "%s: errno %d", names[c], errno);
        pt_check(msg, N, m, names[c]);
        CHECK(pkey_mprotect(a, len, PROT_READ | PROT_WRITE, -1) == 0, "%s: errno %d", names[c],
              errno);
        break;
    case R_SHMAT:
        shm_over(c, a, 1);
        break;
    default:
        break;
    }
    munmap(a, len);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1, only = argc > 2 ? atoi(argv[2]) : -1;
    double *a;

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    a = malloc(BYTES);
    for (int k = 0; k < rounds; k++)
        for (int c = 0; c < NCASES; c++) {
            int m = c + 1, send = c < R_DONTNEED;
            if (only >= 0 && c != only)
                continue;
            if (pt_rank == 0) {
                if (send) {
                    send_case(c, m);
                } else {
                    pause_ms(50);  /* the receive is posted and waits */
                    pt_fill(a, N, m);
                    MPI_Send(a, (int) N, MPI_DOUBLE, 1, m, MPI_COMM_WORLD);
                }
            } else if (pt_rank == 1) {
                if (send) {
                    pause_ms(50);  /* the send is in flight meanwhile */
                    MPI_Recv(a, (int) N, MPI_DOUBLE, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    pt_check(a, N, m, names[c]);
                    if (c == S_PKEY_MPROTECT) {  /* sent again from a read-only buffer */
                        MPI_Recv(a, (int) N, MPI_DOUBLE, 0, m + NCASES, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
                        pt_check(a, N, m, names[c]);
                    }
                } else {
                    recv_case(c, m);
                }
            }
            if (pt_rank == 0 && (c == R_MUNMAP || c == R_FIXED || c == R_SHMAT))
                MPI_Barrier(MPI_COMM_WORLD);    /* rank 1's, in recv_case */
            /* the next case starts when both ranks are done with this one */
            PMPI_Barrier(MPI_COMM_WORLD);
        }
    free(a);
    return aot_test_finish();
}
