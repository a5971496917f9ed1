/*
 * fault.c: the one SIGSEGV and SIGTRAP entry (contract: aot_fault.h; docs/protection.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * RULES FOR THIS FILE (signal context: aot_fault_entry and everything it calls):
 *   - it may call: system calls through aot_syscall, glibc's sigaction (aot_fault_real, never
 *     the program's view in signals.c), pthread_sigmask and raise (system-call wrappers in
 *     glibc), the registered handlers, the previous handler, libsigsegv's SIGSEGV handler
 *     (which reads /proc/self/maps with open and read into its own buffer) and siglongjmp
 *     back into the entry;
 *   - it may not call: malloc or free, stdio, anything that takes a lock, except this file's
 *     disposition lock (below), which no thread holds with signals unblocked;
 *   - it reads only static data of this file; a previous handler is copied before use, with
 *     aot_fault_prev_read (the program may replace it from another thread at any time).
 *
 * The previous handler is the program's.  While the entry is installed for a signal, the
 * program's sigaction and signal calls for it (signals.c) do not reach the kernel: what they
 * set becomes the previous handler, and what they are answered is the previous handler as the
 * kernel would have answered it (aot_fault_sigaction).  So the entry is never replaced by
 * anyone who goes through glibc, nothing needs re-checking per operation, and a program that
 * sets its own handler or SIG_IGN while a guard is up gets the guard's fault handled by
 * autoopt, and every other fault forwarded to its new handler.  Every change of a disposition
 * of the signals served here (the program's through signals.c, autoopt's own installation)
 * happens under one lock taken with every signal blocked (aot_fault_lock), so that reading the
 * kernel's disposition and replacing it is one step against other threads, and a signal
 * handler that calls sigaction can never find its own thread holding the lock.
 *
 * Stack overflow and libsigsegv.  libsigsegv's stackoverflow_install_handler() installs its
 * own SIGSEGV sigaction and its own alternate stack, and its handler, when it judges a fault
 * not to be an overflow, resets SIGSEGV to the default action instead of passing the fault on:
 * installed on top of UCX's handler it would swallow UCX's backtrace, and under our entry as
 * "the previous handler" it would do the same to every fault nobody claims.  So it is used as
 * a judge only:
 *   1. aot_fault_start installs it (on the thread that calls MPI_Init: libsigsegv remembers
 *      that thread's stack), reads its sigaction back, puts our entry in its place (the
 *      previous handler stays the one from before libsigsegv) and gives the thread back the
 *      alternate stack it had (UCX sets one of 144 KiB when libucs loads) if it has at least
 *      AOT_FAULT_ALTSTACK_MIN; libsigsegv's stack (ours) remains the alternate stack where the
 *      thread had none or a smaller one (aot_fault_sigaltstack).
 *   2. The entry looks first, before any subsystem, at whether a fault could be an overflow of
 *      that stack: a fault (si_code > 0) on that thread, below the top of its stack and within
 *      AOT_FAULT_NEAR_SP bytes of the stack pointer.  Paging and chains never protect a stack,
 *      so such a fault is never theirs, and their logic never runs for an overflow (it runs on
 *      the alternate stack in any case: SA_ONSTACK).
 *   3. Only then is libsigsegv's handler called, as a function, with the kernel's arguments.
 *      It compares the fault address with the stack's mapping (heuristic "AC") and, for an
 *      overflow, calls our stack-overflow handler, which writes the one line and siglongjmps
 *      back into the entry (libsigsegv's contract: that handler must not return).  The entry
 *      then hands the fault to the previous handler like any declined one: UCX prints its
 *      backtrace and the process dies of SIGSEGV, as it does without autoopt.
 *   4. When libsigsegv judges it no overflow, its handler returns after setting SIGSEGV to the
 *      default action; the entry installs itself again at once and goes on as usual.  (Another
 *      thread faulting in that moment would die of the default action: only after a fault near
 *      the stack pointer of the main thread, which is fatal anyway.)
 * stackoverflow_deinstall_handler() is never called: it would disable the thread's alternate
 * stack (UCX's) and set SIGSEGV to the default action.
 */
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <sigsegv.h>

#include "aot_fault.h"
#include "aot_log.h"
#include "aot_state.h"
#include "aot_sys.h"

/* The previous handler is kept in a ring of AOT_FAULT_NPREV copies: a change writes the next
 * copy and then publishes its number (gen), so that a reader in signal context never waits for
 * a writer (it may have interrupted one) and never sees a half-written copy: it copies the
 * published one and tries again only if AOT_FAULT_NPREV - 1 changes were published meanwhile,
 * when the copy it read may have been reused. */
#define AOT_FAULT_NPREV 4

/* The signals the entry serves, and their tables. */
struct aot_fault_sig {
    int sig;
    aot_fault_fn fn[AOT_FAULT_NSLOTS];          /* read in signal context: atomic loads */
    struct sigaction prev[AOT_FAULT_NPREV];    /* the handler before the entry: prev[gen % N] */
    unsigned gen;                              /* written under the lock, read atomically */
    int installed;                             /* the entry was set (and not yet taken off) */
    int pinned;                                /* stays without handlers (SIGSEGV while started) */
};
static struct aot_fault_sig aot_fault_sigs[] = { { .sig = SIGSEGV }, { .sig = SIGTRAP } };
#define AOT_FAULT_NSIGS ((int) (sizeof(aot_fault_sigs) / sizeof(aot_fault_sigs[0])))

static struct aot_fault_sig *aot_fault_table(int sig)
{
    for (int k = 0; k < AOT_FAULT_NSIGS; k++)
        if (aot_fault_sigs[k].sig == sig)
            return &aot_fault_sigs[k];
    return NULL;
}

