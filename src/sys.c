/*
 * sys.c: autoopt's own system calls.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * libautoopt exports syscall(3) for the program (paging/syscalls.c completes the requests on a
 * buffer handed to the kernel).  autoopt's own raw calls (gettid inside the probe lock, writes
 * from signal handlers, reading /proc/self/maps, the trace writer) must not take that path: it
 * may release chains' probes, take their lock again or wait for requests.  aot_syscall is the
 * syscall instruction itself, with syscall(3)'s convention (-1 and errno on failure).
 * Async-signal-safe.
 */
#include <dlfcn.h>
#include <errno.h>

#include "aot_sys.h"

long aot_syscall6(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
    long a[6] = {a0, a1, a2, a3, a4, a5}, ret;

#if defined(__x86_64__)
    {
        register long r10 __asm__("r10") = a[3];
        register long r8 __asm__("r8") = a[4];
        register long r9 __asm__("r9") = a[5];
        __asm__ volatile("syscall"
                         : "=a"(ret)
                         : "a"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9)
                         : "rcx", "r11", "memory");
    }
    if (ret < 0 && ret > -4096) {
        errno = (int) -ret;
        return -1;
    }
    return ret;
#else
    /* Elsewhere: libc's own syscall(3), found past libautoopt's export. */
    static long (*real)(long, ...);
    if (!real)
        real = (long (*)(long, ...)) dlsym(RTLD_NEXT, "syscall");
    ret = real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    return ret;
#endif
}
