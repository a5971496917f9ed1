/*
 * signals.c: libautoopt's sigaction and signal family, the program's view of SIGSEGV and
 * SIGTRAP while autoopt's fault entry holds them (contract: aot_fault.h, "THE PROGRAM'S
 * DISPOSITIONS"; docs/protection.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Exported: sigaction and __sigaction, and every other function of glibc that sets a
 * disposition, since glibc's own signal, sigset, ... call its internal sigaction, which no
 * interposer sees: signal (= bsd_signal = ssignal in glibc), sysv_signal and __sysv_signal,
 * sigset, sigignore, siginterrupt.  For a signal other than SIGSEGV and SIGTRAP each one calls
 * glibc's function of the same name, unchanged.  For SIGSEGV and SIGTRAP each one does what
 * glibc 2.36's does (the flags and mask it sets, what it returns), on aot_fault_sigaction
 * instead of the kernel; siginterrupt's choice for these two signals is kept here, for signal.
 * And sigaltstack (aot_fault_sigaltstack): the entry runs on the thread's alternate stack, and
 * a small one of the program's would overflow in paging's wait.
 * And the functions that change the blocked mask for good: sigprocmask, pthread_sigmask (both
 * of glibc's versions bind to this unversioned definition), sighold, sigrelse, sigblock,
 * sigsetmask, and sigset's SIG_HOLD: each passes its caller to aot_fault_sigmask, which lets
 * the program block SIGSEGV or SIGTRAP only once it holds no guard ("THE PROGRAM'S BLOCKED
 * MASK" in aot_fault.h).  And sigsuspend, whose mask holds while a handler runs during the
 * wait: one that blocks SIGSEGV or SIGTRAP completes every guard first (aot_fault_wait_mask).
 * And the jumps that restore a saved mask: siglongjmp, longjmp, _longjmp and the fortified
 * __longjmp_chk restore the mask sigsetjmp(env, 1) saved with glibc's internal sigprocmask;
 * each one here passes that mask to aot_fault_sigmask first, as if the program had called
 * sigprocmask(SIG_SETMASK, saved) just before the jump, then jumps with glibc's.
 * And pselect, whose mask holds while it waits, as sigsuspend (ppoll, epoll_pwait and
 * epoll_pwait2 do the same in their generated wrappers, paging/syswrap.c).
 * Not interposed: the other masks that last one wait (sigpause of BSD with a mask,
 * sigwait and sigtimedwait, whose handlers do not run; signalfd's mask is no blocking at all), glibc's
 * other internal changes (setcontext, swapcontext, posix_spawn) and the system call
 * itself.
 * Not covered: sigvec and sigstack (obsolete; sigvec is a compatibility symbol no program can
 * link against), and the rt_sigaction and sigaltstack system calls made directly (syscall(2),
 * assembly).
 *
 * Like glibc's, these functions may be called from a signal handler: no malloc, no lock but
 * fault.c's disposition lock.  glibc's functions are looked up (dlsym RTLD_NEXT) on the first
 * call of any of them: UCX's when libucs loads, autoopt's at MPI_Init at the latest, and in any
 * case the one that installed the program's first handler, so never inside a handler.
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>

#include "aot_fault.h"

#define AOT_SIG_EXPORT __attribute__((visibility("default")))

typedef int aot_sig_action_fn(int, const struct sigaction *, struct sigaction *);
typedef __sighandler_t aot_sig_handler_fn(int, __sighandler_t);
typedef int aot_sig_ignore_fn(int);
typedef int aot_sig_interrupt_fn(int, int);
typedef int aot_sig_altstack_fn(const stack_t *, stack_t *);
typedef int aot_sig_mask_fn(int, const sigset_t *, sigset_t *);
typedef void aot_sig_jump_fn(struct __jmp_buf_tag *, int);

/* glibc's functions, past this library */
static struct {
    aot_sig_action_fn *sigaction;
    aot_sig_handler_fn *signal, *sysv_signal, *sigset;
    aot_sig_ignore_fn *sigignore;
    aot_sig_interrupt_fn *siginterrupt;
    aot_sig_altstack_fn *sigaltstack;
    aot_sig_mask_fn *pthread_sigmask;
    aot_sig_jump_fn *siglongjmp, *longjmp, *_longjmp, *__longjmp_chk;
    int resolved;
} aot_sig_next;