/* The siginfo being handed to a previous handler by this thread, and the frame of the call
 * that hands it: a previous handler that passes the signal on to what it found installed
 * before it brings it back here if that was our entry (one that read the kernel's disposition
 * without glibc's sigaction), and then the entry runs below that frame on the same stack.
 * A previous handler may also never return (siglongjmp, longjmp): this is then left behind,
 * and the next signal's siginfo lies at the same place of the alternate stack, but the entry
 * that receives it runs at or above the frame recorded, so it is not taken for one passed back
 * (before issue 55 the siginfo alone decided, and a program's second fault got the default
 * action).  Nothing else of the entry outlives a handler that does not return. */
struct aot_fault_fwd {
    const siginfo_t *si;
    uintptr_t frame;
};
static __thread struct aot_fault_fwd aot_fault_forwarding __attribute__((tls_model("initial-exec")));

/* Set while libsigsegv runs on this thread: its sigaction and signal calls are autoopt's own
 * and go to the kernel (aot_fault_sigaction). */
static __thread int aot_fault_raw __attribute__((tls_model("initial-exec")));

/* ---------------------------------------------------------------- the disposition lock */

static int aot_fault_lock_word;

/* Every signal blocked on this thread, then the lock.  Whoever holds it touches only this
 * file's data and makes system calls, so no fault can interrupt it either. */
static void aot_fault_lock(sigset_t *saved)
{
    sigset_t all;

    sigfillset(&all);
    aot_fault_real_mask(SIG_BLOCK, &all, saved);
    while (__atomic_exchange_n(&aot_fault_lock_word, 1, __ATOMIC_ACQUIRE))
        aot_syscall(SYS_sched_yield);
}

static void aot_fault_unlock(const sigset_t *saved)
{
    __atomic_store_n(&aot_fault_lock_word, 0, __ATOMIC_RELEASE);
    aot_fault_real_mask(SIG_SETMASK, saved, NULL);
}

/* ---------------------------------------------------------------- the previous handler */

/* A copy of the previous handler; any context, any thread. */
static void aot_fault_prev_read(const struct aot_fault_sig *s, struct sigaction *out)
{
    for (;;) {
        unsigned g = __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE);
        memcpy(out, &s->prev[g % AOT_FAULT_NPREV], sizeof(*out));
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&s->gen, __ATOMIC_RELAXED) - g < AOT_FAULT_NPREV - 1)
            return;
    }
}

/* Makes sa the previous handler.  Under the lock. */
static void aot_fault_prev_write(struct aot_fault_sig *s, const struct sigaction *sa)
{
    unsigned g = s->gen + 1;

    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    memcpy(&s->prev[g % AOT_FAULT_NPREV], sa, sizeof(*sa));
    __atomic_store_n(&s->gen, g, __ATOMIC_RELEASE);
}

/* What the kernel adds to every disposition glibc sets (SA_RESTORER and its restorer), read
 * back from the entry the first time it is set. */
static int aot_fault_kernel_known;
static unsigned long aot_fault_kernel_flags;
static void (*aot_fault_kernel_restorer)(void);

/* The signals of a mask the kernel keeps (1..64). */
#define AOT_FAULT_KERNEL_NSIG 64

/* The flags Linux keeps (since 5.11 it clears the others, in what it stores and in what it
 * answers); SA_EXPOSE_TAGBITS is 0x800 where the headers lack it. */
#define AOT_FAULT_UAPI_FLAGS (SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK | SA_RESTART | \
                              SA_NODEFER | SA_RESETHAND | 0x800)

/* sa as the kernel would store it and glibc's sigaction answer it: its restorer added, unknown
 * flags cleared, SIGKILL and SIGSTOP out of the mask, no signal above 64 in it. */
static void aot_fault_as_kernel(struct sigaction *sa)
{
    const size_t kernel_mask = 8;   /* bytes of a mask the kernel keeps */

    sa->sa_flags &= AOT_FAULT_UAPI_FLAGS;
    if (aot_fault_kernel_known) {
        sa->sa_flags |= (int) aot_fault_kernel_flags;
        sa->sa_restorer = aot_fault_kernel_restorer;
    }
    memset((char *) &sa->sa_mask + kernel_mask, 0, sizeof(sa->sa_mask) - kernel_mask);
    sigdelset(&sa->sa_mask, SIGKILL);
    sigdelset(&sa->sa_mask, SIGSTOP);
}

/* ---------------------------------------------------------------- messages */

static size_t aot_fault_put(char *line, size_t cap, size_t n, const char *s)
{
    while (*s && n + 1 < cap)
        line[n++] = *s++;
    return n;
}

