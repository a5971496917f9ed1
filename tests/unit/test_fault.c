/*
 * test_fault: src/fault.c without MPI.  The forwarding plan for every kind of previous
 * handler, fault and sent signal (pure); then the entry on real faults: the slots are asked in
 * order, a handled fault goes no further, a fault every slot declines reaches the previous
 * handler with the same siginfo and ucontext and with its mask blocked, SA_RESETHAND resets it,
 * an ignored sent signal is dropped, an ignored or default real fault kills with SIGSEGV.
 * The program's dispositions (src/signals.c, linked in here as in libautoopt): while the entry
 * is installed the program's sigaction sets the previous handler and answers the one before,
 * the kernel keeps the entry, aot_fault_stop gives the kernel the program's last one, and the
 * previous handler may change from another thread while faults are being forwarded.
 * Each test runs in its own process (CK_FORK).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "aot_fault.h"

/* ---------------------------------------------------------------- the plan (pure) */

static void handler_plain(int sig)
{
    (void) sig;
}

static void handler_info(int sig, siginfo_t *si, void *ctx)
{
    (void) sig;
    (void) si;
    (void) ctx;
}

static struct sigaction old_with(void (*plain)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = plain;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    return sa;
}

/* One row: the previous disposition (SIG_DFL or SIG_IGN, with or without SA_SIGINFO), the
 * signal and si_code, and what the entry must do. */
static const struct {
    int ignored, flags, sig, code;
    enum aot_fault_action action;
    int reset;
    const char *why;
} plan_rows[] = {
    { 0, 0, SIGSEGV, SEGV_ACCERR, AOT_FAULT_REFAULT, 1, "a fault, default: reset, fault again" },
    { 0, SA_SIGINFO, SIGSEGV, SEGV_MAPERR, AOT_FAULT_REFAULT, 1,
      "SA_SIGINFO with SIG_DFL is still the default action, not a function to call" },
    { 0, 0, SIGSEGV, SI_USER, AOT_FAULT_RAISE, 1, "sent, default: raised again" },
    { 1, 0, SIGSEGV, SEGV_MAPERR, AOT_FAULT_REFAULT, 1,
      "a fault cannot be ignored: the default action, as the kernel does" },
    { 1, 0, SIGSEGV, SI_TKILL, AOT_FAULT_DROP, 0, "sent and ignored: dropped, disposition kept" },
    { 0, 0, SIGTRAP, TRAP_TRACE, AOT_FAULT_RAISE, 1, "a trap does not repeat: raised" },
    { 1, 0, SIGTRAP, TRAP_BRKPT, AOT_FAULT_RAISE, 1, "an ignored trap still kills" },
};

START_TEST(test_plan_default_and_ignored)
{
    for (size_t k = 0; k < sizeof(plan_rows) / sizeof(plan_rows[0]); k++) {
        struct sigaction old = old_with(plan_rows[k].ignored ? SIG_IGN : SIG_DFL,
                                        plan_rows[k].flags);
        struct aot_fault_plan p = aot_fault_plan(plan_rows[k].sig, plan_rows[k].code, &old);
        ck_assert_msg(p.action == plan_rows[k].action && p.reset == plan_rows[k].reset,
                      "row %zu (%s): action %d reset %d", k, plan_rows[k].why, (int) p.action,
                      p.reset);
    }
}
END_TEST

START_TEST(test_plan_handlers)
{
    struct sigaction plain = old_with(handler_plain, 0);
    struct sigaction info = old_with(SIG_DFL, SA_SIGINFO | SA_RESETHAND);
    struct sigaction nodefer = old_with(handler_plain, SA_NODEFER);
    struct aot_fault_plan p;

    info.sa_sigaction = handler_info;
    sigaddset(&info.sa_mask, SIGUSR1);
    p = aot_fault_plan(SIGSEGV, SEGV_ACCERR, &plain);
    ck_assert_int_eq(p.action, AOT_FAULT_CALL_PLAIN);
    ck_assert_int_eq(p.reset, 0);
    ck_assert_int_eq(sigismember(&p.block, SIGSEGV), 1);     /* as the kernel blocks it */
    p = aot_fault_plan(SIGSEGV, SI_USER, &info);
    ck_assert_int_eq(p.action, AOT_FAULT_CALL_INFO);
    ck_assert_int_eq(p.reset, 1);                            /* SA_RESETHAND */
    ck_assert_int_eq(sigismember(&p.block, SIGUSR1), 1);     /* its sa_mask */
    ck_assert_int_eq(sigismember(&p.block, SIGSEGV), 1);
    p = aot_fault_plan(SIGSEGV, SEGV_ACCERR, &nodefer);
    ck_assert_int_eq(sigismember(&p.block, SIGSEGV), 0);     /* SA_NODEFER */
}
END_TEST