static void aot_sig_resolve(void)
{
    if (__atomic_load_n(&aot_sig_next.resolved, __ATOMIC_ACQUIRE))
        return;
    aot_sig_next.sigaction = (aot_sig_action_fn *) dlsym(RTLD_NEXT, "sigaction");
    aot_sig_next.signal = (aot_sig_handler_fn *) dlsym(RTLD_NEXT, "signal");
    aot_sig_next.sysv_signal = (aot_sig_handler_fn *) dlsym(RTLD_NEXT, "sysv_signal");
    aot_sig_next.sigset = (aot_sig_handler_fn *) dlsym(RTLD_NEXT, "sigset");
    aot_sig_next.sigignore = (aot_sig_ignore_fn *) dlsym(RTLD_NEXT, "sigignore");
    aot_sig_next.siginterrupt = (aot_sig_interrupt_fn *) dlsym(RTLD_NEXT, "siginterrupt");
    aot_sig_next.sigaltstack = (aot_sig_altstack_fn *) dlsym(RTLD_NEXT, "sigaltstack");
    aot_sig_next.pthread_sigmask = (aot_sig_mask_fn *) dlsym(RTLD_NEXT, "pthread_sigmask");
    aot_sig_next.siglongjmp = (aot_sig_jump_fn *) dlsym(RTLD_NEXT, "siglongjmp");
    aot_sig_next.longjmp = (aot_sig_jump_fn *) dlsym(RTLD_NEXT, "longjmp");
    aot_sig_next._longjmp = (aot_sig_jump_fn *) dlsym(RTLD_NEXT, "_longjmp");
    aot_sig_next.__longjmp_chk = (aot_sig_jump_fn *) dlsym(RTLD_NEXT, "__longjmp_chk");
    __atomic_store_n(&aot_sig_next.resolved, 1, __ATOMIC_RELEASE);
}

int aot_fault_real(int sig, const struct sigaction *act, struct sigaction *old)
{
    aot_sig_resolve();
    if (!aot_sig_next.sigaction) {
        errno = ENOSYS;
        return -1;
    }
    return aot_sig_next.sigaction(sig, act, old);
}

int aot_fault_real_altstack(const stack_t *ss, stack_t *old)
{
    aot_sig_resolve();
    if (!aot_sig_next.sigaltstack) {
        errno = ENOSYS;
        return -1;
    }
    return aot_sig_next.sigaltstack(ss, old);
}

int aot_fault_real_mask(int how, const sigset_t *set, sigset_t *old)
{
    aot_sig_resolve();
    if (!aot_sig_next.pthread_sigmask)
        return ENOSYS;
    return aot_sig_next.pthread_sigmask(how, set, old);
}

/* sigprocmask's answer (0, or -1 with errno) for the program's call from caller. */
static int aot_sig_mask(int how, const sigset_t *set, sigset_t *old, const void *caller)
{
    int e = aot_fault_sigmask(how, set, old, caller);

    if (e) {
        errno = e;
        return -1;
    }
    return 0;
}

static int aot_sig_ours(int sig)
{
    return sig == SIGSEGV || sig == SIGTRAP;
}

/* siginterrupt(sig, 1) was the last word for SIGSEGV [0] or SIGTRAP [1] (glibc's _sigintr) */
static int aot_sig_intr[2];

static int *aot_sig_intr_of(int sig)
{
    return &aot_sig_intr[sig == SIGTRAP];
}

/* Sets handler h with flags (and sig itself in the mask when mask_self); the old handler, or
 * SIG_ERR with errno. */