static size_t aot_fault_put_num(char *line, size_t cap, size_t n, uintptr_t v, unsigned base)
{
    char d[2 * sizeof(v) + 2];
    int k = 0;
    do {
        d[k++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v && k < (int) sizeof(d));
    if (base == 16)
        n = aot_fault_put(line, cap, n, "0x");
    while (k && n + 1 < cap)
        line[n++] = d[--k];
    return n;
}

static size_t aot_fault_prefix(char *line, size_t cap)
{
    size_t n = aot_fault_put(line, cap, 0, "autoopt[");
    n = aot_fault_put_num(line, cap, n, aot_world_rank < 0 ? 0u : (unsigned) aot_world_rank, 10);
    return aot_fault_put(line, cap, n, "]: ");
}

void aot_fault_say(const char *msg)
{
    char line[320];
    size_t n = aot_fault_put(line, sizeof(line), aot_fault_prefix(line, sizeof(line)), msg);
    aot_syscall(SYS_write, 2, line, n);
}

/* ---------------------------------------------------------------- forwarding */

struct aot_fault_plan aot_fault_plan(int sig, int si_code, const struct sigaction *old)
{
    struct aot_fault_plan p;
    /* Made by the kernel for an instruction (si_code > 0), not sent by kill, raise or
     * sigqueue.  A fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE) repeats when the instruction runs
     * again; a trap (SIGTRAP) is reported after its instruction and does not. */
    int made = si_code > 0;
    int repeats = made && sig != SIGTRAP;

    memset(&p, 0, sizeof(p));
    sigemptyset(&p.block);
    /* SIG_DFL and SIG_IGN are handler values, whatever SA_SIGINFO says. */
    if (old->sa_handler == SIG_IGN && !made) {
        p.action = AOT_FAULT_DROP;          /* ignored, and sent: dropped, as by the kernel */
        return p;
    }
    if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
        /* the kernel cannot ignore a fault either: it kills with the default action */
        p.reset = 1;
        p.action = repeats ? AOT_FAULT_REFAULT : AOT_FAULT_RAISE;
        return p;
    }
    p.reset = (old->sa_flags & SA_RESETHAND) != 0;
    p.action = (old->sa_flags & SA_SIGINFO) ? AOT_FAULT_CALL_INFO : AOT_FAULT_CALL_PLAIN;
    p.block = old->sa_mask;
    if (!(old->sa_flags & SA_NODEFER))
        sigaddset(&p.block, sig);
    return p;
}

static void aot_fault_set_default(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    aot_fault_real(sig, &dfl, NULL);
}

static int aot_fault_set(struct aot_fault_sig *s, struct sigaction *old);

static void aot_fault_unguard_for(const sigset_t *mask);

static void aot_fault_prev_change(struct aot_fault_sig *s, const struct sigaction *sa);

/* SA_RESETHAND of a previous handler about to be called: the default action becomes the
 * previous handler (the entry stays; asked, sigaction answers SIG_DFL, as it would natively).
 * Linux resets the handler only: the flags (SA_RESETHAND among them), the restorer and the
 * mask stay what the program set, and so they are answered (before issue 55 the flags were
 * answered as SA_RESTORER alone). */
static void aot_fault_reset_prev(int sig, const struct sigaction *old)
{
    struct aot_fault_sig *s = aot_fault_table(sig);
    struct sigaction dfl;
    sigset_t saved;

    dfl = *old;
    dfl.sa_handler = SIG_DFL;
    aot_fault_lock(&saved);
    if (s && s->installed) {
        aot_fault_prev_change(s, &dfl);
    } else {
        aot_fault_real(sig, &dfl, NULL);
    }
    aot_fault_unlock(&saved);
}

/* Gives the signal to old as the kernel would have.  Not inlined: its frame lies below the
 * entry's (aot_fault_forwarding). */
static __attribute__((noinline)) void aot_fault_forward(const struct sigaction *old, int sig,
                                                        siginfo_t *si, void *ctx)
{
    struct aot_fault_plan p = aot_fault_plan(sig, si->si_code, old);
    const ucontext_t *uc = ctx;
    sigset_t saved, mask;
    struct aot_fault_fwd outer = aot_fault_forwarding;

    /* a handler with SA_RESETHAND: the default action from now on, as the previous handler;
     * SIG_DFL or SIG_IGN for a fault or a trap: the process dies of the default action */
    if (p.reset && (p.action == AOT_FAULT_CALL_INFO || p.action == AOT_FAULT_CALL_PLAIN))
        aot_fault_reset_prev(sig, old);
    else if (p.reset)
        aot_fault_set_default(sig);
    switch (p.action) {
    case AOT_FAULT_DROP:
    case AOT_FAULT_REFAULT:
        return;
    case AOT_FAULT_RAISE:
        raise(sig);
        return;
    case AOT_FAULT_CALL_INFO:
    case AOT_FAULT_CALL_PLAIN:
        break;
    }
    /* The mask the kernel would have set: the interrupted code's, the handler's sa_mask and
     * the signal unless SA_NODEFER; not added to the entry's own (SIGTRAP is blocked while its
     * entry runs), since a handler that leaves with longjmp keeps the mask it ran with. */
    sigemptyset(&mask);
    for (int k = 1; k <= AOT_FAULT_KERNEL_NSIG; k++)
        if (sigismember(&uc->uc_sigmask, k) == 1 || sigismember(&p.block, k) == 1)
            sigaddset(&mask, k);
    /* a handler of a sent signal (raise, kill, sigqueue) that runs with SIGSEGV or SIGTRAP
     * blocked (the signal itself, without SA_NODEFER, or its sa_mask) would be killed by a
     * guard it touches: none is left.  Not for a real fault: the previous handler is mostly a
     * crash report (UCX's), and waiting there for requests delayed the death of fault.null and
     * fault.overflow past their 20 s (docs/limits.md, second review). */
    if (si->si_code <= 0)
        aot_fault_unguard_for(&mask);
    aot_fault_real_mask(SIG_SETMASK, &mask, &saved);
    aot_fault_forwarding.si = si;
    aot_fault_forwarding.frame = (uintptr_t) __builtin_frame_address(0);
    if (p.action == AOT_FAULT_CALL_INFO)
        old->sa_sigaction(sig, si, ctx);
    else
        old->sa_handler(sig);
    aot_fault_forwarding = outer;
    aot_fault_real_mask(SIG_SETMASK, &saved, NULL);
}

/* ---------------------------------------------------------------- stack overflow */

/* A fault this close to the stack pointer (either side) may be an overflow: a call or push
 * writes just below it, a function's first access to a new frame lies above it. */
#define AOT_FAULT_NEAR_SP (64 * 1024)
/* The alternate stack made when the thread has none: paging's handler waits for requests on
 * it (MPI's progress engine, unpacking), so it is larger than libsigsegv's SIGSTKSZ. */