/* ---------------------------------------------------------------- the entry on real faults */

/* The handler the kernel has for sig, read with the system call (sigaction answers the
 * program's view). */
static void *kernel_handler(int sig)
{
    struct { void *handler; unsigned long flags; void *restorer; unsigned long mask; } k;
    if (syscall(SYS_rt_sigaction, sig, NULL, &k, sizeof(k.mask)) != 0)
        return NULL;
    return k.handler;
}

static unsigned char *page;
static size_t page_size;
/* written by the handlers: volatile, so the test reads what they wrote */
static volatile int order[8], norder;
static void *volatile seen_addr[2];
static void *volatile seen_ctx[2];
static volatile int prev_calls, prev_blocked_usr1, prev_blocked_segv, prev_reset;

static void open_page(void)
{
    mprotect(page, page_size, PROT_READ | PROT_WRITE);
}

static int slot_decline(int sig, siginfo_t *si, ucontext_t *uc)
{
    (void) sig;
    order[norder++] = 0;
    seen_addr[0] = si->si_addr;
    seen_ctx[0] = uc;
    return AOT_FAULT_DECLINED;
}

static int slot_handle(int sig, siginfo_t *si, ucontext_t *uc)
{
    (void) sig;
    (void) uc;
    order[norder++] = 1;
    seen_addr[1] = si->si_addr;
    open_page();
    return AOT_FAULT_HANDLED;
}

static int slot_never(int sig, siginfo_t *si, ucontext_t *uc)
{
    (void) sig;
    (void) si;
    (void) uc;
    order[norder++] = 2;
    return AOT_FAULT_HANDLED;
}

static void prev_handler(int sig, siginfo_t *si, void *ctx)
{
    sigset_t now;
    struct sigaction cur;
    (void) sig;
    prev_calls++;
    seen_addr[1] = si->si_addr;
    seen_ctx[1] = ctx;
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    prev_blocked_usr1 = sigismember(&now, SIGUSR1);
    prev_blocked_segv = sigismember(&now, SIGSEGV);
    sigaction(SIGSEGV, NULL, &cur);
    prev_reset = cur.sa_handler == SIG_DFL;
    open_page();
}

static void setup(void)
{
    page_size = (size_t) sysconf(_SC_PAGESIZE);
    page = mmap(NULL, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(page, MAP_FAILED);
    norder = 0;
    prev_calls = 0;
}

static void install_prev(int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = prev_handler;
    sa.sa_flags = SA_SIGINFO | flags;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR1);
    ck_assert_int_eq(sigaction(SIGSEGV, &sa, NULL), 0);
}

static void reg(enum aot_fault_slot slot, aot_fault_fn fn)
{
    char err[256];
    ck_assert_msg(aot_fault_register(SIGSEGV, slot, fn, err, sizeof(err)) == 0, "%s", err);
}

START_TEST(test_entry_order)
{
    setup();
    install_prev(0);
    reg(AOT_FAULT_SLOT_PROBES, slot_handle);       /* registered first, asked second */
    reg(AOT_FAULT_SLOT_GUARDS, slot_decline);
    ((volatile unsigned char *) page)[100] = 1;
    ck_assert_int_eq(norder, 2);
    ck_assert_int_eq(order[0], 0);
    ck_assert_int_eq(order[1], 1);
    ck_assert_ptr_eq(seen_addr[0], page + 100);
    ck_assert_ptr_eq(seen_addr[1], page + 100);
    ck_assert_int_eq(prev_calls, 0);               /* handled: the previous one never sees it */
    ck_assert_int_eq(page[100], 1);
}
END_TEST

