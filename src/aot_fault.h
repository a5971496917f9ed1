/*
 * aot_fault.h: autoopt's one entry for SIGSEGV and SIGTRAP (src/fault.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * THE CONTRACT
 *
 * One sigaction per signal belongs to autoopt: the entry.  Subsystems do not call sigaction
 * for these signals; they register a handler
 *
 *     int handler(int sig, siginfo_t *si, ucontext_t *uc);
 *
 * at a priority (a slot, below).  On a signal the entry calls the registered handlers in slot
 * order, lowest first.  A handler returns
 *   AOT_FAULT_HANDLED   it dealt with the signal: for a fault, the faulting instruction is to
 *                       run again (it may have changed *uc, e.g. set the trap flag); no later
 *                       handler and no previous handler sees the signal;
 *   AOT_FAULT_DECLINED  not its business, nothing changed: the next one is asked.
 * Declined by all, the signal goes to the previous handler: the one installed before the
 * entry (UCX's, or the program's own installed before MPI_Init, or the default action), or
 * the one the program set since (below), as the kernel would have delivered it: the same
 * signal number, siginfo and ucontext, with that handler's sa_mask blocked, SA_RESETHAND (the
 * previous handler becomes SIG_DFL) and SA_SIGINFO honoured; SIG_DFL and SIG_IGN act as the
 * kernel would (a fault cannot be ignored; see aot_fault_plan).
 *
 * A handler runs in signal context, on the alternate stack when the thread has one, possibly
 * nested in itself (SIGSEGV is not blocked while the entry runs: a fault inside a handler
 * reaches the entry again).  It may call system calls (aot_syscall), memcpy and memset, and
 * read data that never faults; it may not call malloc or free, stdio, or anything that takes
 * a lock the interrupted code could hold (paging's wait from the program's own code is the one
 * documented exception, see paging/handler.c).  The entry saves and restores errno around the
 * handlers.
 *
 * Registration and unregistration happen outside signal context (at start-up and shutdown).
 * A slot holds one handler; registering it again replaces it.
 *
 * THE PROGRAM'S DISPOSITIONS
 *
 * libautoopt exports sigaction and the signal family (signals.c).  For SIGSEGV and SIGTRAP
 * they call aot_fault_sigaction: while the entry of the signal is installed, what the program
 * (or a library: UCX reinstalling its handler) sets becomes the previous handler and never
 * reaches the kernel, and the old action it is answered is the previous handler as the kernel
 * would have answered it, never the entry.  Otherwise (before MPI_Init, under AUTOOPT_DISABLE,
 * after MPI_Finalize, other signals) the call goes to glibc's sigaction.  So nobody who goes
 * through glibc replaces the entry, and nothing is re-checked per operation.  The previous
 * handler may change at any moment, from any thread or from a signal handler: the entry reads
 * it without waiting for a writer and never half-written (fault.c, AOT_FAULT_NPREV), and every
 * change of a disposition of these signals, the program's and autoopt's own, is made under
 * one lock held with all signals blocked.  autoopt's own installation uses aot_fault_real.
 *
 * A fault that looks like an overflow of the stack of the thread that started autoopt is
 * never given to the handlers: it is reported on one line (libsigsegv decides; see fault.c and
 * docs/protection.md) and then goes to the previous handler like any declined fault.
 */
#ifndef AOT_FAULT_H_INCLUDED
#define AOT_FAULT_H_INCLUDED

#include <signal.h>
#include <ucontext.h>

#define AOT_FAULT_DECLINED 0
#define AOT_FAULT_HANDLED 1

typedef int (*aot_fault_fn)(int sig, siginfo_t *si, ucontext_t *uc);

/*
 * The slots, in the order the entry asks them.  Paging's guards come first: chains' handler
 * opens a page it probed at some time for any thread that faults on it, and such a page may be
 * guarded by paging now; asked first, chains would open paging's guard.  Paging declines every
 * page it does not guard (a probe never covers a guarded page), so chains still sees all of
 * its own faults.  (This is the order the two handlers had when each installed its own
 * sigaction: chains installed first, so paging's ran first and passed on to chains'.)
 */
enum aot_fault_slot {
    AOT_FAULT_SLOT_GUARDS,      /* paging/: guarded pages of pending requests, single steps */
    AOT_FAULT_SLOT_PROBES,      /* chains/: touch probes */
    AOT_FAULT_NSLOTS
};

/* Registers fn for sig (SIGSEGV or SIGTRAP) in slot, and installs the entry for sig if it is
 * not installed.  0, or -1 with a reason in err. */
int aot_fault_register(int sig, enum aot_fault_slot slot, aot_fault_fn fn, char *err,
                       size_t errlen);
/* Empties the slot.  The entry of a signal with no handler left is removed when it is still
 * the installed one (SIGSEGV stays while started: stack-overflow reports). */
void aot_fault_unregister(int sig, enum aot_fault_slot slot);

/* At MPI_Init, on the thread that called it: installs the SIGSEGV entry and the stack-overflow
 * report (libsigsegv), with an alternate stack for this thread unless it already has one of
 * at least AOT_FAULT_ALTSTACK_MIN (see aot_fault_sigaltstack). */