#define AOT_FAULT_ALTSTACK (256 * 1024)
/* The smallest alternate stack of the program's the entry runs on (UCX's has 144 KiB).  A wait
 * in paging's handler took between 8 and 16 KiB of it in fault.late_handler (MPICH over UCX,
 * shared memory: an 8 KiB stack overflowed); four times that, for deeper progress paths. */
#define AOT_FAULT_ALTSTACK_MIN (64 * 1024)

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)    /* <linux/signal.h>: disarmed while a handler runs on it */
#endif

static __thread int aot_fault_main __attribute__((tls_model("initial-exec")));
static uintptr_t aot_fault_stack_hi;

/* The program's blocked mask (aot_fault_sigmask, at the end of this file). */
static aot_fault_unguard_fn aot_fault_unguards[AOT_FAULT_NSLOTS];
static int aot_fault_blocked_now;        /* the program has SIGSEGV or SIGTRAP blocked */
static uint64_t aot_fault_hmask;         /* signals whose handler's sa_mask blocks them (bit sig-1) */
static int aot_fault_mask_on;            /* between aot_fault_mask_start and aot_fault_stop */
static void aot_fault_mask_start(void);

/* The alternate stack of the thread that started autoopt, as the program knows it, while
 * ours replaces it (aot_fault_sigaltstack).  Read and written by that thread only. */
static int aot_fault_alt_active;               /* between aot_fault_start and _stop */
static int aot_fault_alt_virtual;              /* ours is registered, the program's is alt_prog */
static stack_t aot_fault_alt_prog;

#if HAVE_STACK_OVERFLOW_RECOVERY
static struct sigaction aot_fault_judge;      /* libsigsegv's SIGSEGV handler */
static int aot_fault_judge_on;
static sigjmp_buf aot_fault_overflow_jb;
static volatile int aot_fault_in_judge;
static volatile uintptr_t aot_fault_ov_addr, aot_fault_ov_sp;

/* libsigsegv's stack-overflow handler: the line, then back into the entry (it must not
 * return to libsigsegv). */
static void aot_fault_overflow_report(int emergency, stackoverflow_context_t scp)
{
    char line[320];
    size_t n = aot_fault_prefix(line, sizeof(line));

    (void) emergency;
    (void) scp;
    n = aot_fault_put(line, sizeof(line), n, "stack overflow: fault at ");
    n = aot_fault_put_num(line, sizeof(line), n, aot_fault_ov_addr, 16);
    n = aot_fault_put(line, sizeof(line), n, ", stack pointer ");
    n = aot_fault_put_num(line, sizeof(line), n, aot_fault_ov_sp, 16);
    n = aot_fault_put(line, sizeof(line), n, " (the stack reached its limit, see ulimit -s); "
                      "passed on as the segmentation fault it is\n");
    aot_syscall(SYS_write, 2, line, n);
    siglongjmp(aot_fault_overflow_jb, 1);
}

/* 1: libsigsegv judged the fault an overflow (reported).  Kept small: nothing lives across
 * sigsetjmp but static data. */
static int aot_fault_judge_overflow(int sig, siginfo_t *si, void *ctx)
{
    if (sigsetjmp(aot_fault_overflow_jb, 0) != 0) {
        aot_fault_in_judge = 0;
        aot_fault_raw = 0;
        return 1;
    }
    aot_fault_raw = 1;      /* its reset to the default action goes to the kernel */
    aot_fault_judge.sa_sigaction(sig, si, ctx);
    aot_fault_raw = 0;
    return 0;
}
#endif

/* A possible overflow of the main thread's stack: judged and reported.  1 when reported. */
static int aot_fault_overflow(int sig, siginfo_t *si, ucontext_t *uc)
{
#if HAVE_STACK_OVERFLOW_RECOVERY
    uintptr_t addr = (uintptr_t) si->si_addr, sp = (uintptr_t) uc->uc_mcontext.gregs[REG_RSP];

    if (!aot_fault_judge_on || !aot_fault_main || si->si_code <= 0 || aot_fault_in_judge ||
        addr >= aot_fault_stack_hi || addr + AOT_FAULT_NEAR_SP < sp || addr > sp + AOT_FAULT_NEAR_SP)
        return 0;
    aot_fault_in_judge = 1;
    aot_fault_ov_addr = addr;
    aot_fault_ov_sp = sp;
    if (aot_fault_judge_overflow(sig, si, uc))
        return 1;
    /* not an overflow: libsigsegv set the default action; the entry goes back at once */
    {
        sigset_t saved;
        aot_fault_lock(&saved);
        aot_fault_set(aot_fault_table(sig), NULL);
        aot_fault_unlock(&saved);
    }
    aot_fault_in_judge = 0;
#else
    (void) sig;
    (void) si;
    (void) uc;
#endif
    return 0;
}

/* ---------------------------------------------------------------- the entry */

static void aot_fault_entry(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    struct aot_fault_sig *s = aot_fault_table(sig);
    struct sigaction old;
    int saved_errno = errno;

    if (si == aot_fault_forwarding.si &&
        (uintptr_t) __builtin_frame_address(0) < aot_fault_forwarding.frame) {
        /* the previous handler passed it back to us: nobody else is left */
        memset(&old, 0, sizeof(old));
        old.sa_handler = SIG_DFL;
    } else {
        if (!(sig == SIGSEGV && aot_fault_overflow(sig, si, uc))) {
            for (int k = 0; k < AOT_FAULT_NSLOTS; k++) {
                aot_fault_fn fn = __atomic_load_n(&s->fn[k], __ATOMIC_ACQUIRE);
                if (fn && fn(sig, si, uc) == AOT_FAULT_HANDLED) {
                    errno = saved_errno;
                    return;
                }
            }
        }
        aot_fault_prev_read(s, &old);
    }
    errno = saved_errno;
    aot_fault_forward(&old, sig, si, ctx);
}

