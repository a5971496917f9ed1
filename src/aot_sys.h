/*
 * aot_sys.h: system calls for autoopt's own use (src/sys.c), and the probes a system call
 * must lift first.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_SYS_H_INCLUDED
#define AOT_SYS_H_INCLUDED

/* syscall(3) for autoopt's own use: the instruction itself, never the exported syscall wrapper
 * (which may release probes or wait).  -1 and errno on failure.  Async-signal-safe. */
long aot_syscall6(long nr, long a, long b, long c, long d, long e, long f);
/* aot_syscall(SYS_write, fd, buf, n): the arguments not given are passed as 0 (a variadic
 * function would read past the ones given). */
#define AOT_SYSCALL_PICK(nr, a, b, c, d, e, f, ...)                                            \
    aot_syscall6((long) (nr), (long) (a), (long) (b), (long) (c), (long) (d), (long) (e),       \
                 (long) (f))
#define aot_syscall(...) AOT_SYSCALL_PICK(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

/* Chains' learning probes (chains/probe.c) protect a phase's buffers between two MPI calls.
 * A system call handed such memory would fail with EFAULT, so paging's libc wrappers call
 * aot_probes_release() first whenever aot_probes_armed is set; the release lifts every probe
 * and counts as a touch of the data (which it is). */
extern volatile int aot_probes_armed;
extern void (*aot_probes_release)(void);

#endif /* AOT_SYS_H_INCLUDED */