START_TEST(test_entry_handled_stops)
{
    setup();
    install_prev(0);
    reg(AOT_FAULT_SLOT_GUARDS, slot_handle);
    reg(AOT_FAULT_SLOT_PROBES, slot_never);
    ((volatile unsigned char *) page)[7] = 2;
    ck_assert_int_eq(norder, 1);
    ck_assert_int_eq(order[0], 1);
}
END_TEST

START_TEST(test_entry_forward)
{
    setup();
    install_prev(0);
    reg(AOT_FAULT_SLOT_GUARDS, slot_decline);
    ((volatile unsigned char *) page)[4000 % page_size] = 3;
    ck_assert_int_eq(prev_calls, 1);
    ck_assert_ptr_eq(seen_addr[1], page + 4000 % page_size);
    ck_assert_ptr_eq(seen_ctx[1], seen_ctx[0]);    /* the kernel's ucontext, not a copy */
    ck_assert_int_eq(prev_blocked_usr1, 1);
    ck_assert_int_eq(prev_blocked_segv, 1);
    ck_assert_int_eq(prev_reset, 0);
    aot_fault_unregister(SIGSEGV, AOT_FAULT_SLOT_GUARDS);
}
END_TEST

START_TEST(test_entry_resethand)
{
    setup();
    install_prev(SA_RESETHAND);
    reg(AOT_FAULT_SLOT_GUARDS, slot_decline);
    ((volatile unsigned char *) page)[1] = 4;
    ck_assert_int_eq(prev_calls, 1);
    ck_assert_int_eq(prev_reset, 1);               /* reset before it was called */
    ck_assert_ptr_ne(kernel_handler(SIGSEGV), (void *) SIG_DFL);   /* the entry stays */
}
END_TEST

START_TEST(test_entry_sent_ignored)
{
    struct sigaction ign;
    memset(&ign, 0, sizeof(ign));
    ign.sa_handler = SIG_IGN;
    sigaction(SIGSEGV, &ign, NULL);
    setup();
    reg(AOT_FAULT_SLOT_GUARDS, slot_decline);
    raise(SIGSEGV);                                /* sent: dropped, we live on */
    ck_assert_int_eq(norder, 1);
}
END_TEST

/* Killed by SIGSEGV (tcase_add_test_raise_signal): a real fault nobody takes, with the
 * previous disposition SIG_IGN, then SIG_DFL. */
START_TEST(test_entry_fault_ignored_kills)
{
    struct sigaction ign;
    memset(&ign, 0, sizeof(ign));
    ign.sa_handler = _i ? SIG_DFL : SIG_IGN;
    sigaction(SIGSEGV, &ign, NULL);
    setup();
    reg(AOT_FAULT_SLOT_GUARDS, slot_decline);
    ((volatile unsigned char *) page)[0] = 5;
}
END_TEST

/* ---------------------------------------------------------------- the program's dispositions */

static volatile int other_calls, h_calls[2], flips, bad_old;
static volatile int flip_done;

static void other_handler(int sig, siginfo_t *si, void *ctx)
{
    (void) sig;
    (void) si;
    (void) ctx;
    other_calls++;
    open_page();
}

static int slot_decline_quiet(int sig, siginfo_t *si, ucontext_t *uc)
{
    (void) sig;
    (void) si;
    (void) uc;
    return AOT_FAULT_DECLINED;
}