/* ---------------------------------------------------------------- installation */

/* Sets the entry for s->sig; the disposition it replaces goes to *old (NULL: not kept).
 * Under the lock. */
static int aot_fault_set(struct aot_fault_sig *s, struct sigaction *old)
{
    struct sigaction sa, back;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = aot_fault_entry;
    /* SA_SIGINFO: the fault address, si_code and the ucontext (registers, trap flag).
     * SA_ONSTACK: on the thread's alternate stack, so that a stack overflow can be reported
     *   at all and no handler runs on an overflowed stack.
     * SA_NODEFER (SIGSEGV): a fault inside a handler (MPI's data sharing a guarded page while
     *   paging waits) must reach the entry again instead of killing the process.  SIGTRAP
     *   stays blocked while its entry runs, as paging's single-step handler always had it.
     * SA_RESTART: as the previous handler has it, so that a sent signal interrupts (or not)
     *   the system calls it would have interrupted.
     * sa_mask empty: the program's other signals are not held back during a long wait; the
     *   previous handler's own mask is blocked when it is called (aot_fault_forward). */
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | (s->sig == SIGSEGV ? SA_NODEFER : 0) |
                  (s->prev[s->gen % AOT_FAULT_NPREV].sa_flags & SA_RESTART);
    sigemptyset(&sa.sa_mask);
    if (aot_fault_real(s->sig, &sa, old) != 0)
        return -1;
    s->installed = 1;
    if (!aot_fault_kernel_known && aot_fault_real(s->sig, NULL, &back) == 0) {
        aot_fault_kernel_flags = (unsigned long) back.sa_flags & ~(unsigned long) sa.sa_flags;
        aot_fault_kernel_restorer = back.sa_restorer;
        aot_fault_kernel_known = 1;
    }
    return 0;
}

/* Makes sa (as the kernel has it) the previous handler; the entry is set again when its
 * SA_RESTART no longer matches.  Under the lock, with the entry installed. */
static void aot_fault_prev_change(struct aot_fault_sig *s, const struct sigaction *sa)
{
    int was = s->prev[s->gen % AOT_FAULT_NPREV].sa_flags & SA_RESTART;

    aot_fault_prev_write(s, sa);
    if ((sa->sa_flags & SA_RESTART) != was)
        aot_fault_set(s, NULL);
}

static int aot_fault_is_entry(const struct sigaction *sa)
{
    return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == aot_fault_entry;
}

/* Installs the entry unless it is the installed handler; what it replaces becomes prev.
 * Under the lock. */
static int aot_fault_install(struct aot_fault_sig *s)
{
    struct sigaction cur;

    if (aot_fault_real(s->sig, NULL, &cur) != 0)
        return -1;
    if (aot_fault_is_entry(&cur)) {
        s->installed = 1;
        return 0;
    }
    aot_fault_prev_write(s, &cur);
    return aot_fault_set(s, NULL);
}

/* Under the lock. */
static void aot_fault_uninstall(struct aot_fault_sig *s)
{
    struct sigaction cur;

    if (!s->installed)
        return;
    /* only if the entry is on top (someone who set a disposition without glibc's sigaction
     * may pass signals on to it, and with no handlers it passes everything on to prev) */
    if (aot_fault_real(s->sig, NULL, &cur) == 0 && aot_fault_is_entry(&cur))
        aot_fault_real(s->sig, &s->prev[s->gen % AOT_FAULT_NPREV], NULL);
    s->installed = 0;
}

int aot_fault_register(int sig, enum aot_fault_slot slot, aot_fault_fn fn, char *err,
                       size_t errlen)
{
    struct aot_fault_sig *s = aot_fault_table(sig);
    sigset_t saved;
    int rc;

    if (!s || slot >= AOT_FAULT_NSLOTS) {
        snprintf(err, errlen, "fault entry: signal %d, slot %d: not served", sig, (int) slot);
        return -1;
    }
    __atomic_store_n(&s->fn[slot], fn, __ATOMIC_RELEASE);
    aot_fault_lock(&saved);
    rc = aot_fault_install(s);
    aot_fault_unlock(&saved);
    if (rc != 0) {
        __atomic_store_n(&s->fn[slot], NULL, __ATOMIC_RELEASE);
        snprintf(err, errlen, "fault entry: sigaction(%s): %s", strsignal(sig), strerror(errno));
        return -1;
    }
    return 0;
}

static int aot_fault_idle(const struct aot_fault_sig *s)
{
    for (int k = 0; k < AOT_FAULT_NSLOTS; k++)
        if (s->fn[k])
            return 0;
    return !s->pinned;
}

void aot_fault_unregister(int sig, enum aot_fault_slot slot)
{
    struct aot_fault_sig *s = aot_fault_table(sig);
    sigset_t saved;

    if (!s || slot >= AOT_FAULT_NSLOTS)
        return;
    __atomic_store_n(&s->fn[slot], NULL, __ATOMIC_RELEASE);
    aot_fault_lock(&saved);
    if (aot_fault_idle(s))
        aot_fault_uninstall(s);
    aot_fault_unlock(&saved);
}

static void aot_fault_note_handler(int sig);

int aot_fault_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct aot_fault_sig *s = aot_fault_table(sig);
    struct sigaction want, had;
    sigset_t saved;
    int rc = 0;

    if (aot_fault_raw)
        return aot_fault_real(sig, act, old);
    if (!s) {
        rc = aot_fault_real(sig, act, old);
        if (rc == 0 && act)
            aot_fault_note_handler(sig);
        return rc;
    }
    if (act)
        want = *act;            /* read before the lock: it may lie on a guarded page */
    aot_fault_lock(&saved);
    if (!s->installed) {
        rc = aot_fault_real(sig, act ? &want : NULL, old ? &had : NULL);
    } else {
        had = s->prev[s->gen % AOT_FAULT_NPREV];
        if (act) {
            aot_fault_as_kernel(&want);
            aot_fault_prev_change(s, &want);
        }
    }
    aot_fault_unlock(&saved);
    if (rc == 0 && old)
        *old = had;             /* after the lock, for the same reason */
    return rc;
}

