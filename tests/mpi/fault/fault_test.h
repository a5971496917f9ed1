/*
 * fault_test.h: helpers of the fault-entry tests (besides ../paging/paging_test.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef FAULT_TEST_H_INCLUDED
#define FAULT_TEST_H_INCLUDED
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

/* autoopt_active() when libautoopt is loaded (preload or linked), else 0. */
static inline int ft_autoopt_on(void)
{
    int (*active)(void) = (int (*)(void)) dlsym(RTLD_DEFAULT, "autoopt_active");
    return active ? active() : 0;
}

/* The handler the kernel has for sig, read with the system call itself: under autoopt,
 * sigaction answers what the program set, not what the kernel has. */
static inline void *ft_kernel_handler(int sig)
{
    struct { void *handler; unsigned long flags; void *restorer; unsigned long mask; } k;
    if (syscall(SYS_rt_sigaction, sig, NULL, &k, sizeof(k.mask)) != 0)
        return NULL;
    return k.handler;
}

/* The alternate stack the kernel has for this thread, read with the system call itself. */
static inline void *ft_kernel_altstack(void)
{
    stack_t k;
    if (syscall(SYS_sigaltstack, NULL, &k) != 0 || (k.ss_flags & SS_DISABLE))
        return NULL;
    return k.ss_sp;
}
#endif
