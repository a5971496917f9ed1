/*
 * syswrap_stub_core.c: the checks of the stub library of test paging.syswrap_all
 * (syswrap_stub.h says what it does).  Tests only, never installed.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The checks use raw system calls (the syscall instruction): libc's syscall(3) is wrapped by
 * libautoopt, which would complete the requests there and hide what the test looks for.
 * process_vm_readv on the process itself fails with EFAULT at the first byte of a page it may
 * not read (a no-access guard), and process_vm_writev of the bytes just read back where they
 * were at the first page it may not write (a read-only guard); neither faults.
 */
#define _GNU_SOURCE
#define AOT_SW_STUB
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "syswrap_stub.h"

#if !defined(__x86_64__)
#error "syswrap_stub_core.c: raw system calls are written for x86-64 only"
#endif

static long aot_sw_raw(long nr, long a, long b, long c, long d, long e, long f)
{
    long r;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return r;
}

/* How many bytes from p on this process may read (write: write back) at most n; buf gets them. */
static size_t aot_sw_probe(const void *p, void *buf, size_t n, int write)
{
    struct iovec local = { buf, n }, remote = { (void *) (uintptr_t) p, n };
    long pid = aot_sw_raw(SYS_getpid, 0, 0, 0, 0, 0, 0);
    long r = aot_sw_raw(write ? SYS_process_vm_writev : SYS_process_vm_readv, pid,
                        (long) &local, 1, (long) &remote, 1, 0);
    return r < 0 ? 0 : (size_t) r;
}

static int aot_sw_armed = -1;
static uintptr_t aot_sw_lo, aot_sw_hi;
static struct aot_sw_record aot_sw_rec;

AOT_SW_EXPORT void aot_sw_arm(int k, const void *lo, const void *hi)
{
    memset(&aot_sw_rec, 0, offsetof(struct aot_sw_record, data));
    aot_sw_lo = (uintptr_t) lo;
    aot_sw_hi = (uintptr_t) hi;
    __atomic_store_n(&aot_sw_armed, k, __ATOMIC_SEQ_CST);
}

AOT_SW_EXPORT const struct aot_sw_record *aot_sw_record(void)
{
    __atomic_store_n(&aot_sw_armed, -1, __ATOMIC_SEQ_CST);
    return &aot_sw_rec;
}

AOT_SW_EXPORT size_t aot_sw_access(const void *p, size_t n, int write)
{
    static unsigned char buf[AOT_SW_MAXREACH];
    size_t got;
    if (n > sizeof buf)
        n = sizeof buf;
    got = aot_sw_probe(p, buf, n, 0);
    return write && got ? aot_sw_probe(p, buf, got, 1) : got;
}

/* The armed call: function k with a pointer argument in the test's buffers (MPI and UCX may
 * call the same function meanwhile, never with those). */
int aot_sw_mine(int k, const void *const *p, int n)
{
    if (__atomic_load_n(&aot_sw_armed, __ATOMIC_SEQ_CST) != k)
        return 0;
    for (int i = 0; i < n; i++)
        if ((uintptr_t) p[i] >= aot_sw_lo && (uintptr_t) p[i] < aot_sw_hi) {
            int want = k;
            return __atomic_compare_exchange_n(&aot_sw_armed, &want, -1, 0, __ATOMIC_SEQ_CST,
                                               __ATOMIC_SEQ_CST);
        }
    return 0;
}

void aot_sw_check(const void *const *p, const size_t *n, const int *write, int np)
{
    aot_sw_rec.reached = 1;
    aot_sw_rec.nptrs = np;
    for (int i = 0; i < np && i < AOT_SW_MAXPTR; i++) {
        size_t m = n[i] < AOT_SW_MAXREACH ? n[i] : AOT_SW_MAXREACH;
        aot_sw_rec.ptr[i].p = p[i];
        aot_sw_rec.ptr[i].n = p[i] ? m : 0;
        aot_sw_rec.ptr[i].write = write[i];
        if (!p[i] || !m)
            continue;
        aot_sw_rec.ptr[i].readable = aot_sw_probe(p[i], aot_sw_rec.data[i], m, 0);
        if (write[i] && aot_sw_rec.ptr[i].readable == m)
            aot_sw_rec.ptr[i].writable = aot_sw_probe(p[i], aot_sw_rec.data[i], m, 1);
    }
}

void *aot_sw_next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        static const char msg[] = "syswrap stub: no next definition of ";
        aot_sw_raw(SYS_write, 2, (long) msg, sizeof msg - 1, 0, 0, 0);
        aot_sw_raw(SYS_write, 2, (long) name, (long) strlen(name), 0, 0, 0);
        aot_sw_raw(SYS_write, 2, (long) "\n", 1, 0, 0, 0);
        abort();
    }
    return f;
}

size_t aot_sw_max(int n, ...)
{
    size_t m = 0;
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        size_t v = va_arg(ap, size_t);
        if (v > m)
            m = v;
    }
    va_end(ap);
    return m;
}