/* The top of this thread's stack (its highest address), 0 when unknown. */
static uintptr_t aot_fault_stack_top(void)
{
    pthread_attr_t a;
    void *addr = NULL;
    size_t size = 0;

    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return 0;
    if (pthread_attr_getstack(&a, &addr, &size) != 0)
        size = 0, addr = NULL;
    pthread_attr_destroy(&a);
    return (uintptr_t) addr + size;
}

/* The alternate stack made for the thread that starts autoopt when it has none: mapped once,
 * with a guard page below, and never unmapped (a signal may run on it up to exit). */
static void *aot_fault_altstack(void)
{
    static void *stack;
    size_t page = (size_t) sysconf(_SC_PAGESIZE);
    char *m;

    if (stack)
        return stack;
    m = mmap(NULL, AOT_FAULT_ALTSTACK + page, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    mprotect(m, page, PROT_NONE);
    stack = m + page;
    return stack;
}

#if HAVE_STACK_OVERFLOW_RECOVERY
/* libsigsegv as the judge of overflows (see the top of this file).  stackoverflow_install_
 * handler sets SIGSEGV to libsigsegv's handler and the alternate stack to the one given: the
 * handler is read back as the judge and the entry set again in its place. */
static void aot_fault_judge_start(struct aot_fault_sig *s, void *stack)
{
    struct sigaction cur;
    int rc;

    if (aot_fault_judge_on || !stack)
        return;
    if (!s->installed) {
        if (aot_fault_real(SIGSEGV, NULL, &cur) != 0)
            return;
        aot_fault_prev_write(s, &cur);
    }
    aot_fault_raw = 1;
    rc = stackoverflow_install_handler(aot_fault_overflow_report, stack, AOT_FAULT_ALTSTACK);
    aot_fault_raw = 0;
    if (rc != 0) {
        AOT_LOG(1, "stack overflows are not reported: libsigsegv cannot catch them here");
        return;
    }
    if (aot_fault_set(s, &aot_fault_judge) == 0)
        aot_fault_judge_on = 1;
    else
        aot_fault_real(SIGSEGV, &s->prev[s->gen % AOT_FAULT_NPREV], NULL);
}
#endif

/* Registers our alternate stack on this thread: 0, or -1. */
static int aot_fault_alt_ours(void)
{
    stack_t ours;

    ours.ss_sp = aot_fault_altstack();
    ours.ss_size = AOT_FAULT_ALTSTACK;
    ours.ss_flags = 0;
    return ours.ss_sp ? aot_fault_real_altstack(&ours, NULL) : -1;
}

/* A registration as the kernel keeps it: a disabled one has no stack. */
static stack_t aot_fault_alt_kept(stack_t ss)
{
    if (ss.ss_flags & SS_DISABLE) {
        ss.ss_sp = NULL;
        ss.ss_size = 0;
        ss.ss_flags = SS_DISABLE;
    }
    return ss;
}

void aot_fault_start(void)
{
    struct aot_fault_sig *s = aot_fault_table(SIGSEGV);
    stack_t had;
    sigset_t saved;
    int rc;

    aot_fault_main = 1;
    aot_fault_stack_hi = aot_fault_stack_top();
    s->pinned = 1;
    if (aot_fault_real_altstack(NULL, &had) != 0)
        had.ss_flags = SS_DISABLE;
    had = aot_fault_alt_kept(had);
    aot_fault_lock(&saved);
#if HAVE_STACK_OVERFLOW_RECOVERY
    aot_fault_judge_start(s, aot_fault_altstack());
#endif
    rc = aot_fault_install(s);
    aot_fault_unlock(&saved);
    /* The thread's own alternate stack (UCX's) stays if it is large enough for paging's wait;
     * otherwise, or when it has none, ours is registered (libsigsegv may have done so) and the
     * program keeps seeing its own (aot_fault_sigaltstack). */
    aot_fault_alt_virtual = 0;
    if (!(had.ss_flags & SS_DISABLE) && had.ss_size >= AOT_FAULT_ALTSTACK_MIN) {
        aot_fault_real_altstack(&had, NULL);
    } else if (aot_fault_alt_ours() == 0) {
        aot_fault_alt_prog = had;
        aot_fault_alt_virtual = 1;
    } else if (!(had.ss_flags & SS_DISABLE)) {
        aot_fault_real_altstack(&had, NULL);
    }
    aot_fault_alt_active = 1;
    if (rc != 0)
        aot_log(0, "fault entry: sigaction(SIGSEGV): %s", strerror(errno));
    aot_fault_mask_start();
}

int aot_fault_sigaltstack(const stack_t *ss, stack_t *old)
{
    stack_t want, now, was;
    sigset_t all, saved;
    int rc;

    if (!aot_fault_main || !aot_fault_alt_active || aot_fault_raw)
        return aot_fault_real_altstack(ss, old);
    if (ss)
        want = *ss;             /* read first: it may lie on a guarded page */
    if (aot_fault_real_altstack(NULL, &now) != 0)
        return -1;
    was = now;
    if (aot_fault_alt_virtual) {
        /* executing on ours is executing on the program's, as far as it knows */
        was = aot_fault_alt_prog;
        if (!(was.ss_flags & SS_DISABLE))
            was.ss_flags = (int) ((unsigned) was.ss_flags & SS_AUTODISARM) |
                           (now.ss_flags & SS_ONSTACK);
    }
    if (ss) {
        if (now.ss_flags & SS_ONSTACK) {
            errno = EPERM;      /* the kernel's answer while on the alternate stack */
            return -1;
        }
        if (!(want.ss_flags & SS_DISABLE) && want.ss_size >= AOT_FAULT_ALTSTACK_MIN) {
            if (aot_fault_real_altstack(&want, NULL) != 0)
                return -1;
            aot_fault_alt_virtual = 0;
        } else {
            /* the kernel judges it (EINVAL, ENOMEM) and ours goes back at once, with every
             * signal blocked meanwhile: none may run on the small stack */
            sigfillset(&all);
            aot_fault_real_mask(SIG_BLOCK, &all, &saved);
            rc = aot_fault_real_altstack(&want, NULL);
            if (rc == 0 && aot_fault_alt_ours() != 0) {
                aot_fault_alt_virtual = 0;      /* ours cannot be set: the program's stays */
            } else if (rc == 0) {
                aot_fault_alt_prog = aot_fault_alt_kept(want);
                aot_fault_alt_virtual = 1;
            }
            aot_fault_real_mask(SIG_SETMASK, &saved, NULL);
            if (rc != 0)
                return -1;
        }
    }
    if (old)
        *old = was;
    return 0;
}

void aot_fault_stop(void)
{
    sigset_t saved;

    __atomic_store_n(&aot_fault_mask_on, 0, __ATOMIC_RELAXED);
    for (int k = 0; k < AOT_FAULT_NSLOTS; k++)
        __atomic_store_n(&aot_fault_unguards[k], NULL, __ATOMIC_RELEASE);

    aot_fault_lock(&saved);
    for (int k = 0; k < AOT_FAULT_NSIGS; k++) {
        struct aot_fault_sig *s = &aot_fault_sigs[k];
        for (int j = 0; j < AOT_FAULT_NSLOTS; j++)
            __atomic_store_n(&s->fn[j], NULL, __ATOMIC_RELEASE);
        s->pinned = 0;
        aot_fault_uninstall(s);
    }
#if HAVE_STACK_OVERFLOW_RECOVERY
    aot_fault_judge_on = 0;
#endif
    aot_fault_unlock(&saved);
    /* the program's own alternate stack (or none) back on the thread that started autoopt */
    if (aot_fault_main && aot_fault_alt_active) {
        if (aot_fault_alt_virtual)
            aot_fault_real_altstack(&aot_fault_alt_prog, NULL);
        aot_fault_alt_virtual = 0;
        aot_fault_alt_active = 0;
    }
}

/* ---------------------------------------------------------------- the program's blocked mask */

/*
 * A guard (paging) or a probe (chains) is a no-access or read-only page the program may touch:
 * the fault is autoopt's business, and is handled.  But a fault with SIGSEGV blocked (or the
 * single step of a false-sharing access with SIGTRAP blocked) is not delivered: the kernel
 * resets the disposition to the default and kills the process.  So while the program's thread
 * that started autoopt blocks either signal it holds no guard and no probe: its sigprocmask,
 * pthread_sigmask and the older calls that block (signals.c) come here, and a call that leaves
 * either blocked first has every registered "unguard" hook run (paging completes its pending
 * requests, chains lift their probes), and until the program unblocks them aot_fault_blocked()
 * tells paging and chains not to guard or probe (their calls then pass, counted).
 *
 * Only the program's own calls count: on that thread, outside autoopt and MPI (aot_tls.depth
 * 0), and not from the objects of the MPI library and its transports (libmpi, UCX, libfabric,
 * found at aot_fault_start) or of libautoopt: MPICH and UCX block signals around their own
 * work (thread creation) and restore them, and waiting for requests there would re-enter MPI.
 * Calls of other threads concern their own masks: at MPI_THREAD_SINGLE with no thread of the
 * program's (the only case paging converts) nothing else touches guarded memory.
 */

#define AOT_FAULT_MAX_INTERNAL 32
static struct { uintptr_t lo, hi; } aot_fault_internal[AOT_FAULT_MAX_INTERNAL];
static int aot_fault_ninternal;

/* Object names (basename prefixes) of the MPI library and its transports. */
static const char *const aot_fault_mpi_objects[] = { "libmpi", "libuc", "libfabric", "libpmi",
                                                     "libpsm", "libhcoll", "libxpmem" };

/* dl_iterate_phdr callback: the executable segments of an internal object. */
static int aot_fault_note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    const char *name = info->dlpi_name, *base = strrchr(name, '/');
    uintptr_t self = (uintptr_t) arg;
    int internal = 0;

    (void) size;
    base = base ? base + 1 : name;
    for (size_t k = 0; k < sizeof(aot_fault_mpi_objects) / sizeof(aot_fault_mpi_objects[0]); k++)
        if (strncmp(base, aot_fault_mpi_objects[k], strlen(aot_fault_mpi_objects[k])) == 0)
            internal = 1;
    for (int k = 0; k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && self >= lo && self < hi)
            internal = 1;
    }
    for (int k = 0; internal && k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
            aot_fault_ninternal >= AOT_FAULT_MAX_INTERNAL)
            continue;
        aot_fault_internal[aot_fault_ninternal].lo = info->dlpi_addr + ph->p_vaddr;
        aot_fault_internal[aot_fault_ninternal].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        aot_fault_ninternal++;
    }
    return 0;
}