void aot_fault_start(void);
/* At MPI_Finalize: every handler is forgotten and the previous handlers are put back where the
 * entry is still the installed one; the program's alternate stack too (on that thread). */
void aot_fault_stop(void);

/* sigaction(sig, act, old) as the program sees it (above): for SIGSEGV and SIGTRAP while their
 * entry is installed, act becomes the previous handler and old gets the one before; otherwise
 * glibc's sigaction.  Any context, any thread; 0, or -1 with errno. */
int aot_fault_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* glibc's own sigaction (signals.c), past libautoopt's export. */
int aot_fault_real(int sig, const struct sigaction *act, struct sigaction *old);

/* sigaltstack(ss, old) as the program sees it.  The entry runs on the thread's alternate
 * stack, and paging's wait needs more than a small one holds (AOT_FAULT_ALTSTACK_MIN, fault.c).
 * On the thread that started autoopt, between aot_fault_start and _stop, a registration
 * smaller than that (or none) stays the program's in name only: autoopt's own stack is the
 * kernel's, the program is answered its own (with SS_ONSTACK while a handler runs on ours),
 * and at aot_fault_stop its own goes to the kernel.  A large enough one is the kernel's.
 * Elsewhere glibc's sigaltstack.  0, or -1 with errno (the kernel's checks). */
int aot_fault_sigaltstack(const stack_t *ss, stack_t *old);
/* glibc's own sigaltstack (signals.c). */
int aot_fault_real_altstack(const stack_t *ss, stack_t *old);

/* THE PROGRAM'S BLOCKED MASK
 *
 * A guarded page touched while SIGSEGV is blocked (or a single step with SIGTRAP blocked) is
 * not delivered: the kernel kills.  libautoopt exports sigprocmask, pthread_sigmask and the
 * older calls that change the mask (signals.c); for the program's own calls on the thread that
 * started autoopt (outside autoopt and MPI, and not from the MPI library's or its transports'
 * objects) they call aot_fault_sigmask: a call that leaves SIGSEGV or SIGTRAP blocked first
 * runs every registered unguard hook (outside signal context as far as autoopt knows; at depth
 * 0, so a hook may call MPI: paging completes its pending requests, chains lift their probes),
 * and from then until the program unblocks both aot_fault_blocked() is 1: paging and chains
 * guard and probe nothing new (the calls pass, counted).  Elsewhere glibc's function. */
typedef void (*aot_fault_unguard_fn)(void);
/* Registers the unguard hook of a slot (NULL: none).  Outside signal context. */
void aot_fault_register_unguard(enum aot_fault_slot slot, aot_fault_unguard_fn fn);
/* 1 while the program has SIGSEGV or SIGTRAP blocked on the thread that started autoopt, or
 * a handler of another signal whose sa_mask blocks either is installed (the kernel blocks them
 * while it runs); a previous handler the entry calls with them blocked gets the unguard hooks
 * run first. */
int aot_fault_blocked(void);
/* pthread_sigmask(how, set, old) as the program's call from caller (a return address): the
 * error number, or 0. */
int aot_fault_sigmask(int how, const sigset_t *set, sigset_t *old, const void *caller);
/* The program is about to wait with mask (sigsuspend, sigpause): a call whose mask blocks
 * SIGSEGV or SIGTRAP first runs every unguard hook, as aot_fault_sigmask does (a handler of a
 * signal delivered during the wait runs with that mask). */
void aot_fault_wait_mask(const sigset_t *mask);
/* glibc's own pthread_sigmask (signals.c), for autoopt's own masks: the error number, or 0. */
int aot_fault_real_mask(int how, const sigset_t *set, sigset_t *old);

/* One line "autoopt[rank]: msg" on stderr, written with one system call.  Async-signal-safe. */
void aot_fault_say(const char *msg);

/* ---------------------------------------------------------------- forwarding (pure) */

/* What the entry does with a signal that every handler declined, given the previous handler
 * old (as sigaction returned it), the signal and its si_code. */
enum aot_fault_action {
    AOT_FAULT_DROP,         /* an ignored signal that was sent: nothing */
    AOT_FAULT_REFAULT,      /* return: the instruction faults again, under the default action */
    AOT_FAULT_RAISE,        /* raise the signal again (under the default action) */
    AOT_FAULT_CALL_INFO,    /* call old->sa_sigaction(sig, si, uc) */
    AOT_FAULT_CALL_PLAIN    /* call old->sa_handler(sig) */
};
struct aot_fault_plan {
    enum aot_fault_action action;
    int reset;              /* first set the default action (SIG_DFL, SIG_IGN on a fault,
                             * SA_RESETHAND) */
    sigset_t block;         /* signals to block while old's handler runs (its sa_mask, and sig
                             * itself unless SA_NODEFER) */
};
struct aot_fault_plan aot_fault_plan(int sig, int si_code, const struct sigaction *old);

#endif /* AOT_FAULT_H_INCLUDED */