static __sighandler_t aot_sig_set(int sig, __sighandler_t h, int flags, int mask_self)
{
    struct sigaction act, old;

    if (h == SIG_ERR) {
        errno = EINVAL;
        return SIG_ERR;
    }
    memset(&act, 0, sizeof(act));
    act.sa_handler = h;
    sigemptyset(&act.sa_mask);
    if (mask_self)
        sigaddset(&act.sa_mask, sig);
    act.sa_flags = flags;
    if (aot_fault_sigaction(sig, &act, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

/* A resolved glibc function, or errno ENOSYS and the value r. */
#define AOT_SIG_NEXT(fn, r, ...)                                        \
    do {                                                                \
        aot_sig_resolve();                                              \
        if (!aot_sig_next.fn) {                                         \
            errno = ENOSYS;                                             \
            return r;                                                   \
        }                                                               \
        return aot_sig_next.fn(__VA_ARGS__);                            \
    } while (0)

AOT_SIG_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return aot_fault_sigaction(sig, act, old);
}

AOT_SIG_EXPORT int __sigaction(int sig, const struct sigaction *act, struct sigaction *old)
    __attribute__((alias("sigaction"), copy(sigaction)));

/* BSD semantics: sig blocked in its handler, system calls restarted unless siginterrupt */
AOT_SIG_EXPORT __sighandler_t signal(int sig, __sighandler_t h)
{
    if (!aot_sig_ours(sig))
        AOT_SIG_NEXT(signal, SIG_ERR, sig, h);
    return aot_sig_set(sig, h,
                       __atomic_load_n(aot_sig_intr_of(sig), __ATOMIC_RELAXED) ? 0 : SA_RESTART,
                       1);
}

AOT_SIG_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t h)
    __attribute__((alias("signal"), copy(signal)));
AOT_SIG_EXPORT __sighandler_t ssignal(int sig, __sighandler_t h)
    __attribute__((alias("signal"), copy(signal)));

/* System V semantics: reset to the default when delivered, not blocked in its handler */
AOT_SIG_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t h)
{
    if (!aot_sig_ours(sig))
        AOT_SIG_NEXT(sysv_signal, SIG_ERR, sig, h);
    return aot_sig_set(sig, h, SA_RESETHAND | SA_NODEFER | SA_INTERRUPT, 0);
}

AOT_SIG_EXPORT __sighandler_t __sysv_signal(int sig, __sighandler_t h)
    __attribute__((alias("sysv_signal"), copy(sysv_signal)));

AOT_SIG_EXPORT __sighandler_t sigset(int sig, __sighandler_t disp)
{
    struct sigaction old;
    sigset_t set, was;
    __sighandler_t h;

    if (!aot_sig_ours(sig))
        AOT_SIG_NEXT(sigset, SIG_ERR, sig, disp);
    sigemptyset(&set);
    sigaddset(&set, sig);
    if (disp == SIG_HOLD) {
        if (aot_sig_mask(SIG_BLOCK, &set, &was, __builtin_return_address(0)) < 0)
            return SIG_ERR;
        if (sigismember(&was, sig))
            return SIG_HOLD;
        if (aot_fault_sigaction(sig, NULL, &old) < 0)
            return SIG_ERR;
        return old.sa_handler;
    }
    h = aot_sig_set(sig, disp, 0, 0);
    if (h == SIG_ERR || aot_sig_mask(SIG_UNBLOCK, &set, &was, __builtin_return_address(0)) < 0)
        return SIG_ERR;
    return sigismember(&was, sig) ? SIG_HOLD : h;
}

AOT_SIG_EXPORT int sigignore(int sig)
{
    struct sigaction act;

    if (!aot_sig_ours(sig))
        AOT_SIG_NEXT(sigignore, -1, sig);
    memset(&act, 0, sizeof(act));
    act.sa_handler = SIG_IGN;
    sigemptyset(&act.sa_mask);
    return aot_fault_sigaction(sig, &act, NULL);
}

AOT_SIG_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
    return aot_fault_sigaltstack(ss, old);
}

AOT_SIG_EXPORT int siginterrupt(int sig, int interrupt)
{
    struct sigaction act;

    if (!aot_sig_ours(sig))
        AOT_SIG_NEXT(siginterrupt, -1, sig, interrupt);
    if (aot_fault_sigaction(sig, NULL, &act) < 0)
        return -1;
    __atomic_store_n(aot_sig_intr_of(sig), interrupt != 0, __ATOMIC_RELAXED);
    if (interrupt)
        act.sa_flags &= ~SA_RESTART;
    else
        act.sa_flags |= SA_RESTART;
    return aot_fault_sigaction(sig, &act, NULL);
}

/* ---------------------------------------------------------------- the blocked mask */

AOT_SIG_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    return aot_sig_mask(how, set, old, __builtin_return_address(0));
}

AOT_SIG_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    return aot_fault_sigmask(how, set, old, __builtin_return_address(0));
}

/* sighold and sigrelse: sig alone blocked or unblocked, as glibc's (EINVAL for a bad sig) */
static int aot_sig_one(int how, int sig, const void *caller)
{
    sigset_t set;

    sigemptyset(&set);
    if (sigaddset(&set, sig) < 0)
        return -1;
    return aot_sig_mask(how, &set, NULL, caller);
}