static int aot_fault_is_internal(const void *caller)
{
    uintptr_t a = (uintptr_t) caller;
    for (int k = 0; k < aot_fault_ninternal; k++)
        if (a >= aot_fault_internal[k].lo && a < aot_fault_internal[k].hi)
            return 1;
    return 0;
}

static int aot_fault_blocks_ours(const sigset_t *set)
{
    return sigismember(set, SIGSEGV) == 1 || sigismember(set, SIGTRAP) == 1;
}

void aot_fault_register_unguard(enum aot_fault_slot slot, aot_fault_unguard_fn fn)
{
    if (slot < AOT_FAULT_NSLOTS)
        __atomic_store_n(&aot_fault_unguards[slot], fn, __ATOMIC_RELEASE);
}

int aot_fault_blocked(void)
{
    return __atomic_load_n(&aot_fault_blocked_now, __ATOMIC_RELAXED) ||
           __atomic_load_n(&aot_fault_hmask, __ATOMIC_RELAXED) != 0;
}

/* Every unguard hook, when the program's thread that started autoopt, outside autoopt and MPI,
 * is about to run with mask, which blocks SIGSEGV or SIGTRAP: a touch of a guard would then
 * kill.  From the entry (a previous handler about to be called with that mask) and from the
 * program's calls (aot_fault_sigmask, aot_fault_wait_mask, aot_fault_note_handler). */
