/*
 * syscalls.c: system calls and allocator calls handed guarded memory.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The kernel does not fault on a protected buffer: read(2), write(2), send(2) ... return
 * EFAULT, and glibc's own calls inside fread/fwrite cannot be interposed.  So libautoopt
 * exports the libc entry points below.  Each forwards to the next definition (dlsym RTLD_NEXT)
 * and, only while requests are pending, first:
 *   - completes the pending requests whose bytes the call touches in a conflicting way (the
 *     kernel writing into a buffer conflicts with sends and receives, reading with receives);
 *   - lifts, for the duration of the call, guards that remain on the pages it touches (false
 *     sharing: other requests' bytes on the same page), and puts them back after.
 * free, realloc, reallocarray complete every request with bytes in the chunk (the allocator
 * may unmap it or write into it); munmap, mremap, madvise, mprotect, pkey_mprotect, a fixed
 * mmap and shmat with SHM_REMAP complete every request with bytes on the pages concerned
 * (mapping.c); munmap, mremap, mprotect, pkey_mprotect, a fixed mmap, shmat and shmdt also
 * make autoopt's mapping cache (src/maps.c) forget what it knew, also when nothing is pending
 * (one atomic increment).
 * A sanitizer build (AOT_SANITIZED) leaves free, realloc and reallocarray to the sanitizer's
 * allocator, which replaces glibc's and whose chunks this code cannot read (docs/testing.md).
 * fork: the parent completes everything before forking (the child then sees the data a
 * blocking call would have left), the child starts with no guards and no requests.
 *
 * Calls made while autoopt or MPI is running (aot_tls.depth > 0: UCX's sendmsg, recv and
 * process_vm_readv, MPI's own free) never wait, which would re-enter MPI; they only get the
 * lifting, which protects MPI's own data that shares a page with a guard.
 *
 * Cost when nothing is pending: one predictable branch on aot_pg_gate and an indirect call.
 * Nothing happens in a constructor: mpiexec and programs that never call MPI_Init run with
 * LD_PRELOAD too; the real functions are looked up at the first call of any wrapper.
 */
#include <aio.h>
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "paging.h"

/* <stdio.h> may define these as macros with optimization on */
#undef fread_unlocked
#undef fwrite_unlocked

/* glibc's allocator entry points: used only while the wrappers are being resolved (dlsym may
 * free), when the next definition is not known yet. */
extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);

/* The fortified variants glibc's headers redirect to with _FORTIFY_SOURCE. */
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags,
                       struct sockaddr *addr, socklen_t *alen);
size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *f);
size_t __fread_unlocked_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *f);

#define AOT_PG_WRAPPED(X) \
    X(read) X(write) X(pread) X(pread64) X(pwrite) X(pwrite64) X(readv) X(writev) \
    X(preadv) X(pwritev) X(preadv64) X(pwritev64) X(preadv2) X(pwritev2) \
    X(send) X(recv) X(sendto) X(recvfrom) X(sendmsg) X(recvmsg) X(sendmmsg) X(recvmmsg) \
    X(fread) X(fwrite) X(fread_unlocked) X(fwrite_unlocked) X(fputs) X(puts) \
    X(__read_chk) X(__pread_chk) X(__pread64_chk) X(__recv_chk) X(__recvfrom_chk) \
    X(__fread_chk) X(__fread_unlocked_chk) X(getrandom) \
    X(process_vm_readv) X(process_vm_writev) \
    X(free) X(realloc) X(reallocarray) X(munmap) X(mremap) X(madvise) X(mprotect) X(mmap) X(mmap64) \
    X(pkey_mprotect) X(shmat) X(shmdt) X(brk) X(sbrk) \
    X(syscall) X(aio_read) X(aio_write) X(aio_read64) X(aio_write64) X(lio_listio) X(lio_listio64)

static struct {
#define AOT_X(name) __typeof__(name) *name;
    AOT_PG_WRAPPED(AOT_X)
#undef AOT_X
} aot_pg_real;

/* 1: every real function known and nothing pending -- the only value of the fast path. */
volatile int aot_pg_gate;
static int aot_pg_resolved, aot_pg_resolving;