AOT_SIG_EXPORT int sighold(int sig)
{
    return aot_sig_one(SIG_BLOCK, sig, __builtin_return_address(0));
}

AOT_SIG_EXPORT int sigrelse(int sig)
{
    return aot_sig_one(SIG_UNBLOCK, sig, __builtin_return_address(0));
}

/* sigblock and sigsetmask: BSD masks of signals 1-32 (bit sig - 1), the old one returned */
static int aot_sig_bsd(int how, int mask, const void *caller)
{
    sigset_t set, old;
    unsigned bits = (unsigned) mask, was = 0;

    sigemptyset(&set);
    for (int k = 1; k <= 32; k++)
        if (bits & (1U << (k - 1)))
            sigaddset(&set, k);
    if (aot_sig_mask(how, &set, &old, caller) < 0)
        return -1;
    for (int k = 1; k <= 32; k++)
        if (sigismember(&old, k) == 1)
            was |= 1U << (k - 1);
    return (int) was;
}

/* sigsuspend: a handler of a signal delivered during the wait runs with the wait's mask, so a
 * mask that blocks SIGSEGV or SIGTRAP first has every guard completed (aot_fault_wait_mask).
 * sigpause (XSI) unblocks one signal of the current mask only; glibc's BSD sigpause with a
 * mask cannot be named from <signal.h> and is not interposed. */
AOT_SIG_EXPORT int sigsuspend(const sigset_t *mask)
{
    static int (*next)(const sigset_t *);

    if (!next)
        next = (int (*)(const sigset_t *)) dlsym(RTLD_NEXT, "sigsuspend");
    if (!next) {
        errno = ENOSYS;
        return -1;
    }
    aot_fault_wait_mask(mask);
    return next(mask);
}

/* pselect, whose mask holds while it waits, as sigsuspend's (ppoll and epoll_pwait: their
 * generated wrappers in paging/syswrap.c; pselect is not named after its system call,
 * pselect6).  Its descriptor sets are not lifted (as select's are): a limit in limits.md. */
AOT_SIG_EXPORT int pselect(int n, fd_set *rd, fd_set *wr, fd_set *ex, const struct timespec *t,
                           const sigset_t *mask)
{
    static int (*next)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
                       const sigset_t *);

    if (!next)
        next = (int (*)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
                        const sigset_t *)) dlsym(RTLD_NEXT, "pselect");
    if (!next) {
        errno = ENOSYS;
        return -1;
    }
    if (mask)
        aot_fault_wait_mask(mask);
    return next(n, rd, wr, ex, t, mask);
}

AOT_SIG_EXPORT int sigblock(int mask)
{
    return aot_sig_bsd(SIG_BLOCK, mask, __builtin_return_address(0));
}

AOT_SIG_EXPORT int sigsetmask(int mask)
{
    return aot_sig_bsd(SIG_SETMASK, mask, __builtin_return_address(0));
}

/* ---------------------------------------------------------------- jumps that restore a mask */

/* glibc restores a mask that sigsetjmp(env, 1) saved with its internal sigprocmask, which no
 * interposer sees: a jump back to a point where the program had SIGSEGV blocked would leave
 * it blocked with guards in place (the next touch of a pending buffer kills).  So the saved
 * mask goes through aot_fault_sigmask first (a jump from a handler: the handler may also call
 * sigprocmask).  Resolved at the first signal function called, at MPI_Init at the latest: a
 * jump before any of them has no guard to lift and resolves here. */
#define AOT_SIG_JUMP(name)                                                              \
    AOT_SIG_EXPORT void name(struct __jmp_buf_tag env[1], int val)                      \
    {                                                                                   \
        aot_sig_resolve();                                                              \
        if (env[0].__mask_was_saved)                                                    \
            (void) aot_fault_sigmask(SIG_SETMASK, (const sigset_t *) &env[0].__saved_mask, \
                                     NULL, __builtin_return_address(0));                \
        if (!aot_sig_next.name)                                                         \
            abort();                                                                    \
        aot_sig_next.name(env, val);                                                    \
        __builtin_unreachable();                                                        \
    }

AOT_SIG_JUMP(siglongjmp)
AOT_SIG_JUMP(longjmp)
AOT_SIG_JUMP(_longjmp)
AOT_SIG_JUMP(__longjmp_chk)