START_TEST(test_program_sets_prev)
{
    struct sigaction sa, old;
    void *entry;

    setup();
    install_prev(0);                               /* no entry yet: the kernel's */
    ck_assert_ptr_eq(kernel_handler(SIGSEGV), (void *) prev_handler);
    reg(AOT_FAULT_SLOT_GUARDS, slot_decline);
    entry = kernel_handler(SIGSEGV);
    ck_assert_ptr_ne(entry, (void *) prev_handler);
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = other_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGSEGV, &sa, &old), 0);
    ck_assert_ptr_eq(old.sa_sigaction, prev_handler);      /* the program's, not the entry */
    ck_assert_int_eq(sigismember(&old.sa_mask, SIGUSR1), 1);
    ck_assert_ptr_eq(kernel_handler(SIGSEGV), entry);       /* the entry stays */
    ck_assert_int_eq(sigaction(SIGSEGV, NULL, &old), 0);
    ck_assert_ptr_eq(old.sa_sigaction, other_handler);
    ((volatile unsigned char *) page)[9] = 6;               /* declined: to other_handler */
    ck_assert_int_eq(other_calls, 1);
    ck_assert_int_eq(prev_calls, 0);
    ck_assert_ptr_eq(signal(SIGSEGV, SIG_IGN), (void *) other_handler);
    ck_assert_ptr_eq(kernel_handler(SIGSEGV), entry);
    ck_assert_ptr_eq(signal(SIGSEGV, (void (*)(int)) (void *) other_handler), SIG_IGN);
    aot_fault_stop();                              /* the program's last one to the kernel */
    ck_assert_ptr_eq(kernel_handler(SIGSEGV), (void *) other_handler);
}
END_TEST

static void flip_handler(int sig, siginfo_t *si, void *ctx)
{
    (void) si;
    (void) ctx;
    (void) sig;
    h_calls[0]++;
    open_page();
}

static void flip_handler2(int sig, siginfo_t *si, void *ctx)
{
    (void) sig;
    (void) si;
    (void) ctx;
    h_calls[1]++;
    open_page();
}

/* Switches the previous handler between the two flip handlers until flip_done (the second has
 * SA_RESTART, so the entry is set again each time); every old action it is answered must be
 * one of them. */
static void *flipper(void *arg)
{
    struct sigaction sa[2], old;
    (void) arg;
    memset(sa, 0, sizeof(sa));
    sa[0].sa_sigaction = flip_handler;
    sa[1].sa_sigaction = flip_handler2;
    for (int k = 0; k < 2; k++) {
        sa[k].sa_flags = SA_SIGINFO | (k ? SA_RESTART : 0);
        sigemptyset(&sa[k].sa_mask);
    }
    for (int k = 0; !flip_done; k ^= 1) {
        sigaction(SIGSEGV, &sa[k], &old);
        if (old.sa_sigaction != flip_handler && old.sa_sigaction != flip_handler2)
            bad_old++;
        flips++;
    }
    return NULL;
}

START_TEST(test_prev_changes_during_faults)
{
    struct sigaction sa;
    pthread_t t;
    const int faults = 3000;

    setup();
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = flip_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGSEGV, &sa, NULL), 0);
    reg(AOT_FAULT_SLOT_GUARDS, slot_decline_quiet);
    ck_assert_int_eq(pthread_create(&t, NULL, flipper, NULL), 0);
    while (flips < 10)
        sched_yield();
    for (int k = 0; k < faults; k++) {
        mprotect(page, page_size, PROT_NONE);
        ((volatile unsigned char *) page)[k % page_size] = 7;
    }
    flip_done = 1;
    pthread_join(t, NULL);
    ck_assert_int_eq(h_calls[0] + h_calls[1], faults);     /* each fault reached one */
    ck_assert_int_eq(bad_old, 0);
    ck_assert_int_gt(flips, 10);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fault");
    TCase *tc = tcase_create("fault");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_plan_default_and_ignored);
    tcase_add_test(tc, test_plan_handlers);
    tcase_add_test(tc, test_entry_order);
    tcase_add_test(tc, test_entry_handled_stops);
    tcase_add_test(tc, test_entry_forward);
    tcase_add_test(tc, test_entry_resethand);
    tcase_add_test(tc, test_entry_sent_ignored);
    tcase_add_loop_test_raise_signal(tc, test_entry_fault_ignored_kills, SIGSEGV, 0, 2);
    tcase_add_test(tc, test_program_sets_prev);
    tcase_add_test(tc, test_prev_changes_during_faults);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