void aot_pg_gate_update(void)
{
    aot_pg_gate = aot_pg_resolved ? (aot_pg_npending ? 2 : 1) : 0;
}

static void aot_pg_resolve_all(void)
{
    if (aot_pg_resolved || aot_pg_resolving)
        return;
    aot_pg_resolving = 1;
#define AOT_X(name) \
    if (!aot_pg_real.name) \
        aot_pg_real.name = (__typeof__(name) *) dlsym(RTLD_NEXT, #name);
    AOT_PG_WRAPPED(AOT_X)
#undef AOT_X
    aot_pg_resolving = 0;
    aot_pg_resolved = 1;
    aot_pg_gate_update();
}

static void aot_pg_missing(const char *name)
{
    static const char msg[] = "autoopt: cannot find the next definition of a wrapped libc function: ";
    aot_syscall(SYS_write, 2, msg, sizeof(msg) - 1);
    aot_syscall(SYS_write, 2, name, strlen(name));
    aot_syscall(SYS_write, 2, "\n", 1);
    abort();
}

/* The real function in the slow path (resolving on first use). */
#define AOT_PG_REAL(name) \
    (aot_pg_probes_release(), aot_pg_resolve_all(), \
     aot_pg_real.name ? aot_pg_real.name : (aot_pg_missing(#name), aot_pg_real.name))
/* The fast path: every real function known, nothing pending, no chains probe armed. */
#define AOT_PG_FAST(name) __builtin_expect(aot_pg_gate == 1 && !aot_probes_armed, 1)

/* ---------------------------------------------------------------- the common slow path */

/* Before the kernel (or libc) touches [lo, hi): complete conflicting requests (only outside
 * MPI), then open pages that still block the access until aot_pg_after. */
static void aot_pg_before(intptr_t lo, intptr_t hi, int kernel_writes, struct aot_pg_lift *l)
{
    l->p0 = l->p1 = 0;
    if (hi <= lo || !aot_pg_on || !aot_pg_npending)
        return;
    if (aot_tls.depth == 0) {
        int n;
        aot_tls.depth = 1;
        aot_pg_mpi_window = 1;
        n = aot_pg_complete_range(lo, hi, kernel_writes);
        aot_pg_lifted_restore();
        aot_pg_mpi_window = 0;
        aot_tls.depth = 0;
        if (n)
            AOT_PG_COUNT(syscall_waits, n);
    }
    if (aot_pg_guarded_meet((uintptr_t) lo, (uintptr_t) hi)) {
        l->p0 = AOT_PG_PAGE(lo);
        l->p1 = AOT_PG_PAGE(hi - 1) + 1;
        aot_pg_pages_lift(l->p0, l->p1);
        AOT_PG_COUNT(syscall_lifts, 1);
    }
}

static void aot_pg_after(const struct aot_pg_lift *l)
{
    if (l->p1 > l->p0)
        aot_pg_pages_restore(l->p0, l->p1);
}

/* The bounds of an iovec array (each entry's bytes are completed; the bounds are lifted). */
static void aot_pg_before_iov(const struct iovec *iov, int n, int kernel_writes,
                              struct aot_pg_lift *l)
{
    intptr_t lo = INTPTR_MAX, hi = 0;
    l->p0 = l->p1 = 0;
    if (!aot_pg_on || !aot_pg_npending || !iov)
        return;
    for (int k = 0; k < n; k++) {
        struct aot_pg_lift t;
        intptr_t a = (intptr_t) iov[k].iov_base, b = a + (intptr_t) iov[k].iov_len;
        if (b <= a)
            continue;
        aot_pg_before(a, b, kernel_writes, &t);
        aot_pg_after(&t);
        if (a < lo)
            lo = a;
        if (b > hi)
            hi = b;
    }
    if (hi > lo && aot_pg_guarded_meet((uintptr_t) lo, (uintptr_t) hi)) {
        l->p0 = AOT_PG_PAGE(lo);
        l->p1 = AOT_PG_PAGE(hi - 1) + 1;
        aot_pg_pages_lift(l->p0, l->p1);
    }
}

/* syswrap.c's wrappers: one pointer argument p of a system call, whose reach is not known
 * exactly: a path, a structure, or a buffer of the call's largest size argument, so
 * [p, p + span).  Completing more than the call touches only waits earlier; lifting more
 * only opens pages for the call's duration. */
void aot_pg_arg_before(struct aot_pg_lift *l, const void *p, size_t span, int kernel_writes)
{
    l->p0 = l->p1 = 0;
    if (!p)
        return;
    aot_pg_probes_release();
    if (span > (size_t) (UINTPTR_MAX - (uintptr_t) p))
        span = (size_t) (UINTPTR_MAX - (uintptr_t) p);
    aot_pg_before((intptr_t) p, (intptr_t) p + (intptr_t) span, kernel_writes, l);
}

void aot_pg_args_after(const struct aot_pg_lift *l, int n)
{
    while (n-- > 0)
        aot_pg_after(&l[n]);
}

/* Uninstrumented: the generated wrappers call it from AddressSanitizer's start-up. */
__attribute__((no_sanitize_address)) void *aot_pg_next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        aot_pg_missing(name);
    return f;
}

/* ---------------------------------------------------------------- the wrappers */

#define AOT_PG_BUF(name, ret, params, args, ptr, len, kw) \
    AOT_PG_EXPORT ret name params \
    { \
        struct aot_pg_lift l_; \
        ret r_; \
        if (AOT_PG_FAST(name)) \
            return aot_pg_real.name args; \
        aot_pg_before((intptr_t) (ptr), (intptr_t) (ptr) + (intptr_t) (len), kw, &l_); \
        r_ = AOT_PG_REAL(name) args; \
        aot_pg_after(&l_); \
        return r_; \
    }

#define AOT_PG_IOV(name, ret, params, args, iov, n, kw) \
    AOT_PG_EXPORT ret name params \
    { \
        struct aot_pg_lift l_; \
        ret r_; \
        if (AOT_PG_FAST(name)) \
            return aot_pg_real.name args; \
        aot_pg_before_iov(iov, n, kw, &l_); \
        r_ = AOT_PG_REAL(name) args; \
        aot_pg_after(&l_); \
        return r_; \
    }

AOT_PG_BUF(read, ssize_t, (int fd, void *buf, size_t n), (fd, buf, n), buf, n, 1)
AOT_PG_BUF(write, ssize_t, (int fd, const void *buf, size_t n), (fd, buf, n), buf, n, 0)
AOT_PG_BUF(pread, ssize_t, (int fd, void *buf, size_t n, off_t o), (fd, buf, n, o), buf, n, 1)
AOT_PG_BUF(pread64, ssize_t, (int fd, void *buf, size_t n, off64_t o), (fd, buf, n, o), buf, n, 1)
AOT_PG_BUF(pwrite, ssize_t, (int fd, const void *buf, size_t n, off_t o), (fd, buf, n, o), buf, n, 0)
AOT_PG_BUF(pwrite64, ssize_t, (int fd, const void *buf, size_t n, off64_t o), (fd, buf, n, o), buf, n, 0)
AOT_PG_BUF(send, ssize_t, (int fd, const void *buf, size_t n, int fl), (fd, buf, n, fl), buf, n, 0)
AOT_PG_BUF(recv, ssize_t, (int fd, void *buf, size_t n, int fl), (fd, buf, n, fl), buf, n, 1)
AOT_PG_BUF(sendto, ssize_t, (int fd, const void *buf, size_t n, int fl, const struct sockaddr *a,
                             socklen_t al), (fd, buf, n, fl, a, al), buf, n, 0)
AOT_PG_BUF(recvfrom, ssize_t, (int fd, void *buf, size_t n, int fl, struct sockaddr *a,
                               socklen_t *al), (fd, buf, n, fl, a, al), buf, n, 1)
AOT_PG_BUF(__read_chk, ssize_t, (int fd, void *buf, size_t n, size_t bl), (fd, buf, n, bl), buf, n, 1)
AOT_PG_BUF(__pread_chk, ssize_t, (int fd, void *buf, size_t n, off_t o, size_t bl),
           (fd, buf, n, o, bl), buf, n, 1)
AOT_PG_BUF(__pread64_chk, ssize_t, (int fd, void *buf, size_t n, off64_t o, size_t bl),
           (fd, buf, n, o, bl), buf, n, 1)
AOT_PG_BUF(__recv_chk, ssize_t, (int fd, void *buf, size_t n, size_t bl, int fl),
           (fd, buf, n, bl, fl), buf, n, 1)
AOT_PG_BUF(__recvfrom_chk, ssize_t, (int fd, void *buf, size_t n, size_t bl, int fl,
                                     struct sockaddr *a, socklen_t *al),
           (fd, buf, n, bl, fl, a, al), buf, n, 1)
AOT_PG_BUF(getrandom, ssize_t, (void *buf, size_t n, unsigned fl), (buf, n, fl), buf, n, 1)
AOT_PG_BUF(fread, size_t, (void *p, size_t s, size_t n, FILE *f), (p, s, n, f), p, s * n, 1)
AOT_PG_BUF(fwrite, size_t, (const void *p, size_t s, size_t n, FILE *f), (p, s, n, f), p, s * n, 0)
AOT_PG_BUF(fread_unlocked, size_t, (void *p, size_t s, size_t n, FILE *f), (p, s, n, f), p, s * n, 1)
AOT_PG_BUF(fwrite_unlocked, size_t, (const void *p, size_t s, size_t n, FILE *f), (p, s, n, f),
           p, s * n, 0)
AOT_PG_BUF(__fread_chk, size_t, (void *p, size_t pl, size_t s, size_t n, FILE *f),
           (p, pl, s, n, f), p, s * n, 1)
AOT_PG_BUF(__fread_unlocked_chk, size_t, (void *p, size_t pl, size_t s, size_t n, FILE *f),
           (p, pl, s, n, f), p, s * n, 1)
/* strlen reads the string first: a guarded one faults, and the handler waits for it */
AOT_PG_BUF(fputs, int, (const char *s, FILE *f), (s, f), s, strlen(s), 0)
AOT_PG_BUF(puts, int, (const char *s), (s), s, strlen(s), 0)

AOT_PG_IOV(readv, ssize_t, (int fd, const struct iovec *v, int n), (fd, v, n), v, n, 1)
AOT_PG_IOV(writev, ssize_t, (int fd, const struct iovec *v, int n), (fd, v, n), v, n, 0)
AOT_PG_IOV(preadv, ssize_t, (int fd, const struct iovec *v, int n, off_t o), (fd, v, n, o), v, n, 1)
AOT_PG_IOV(pwritev, ssize_t, (int fd, const struct iovec *v, int n, off_t o), (fd, v, n, o), v, n, 0)
AOT_PG_IOV(preadv64, ssize_t, (int fd, const struct iovec *v, int n, off64_t o), (fd, v, n, o), v, n, 1)
AOT_PG_IOV(pwritev64, ssize_t, (int fd, const struct iovec *v, int n, off64_t o), (fd, v, n, o), v, n, 0)
AOT_PG_IOV(preadv2, ssize_t, (int fd, const struct iovec *v, int n, off_t o, int fl),
           (fd, v, n, o, fl), v, n, 1)
AOT_PG_IOV(pwritev2, ssize_t, (int fd, const struct iovec *v, int n, off_t o, int fl),
           (fd, v, n, o, fl), v, n, 0)
AOT_PG_IOV(sendmsg, ssize_t, (int fd, const struct msghdr *m, int fl), (fd, m, fl),
           m ? m->msg_iov : NULL, m ? (int) m->msg_iovlen : 0, 0)
AOT_PG_IOV(recvmsg, ssize_t, (int fd, struct msghdr *m, int fl), (fd, m, fl),
           m ? m->msg_iov : NULL, m ? (int) m->msg_iovlen : 0, 1)
/* the local side of cross-memory attach: UCX's CMA transport reads and writes through these */
AOT_PG_IOV(process_vm_readv, ssize_t, (pid_t pid, const struct iovec *l, unsigned long ln,
                                       const struct iovec *r, unsigned long rn, unsigned long fl),
           (pid, l, ln, r, rn, fl), l, (int) ln, 1)
AOT_PG_IOV(process_vm_writev, ssize_t, (pid_t pid, const struct iovec *l, unsigned long ln,
                                        const struct iovec *r, unsigned long rn, unsigned long fl),
           (pid, l, ln, r, rn, fl), l, (int) ln, 0)

/* Several messages: each one's buffers are completed; the lifts are undone one by one. */
static void aot_pg_mmsg_before(struct mmsghdr *v, unsigned n, int kw)
{
    for (unsigned k = 0; v && k < n; k++) {
        struct aot_pg_lift l;
        aot_pg_before_iov(v[k].msg_hdr.msg_iov, (int) v[k].msg_hdr.msg_iovlen, kw, &l);
        aot_pg_after(&l);
    }
}

AOT_PG_EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int fl)
{
    if (AOT_PG_FAST(sendmmsg))
        return aot_pg_real.sendmmsg(fd, v, n, fl);
    aot_pg_mmsg_before(v, n, 0);
    return AOT_PG_REAL(sendmmsg)(fd, v, n, fl);
}

AOT_PG_EXPORT int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int fl, struct timespec *t)
{
    if (AOT_PG_FAST(recvmmsg))
        return aot_pg_real.recvmmsg(fd, v, n, fl, t);
    aot_pg_mmsg_before(v, n, 1);
    return AOT_PG_REAL(recvmmsg)(fd, v, n, fl, t);
}

/*
 * syscall(3): a program may call the kernel through libc's generic entry point instead of the
 * named wrappers (syscall(SYS_write, fd, buf, n)).  The numbers that hand the kernel a buffer
 * of the caller's get the same treatment as their named wrappers above; every other number goes
 * straight through, without even releasing chains' probes: autoopt calls syscall(SYS_gettid)
 * itself, inside the probe lock and in signal handlers.  (An inline syscall instruction is not
 * seen: docs/paging.md.)
 */
static long aot_pg_syscall_plain(long nr, const long *a)
{
    if (!aot_pg_real.syscall) {
        aot_pg_resolve_all();
        if (!aot_pg_real.syscall)
            aot_pg_missing("syscall");
    }
    return aot_pg_real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* The numbers that change mappings (mapping.c's rule): munmap, mremap, madvise, mprotect,
 * pkey_mprotect, shmat, shmdt, brk, and mmap with MAP_FIXED.  (UCX's libucm makes its own
 * munmap ... this way.) */
static int aot_pg_sys_maps(long nr, const long *a)
{
    switch (nr) {
    case SYS_munmap: case SYS_mremap: case SYS_madvise: case SYS_mprotect: case SYS_shmdt:
    case SYS_brk: case SYS_pkey_mprotect: case SYS_shmat:
        return 1;
    case SYS_mmap:
        return (a[3] & MAP_FIXED) != 0;
    default:
        return 0;
    }
}

static long aot_pg_syscall_maps(long nr, const long *a)
{
    long r;
    if (!AOT_PG_FAST(syscall)) {
        aot_pg_probes_release();
        switch (nr) {
        case SYS_munmap: case SYS_mprotect: case SYS_pkey_mprotect: case SYS_mmap:
            aot_pg_pages_done((const void *) a[0], (size_t) a[1]);
            break;
        case SYS_mremap:
            aot_pg_pages_done((const void *) a[0], (size_t) a[1]);
            if (a[3] & MREMAP_FIXED)
                aot_pg_pages_done((const void *) a[4], (size_t) a[2]);
            break;
        case SYS_madvise:
            if (aot_pg_advice_waits((int) a[2]))
                aot_pg_pages_done((const void *) a[0], (size_t) a[1]);
            break;
        case SYS_shmat:
            aot_pg_shm_attach((int) a[0], (const void *) a[1], (int) a[2]);
            break;
        case SYS_shmdt:
            aot_pg_shm_detach((const void *) a[0]);
            break;
        case SYS_brk:
            aot_pg_heap_to((uintptr_t) a[0]);
            break;
        default:
            break;
        }
    }
    r = aot_pg_syscall_plain(nr, a);
    if (nr != SYS_madvise)
        aot_maps_invalidate();
    return r;
}

/* Six arguments are read whatever the caller passed, as the kernel reads six registers and as
 * glibc's own syscall(3) does; the sixth comes from the caller's stack, so AddressSanitizer is
 * told not to check these reads. */
__attribute__((no_sanitize_address))
AOT_PG_EXPORT long syscall(long nr, ...)
{
    struct aot_pg_lift l = { 0, 0 };
    long a[6], r;
    va_list ap;

    va_start(ap, nr);
    for (int k = 0; k < 6; k++)
        a[k] = va_arg(ap, long);
    va_end(ap);
    if (aot_pg_sys_maps(nr, a))
        return aot_pg_syscall_maps(nr, a);
    if (AOT_PG_FAST(syscall))
        return aot_pg_real.syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    switch (nr) {
    case SYS_read: case SYS_pread64: case SYS_recvfrom: case SYS_write: case SYS_pwrite64:
    case SYS_sendto: case SYS_getrandom: case SYS_readv: case SYS_preadv: case SYS_preadv2:
    case SYS_process_vm_readv: case SYS_writev: case SYS_pwritev: case SYS_pwritev2:
    case SYS_process_vm_writev: case SYS_recvmsg: case SYS_sendmsg:
        break;
    default:
        return aot_pg_syscall_plain(nr, a);
    }
    switch (nr) {
    case SYS_read: case SYS_pread64: case SYS_recvfrom:
        aot_pg_before(a[1], a[1] + a[2], 1, &l);
        break;
    case SYS_write: case SYS_pwrite64: case SYS_sendto:
        aot_pg_before(a[1], a[1] + a[2], 0, &l);
        break;
    case SYS_getrandom:
        aot_pg_before(a[0], a[0] + a[1], 1, &l);
        break;
    case SYS_readv: case SYS_preadv: case SYS_preadv2: case SYS_process_vm_readv:
        aot_pg_before_iov((const struct iovec *) a[1], (int) a[2], 1, &l);
        break;
    case SYS_writev: case SYS_pwritev: case SYS_pwritev2: case SYS_process_vm_writev:
        aot_pg_before_iov((const struct iovec *) a[1], (int) a[2], 0, &l);
        break;
    case SYS_recvmsg: case SYS_sendmsg: {
        const struct msghdr *m = (const struct msghdr *) a[1];
        if (m)
            aot_pg_before_iov(m->msg_iov, (int) m->msg_iovlen, nr == SYS_recvmsg, &l);
        break;
    }
    default:
        break;
    }
    r = AOT_PG_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    aot_pg_after(&l);
    return r;
}

/*
 * POSIX asynchronous I/O: glibc runs each request in a helper thread of its own, which reads or
 * writes the buffer while the program goes on; no guard may be on its pages then, or later.
 * The first such call is treated as the start of a program thread (src/threads.c): everything
 * pending completes, its guards go, and conversion and chains stay off from then on.
 */
static void aot_pg_aio_seen(void)
{
    if (aot_tls.depth != 0)
        return;
    if (!aot_active)
        aot_app_threads_before_init = 1;
    else if (!aot_app_threads)
        aot_app_threads_begin("the program uses POSIX asynchronous I/O (glibc's helper threads)");
}

#define AOT_PG_AIO(name, type) \
    AOT_PG_EXPORT int name(type *cb) \
    { \
        aot_pg_aio_seen(); \
        return AOT_PG_REAL(name)(cb); \
    }
AOT_PG_AIO(aio_read, struct aiocb)
AOT_PG_AIO(aio_write, struct aiocb)
AOT_PG_AIO(aio_read64, struct aiocb64)
AOT_PG_AIO(aio_write64, struct aiocb64)

AOT_PG_EXPORT int lio_listio(int mode, struct aiocb *const list[], int n, struct sigevent *sev)
{
    aot_pg_aio_seen();
    return AOT_PG_REAL(lio_listio)(mode, list, n, sev);
}

AOT_PG_EXPORT int lio_listio64(int mode, struct aiocb64 *const list[], int n, struct sigevent *sev)
{
    aot_pg_aio_seen();
    return AOT_PG_REAL(lio_listio64)(mode, list, n, sev);
}

/* ---------------------------------------------------------------- allocator and mappings */

#ifndef AOT_SANITIZED
/* The chunk of p: malloc_usable_size reads its header, which faults harmlessly when guarded. */
static void aot_pg_chunk_done(void *p)
{
    if (p && aot_pg_on && aot_pg_npending && aot_tls.depth == 0) {
        intptr_t lo = (intptr_t) p - 2 * (intptr_t) sizeof(size_t);
        intptr_t hi = (intptr_t) p + (intptr_t) malloc_usable_size(p);
        int n;
        aot_tls.depth = 1;
        aot_pg_mpi_window = 1;
        n = aot_pg_complete_range(lo, hi, 1);
        aot_pg_lifted_restore();
        aot_pg_mpi_window = 0;
        aot_tls.depth = 0;
        if (n)
            AOT_PG_COUNT(syscall_waits, n);
    }
}

AOT_PG_EXPORT void free(void *p)
{
    if (AOT_PG_FAST(free)) {
        aot_pg_real.free(p);
        return;
    }
    if (!aot_pg_resolved && aot_pg_resolving) {
        __libc_free(p);
        return;
    }
    aot_pg_chunk_done(p);
    AOT_PG_REAL(free)(p);
}

AOT_PG_EXPORT void *realloc(void *p, size_t n)
{
    if (AOT_PG_FAST(realloc))
        return aot_pg_real.realloc(p, n);
    if (!aot_pg_resolved && aot_pg_resolving)
        return __libc_realloc(p, n);
    aot_pg_chunk_done(p);
    return AOT_PG_REAL(realloc)(p, n);
}

AOT_PG_EXPORT void *reallocarray(void *p, size_t m, size_t n)
{
    if (AOT_PG_FAST(reallocarray))
        return aot_pg_real.reallocarray(p, m, n);
    aot_pg_chunk_done(p);
    return AOT_PG_REAL(reallocarray)(p, m, n);
}

#endif /* AOT_SANITIZED */

/* The mapping cache forgets what it knew once the kernel has changed the mappings (before, a
 * query from another thread could cache the old state again).  mmap without MAP_FIXED only
 * adds a mapping where none was, which a query does not find in the cache and asks for. */
#define AOT_PG_MAPS_CHANGED(ret, call) \
    do { \
        ret r_ = call; \
        aot_maps_invalidate(); \
        return r_; \
    } while (0)

AOT_PG_EXPORT int munmap(void *a, size_t len)
{
    if (AOT_PG_FAST(munmap))
        AOT_PG_MAPS_CHANGED(int, aot_pg_real.munmap(a, len));
    aot_pg_pages_done(a, len);
    AOT_PG_MAPS_CHANGED(int, AOT_PG_REAL(munmap)(a, len));
}

AOT_PG_EXPORT void *mremap(void *a, size_t old, size_t len, int flags, ...)
{
    void *to = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        to = va_arg(ap, void *);
        va_end(ap);
    }
    if (!AOT_PG_FAST(mremap)) {
        aot_pg_pages_done(a, old);
        if (flags & MREMAP_FIXED)
            aot_pg_pages_done(to, len);
    }
    AOT_PG_MAPS_CHANGED(void *, AOT_PG_REAL(mremap)(a, old, len, flags, to));
}

AOT_PG_EXPORT int madvise(void *a, size_t len, int advice)
{
    if (AOT_PG_FAST(madvise))
        return aot_pg_real.madvise(a, len, advice);
    if (aot_pg_advice_waits(advice))
        aot_pg_pages_done(a, len);
    return AOT_PG_REAL(madvise)(a, len, advice);
}

/* shmat's segment replaces a mapping only with SHM_REMAP (anything else fails there) */
AOT_PG_EXPORT void *shmat(int id, const void *a, int flags)
{
    if (!AOT_PG_FAST(shmat))
        aot_pg_shm_attach(id, a, flags);
    AOT_PG_MAPS_CHANGED(void *, AOT_PG_REAL(shmat)(id, a, flags));
}

AOT_PG_EXPORT int shmdt(const void *a)
{
    if (!AOT_PG_FAST(shmdt))
        aot_pg_shm_detach(a);
    AOT_PG_MAPS_CHANGED(int, AOT_PG_REAL(shmdt)(a));
}

/* The program's own heap calls (glibc's allocator calls its internal __brk, which does not
 * come here; free and realloc above cover its chunks). */
AOT_PG_EXPORT int brk(void *a)
{
    if (!AOT_PG_FAST(brk))
        aot_pg_heap_to((uintptr_t) a);
    AOT_PG_MAPS_CHANGED(int, AOT_PG_REAL(brk)(a));
}

AOT_PG_EXPORT void *sbrk(intptr_t inc)
{
    if (inc < 0 && !AOT_PG_FAST(sbrk))
        aot_pg_heap_to((uintptr_t) aot_syscall(SYS_brk, 0) + (uintptr_t) inc);
    if (inc >= 0)
        return AOT_PG_REAL(sbrk)(inc);
    AOT_PG_MAPS_CHANGED(void *, AOT_PG_REAL(sbrk)(inc));
}

AOT_PG_EXPORT int mprotect(void *a, size_t len, int prot)
{
    if (AOT_PG_FAST(mprotect))
        AOT_PG_MAPS_CHANGED(int, aot_pg_real.mprotect(a, len, prot));
    aot_pg_pages_done(a, len);
    AOT_PG_MAPS_CHANGED(int, AOT_PG_REAL(mprotect)(a, len, prot));
}

/* mprotect with a protection key (-1: none, then it is mprotect) */
AOT_PG_EXPORT int pkey_mprotect(void *a, size_t len, int prot, int pkey)
{
    if (AOT_PG_FAST(pkey_mprotect))
        AOT_PG_MAPS_CHANGED(int, aot_pg_real.pkey_mprotect(a, len, prot, pkey));
    aot_pg_pages_done(a, len);
    AOT_PG_MAPS_CHANGED(int, AOT_PG_REAL(pkey_mprotect)(a, len, prot, pkey));
}

AOT_PG_EXPORT void *mmap(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
    if (!(flags & MAP_FIXED))
        return AOT_PG_FAST(mmap) ? aot_pg_real.mmap(a, len, prot, flags, fd, off)
                                 : AOT_PG_REAL(mmap)(a, len, prot, flags, fd, off);
    if (!AOT_PG_FAST(mmap))
        aot_pg_pages_done(a, len);
    AOT_PG_MAPS_CHANGED(void *, AOT_PG_REAL(mmap)(a, len, prot, flags, fd, off));
}

AOT_PG_EXPORT void *mmap64(void *a, size_t len, int prot, int flags, int fd, off64_t off)
{
    if (!(flags & MAP_FIXED))
        return AOT_PG_FAST(mmap64) ? aot_pg_real.mmap64(a, len, prot, flags, fd, off)
                                   : AOT_PG_REAL(mmap64)(a, len, prot, flags, fd, off);
    if (!AOT_PG_FAST(mmap64))
        aot_pg_pages_done(a, len);
    AOT_PG_MAPS_CHANGED(void *, AOT_PG_REAL(mmap64)(a, len, prot, flags, fd, off));
}

/* ---------------------------------------------------------------- fork */

static void aot_pg_atfork_prepare(void)
{
    if (aot_pg_on && aot_pg_npending && aot_tls.depth == 0) {
        int n = aot_pg_npending;
        aot_tls.depth = 1;
        aot_pg_mpi_window = 1;
        aot_pg_wait_all();
        aot_pg_lifted_restore();
        aot_pg_mpi_window = 0;
        aot_tls.depth = 0;
        AOT_PG_COUNT(fork_waits, n);
    }
}

static void aot_pg_atfork_child(void)
{
    aot_pg_child_reset();
    aot_pg_gate_update();
}

void aot_pg_syscalls_init(void)
{
    static int done;
    aot_pg_resolve_all();
    if (!done) {
        pthread_atfork(aot_pg_atfork_prepare, NULL, aot_pg_atfork_child);
        done = 1;
    }
    aot_pg_ucm_init();
}