static void aot_fault_unguard_for(const sigset_t *mask)
{
    if (!aot_fault_main || !__atomic_load_n(&aot_fault_mask_on, __ATOMIC_RELAXED) ||
        aot_tls.depth != 0 || !aot_fault_blocks_ours(mask))
        return;
    for (int k = 0; k < AOT_FAULT_NSLOTS; k++) {
        aot_fault_unguard_fn fn = __atomic_load_n(&aot_fault_unguards[k], __ATOMIC_ACQUIRE);
        if (fn)
            fn();
    }
}

/* A handler of another signal than SIGSEGV and SIGTRAP whose sa_mask blocks either: the
 * kernel blocks them while it runs, when no interposer sees it, so while such a handler is
 * installed nothing is guarded (aot_fault_blocked; before issue 55's second review a handler
 * installed with sigfillset(&sa_mask) that read a received buffer was killed). */
static void aot_fault_note_handler(int sig)
{
    struct sigaction now;
    uint64_t bit, was;
    int blocks;

    if (sig < 1 || sig > AOT_FAULT_KERNEL_NSIG || aot_fault_real(sig, NULL, &now) != 0)
        return;
    bit = (uint64_t) 1 << (sig - 1);
    blocks = now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN &&
             aot_fault_blocks_ours(&now.sa_mask);
    if (!blocks) {
        __atomic_and_fetch(&aot_fault_hmask, ~bit, __ATOMIC_RELAXED);
        return;
    }
    was = __atomic_fetch_or(&aot_fault_hmask, bit, __ATOMIC_RELAXED);
    if (!was)
        aot_fault_unguard_for(&now.sa_mask);
}

void aot_fault_wait_mask(const sigset_t *mask)
{
    sigset_t want = *mask;      /* it may lie on a guarded page */
    aot_fault_unguard_for(&want);
}

/* At MPI_Init, on the thread that called it, after the MPI library loaded its transports. */
static void aot_fault_mask_start(void)
{
    sigset_t now;

    aot_fault_ninternal = 0;
    dl_iterate_phdr(aot_fault_note_object, (void *) (uintptr_t) aot_fault_mask_start);
    /* a mask inherited or set before MPI_Init (a process started with SIGSEGV blocked) */
    if (aot_fault_real_mask(SIG_BLOCK, NULL, &now) == 0)
        aot_fault_blocked_now = aot_fault_blocks_ours(&now);
    /* and handlers installed before MPI_Init whose sa_mask blocks SIGSEGV or SIGTRAP */
    aot_fault_hmask = 0;
    for (int k = 1; k <= AOT_FAULT_KERNEL_NSIG; k++)
        if (!aot_fault_table(k) && k != SIGKILL && k != SIGSTOP)
            aot_fault_note_handler(k);
    aot_fault_mask_on = 1;
}

int aot_fault_sigmask(int how, const sigset_t *set, sigset_t *old, const void *caller)
{
    sigset_t want, had, now;
    int rc;

    if (!aot_fault_main || !__atomic_load_n(&aot_fault_mask_on, __ATOMIC_RELAXED) ||
        aot_tls.depth != 0 || aot_fault_is_internal(caller))
        return aot_fault_real_mask(how, set, old);
    if (set)
        want = *set;            /* read first: it may lie on a guarded page */
    if (set && (how == SIG_BLOCK || how == SIG_SETMASK) && aot_fault_blocks_ours(&want)) {
        /* nothing is guarded from here on, then nothing is guarded now */
        __atomic_store_n(&aot_fault_blocked_now, 1, __ATOMIC_RELAXED);
        aot_fault_unguard_for(&want);
    }
    /* the kernel writes the old mask into memory of ours, not into a guarded page */
    rc = aot_fault_real_mask(how, set ? &want : NULL, &had);
    if (rc != 0) {
        if (aot_fault_real_mask(SIG_BLOCK, NULL, &now) == 0)
            __atomic_store_n(&aot_fault_blocked_now, aot_fault_blocks_ours(&now), __ATOMIC_RELAXED);
        return rc;
    }
    if (set) {
        now = had;
        for (int k = 1; k <= AOT_FAULT_KERNEL_NSIG; k++) {
            if (sigismember(&want, k) != 1)
                continue;
            if (how == SIG_BLOCK)
                sigaddset(&now, k);
            else if (how == SIG_UNBLOCK)
                sigdelset(&now, k);
        }
        __atomic_store_n(&aot_fault_blocked_now,
                         aot_fault_blocks_ours(how == SIG_SETMASK ? &want : &now),
                         __ATOMIC_RELAXED);
    }
    if (old)
        *old = had;
    return 0;
}
