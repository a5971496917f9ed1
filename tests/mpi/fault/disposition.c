/*
 * disposition: what the program sets and is told about SIGSEGV between MPI_Init and
 * MPI_Finalize is what it would set and be told natively, and its handler gets its faults.
 *   1. Every call of the family (sigaction, signal, sysv_signal, sigset, siginterrupt,
 *      sigignore) is made on SIGSEGV and, as the reference, on SIGUSR2, which autoopt never
 *      holds: the old action or handler returned and the disposition read back afterwards
 *      must be the same for both (handler, flags, restorer, mask with the signal's own bit
 *      compared as such).  Handler A, set before MPI_Init, is the first old action after it.
 *   2. Under autoopt the kernel's SIGSEGV disposition (read with the system call) stays
 *      autoopt's entry all along, so the answers above did come from autoopt.
 *   3. With its handler L (SA_ONSTACK) installed after MPI_Init, on an 8 KiB alternate stack
 *      of its own (under autoopt the kernel keeps autoopt's: too small for paging's wait), and
 *      a converted receive pending on rank 0, a read of an unmapped page reaches L once, with
 *      that address and SEGV_MAPERR, and sigaltstack in L answers the program's stack with
 *      SS_ONSTACK; L maps the page and the read gives its value; the data received are checked.
 *   4. After MPI_Finalize the kernel's disposition is L and its alternate stack the program's,
 *      and L gets a second such fault.
 * Passes natively too.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE                     /* sysv_signal */
#endif
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fault_test.h"
#include "paging_test.h"

/* sigset, sigignore and siginterrupt are obsolescent, and exactly what is tested here */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define N (1L << 17)
#define VALUE 0x5a
#define ALTSTACK 8192

static size_t page_size;
static volatile sig_atomic_t calls;
static void *volatile seen_addr;
static volatile int seen_code;
static char *altstack;
static void *volatile seen_alt_sp;
static volatile int seen_alt_flags;

static void handler_a(int sig, siginfo_t *si, void *ctx) { (void) sig; (void) si; (void) ctx; }
static void handler_b(int sig, siginfo_t *si, void *ctx) { (void) sig; (void) si; (void) ctx; }
static void handler_c(int sig) { (void) sig; }
static void handler_d(int sig) { (void) sig; }
static void handler_e(int sig) { (void) sig; }

/* L: maps the page of the fault, filled with VALUE, and returns: the read runs again. */
static void handler_l(int sig, siginfo_t *si, void *ctx)
{
    char *p = (char *) ((uintptr_t) si->si_addr & ~(uintptr_t) (page_size - 1));
    stack_t now;
    (void) sig;
    (void) ctx;
    calls++;
    if (sigaltstack(NULL, &now) == 0) {
        seen_alt_sp = now.ss_sp;
        seen_alt_flags = now.ss_flags;
    }
    seen_addr = si->si_addr;
    seen_code = si->si_code;
    if (mmap(p, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
             0) == MAP_FAILED)
        _exit(3);
    memset(p, VALUE, page_size);
}

/* a (for SIGSEGV) and b (for SIGUSR2) are the same answer. */
static void same(const char *what, const struct sigaction *a, const struct sigaction *b)
{
    CHECK(a->sa_handler == b->sa_handler, "%s: handler %p, natively %p", what,
          (void *) a->sa_handler, (void *) b->sa_handler);
    CHECK(a->sa_flags == b->sa_flags, "%s: flags %#x, natively %#x", what, a->sa_flags,
          b->sa_flags);
    CHECK(a->sa_restorer == b->sa_restorer, "%s: restorer %p, natively %p", what,
          (void *) a->sa_restorer, (void *) b->sa_restorer);
    CHECK(sigismember(&a->sa_mask, SIGSEGV) == sigismember(&b->sa_mask, SIGUSR2),
          "%s: the signal itself in the mask: %d, natively %d", what,
          sigismember(&a->sa_mask, SIGSEGV), sigismember(&b->sa_mask, SIGUSR2));
    for (int s = 1; s < 65; s++)
        if (s != SIGSEGV && s != SIGUSR2)
            CHECK(sigismember(&a->sa_mask, s) == sigismember(&b->sa_mask, s),
                  "%s: signal %d in the mask: %d, natively %d", what, s,
                  sigismember(&a->sa_mask, s), sigismember(&b->sa_mask, s));
}

static void same_now(const char *what)
{
    struct sigaction a, b;
    sigaction(SIGSEGV, NULL, &a);
    sigaction(SIGUSR2, NULL, &b);
    same(what, &a, &b);
}

static void info(struct sigaction *sa, void (*fn)(int, siginfo_t *, void *), int flags)
{
    memset(sa, 0, sizeof(*sa));
    sa->sa_sigaction = fn;
    sa->sa_flags = SA_SIGINFO | flags;
    sigemptyset(&sa->sa_mask);
    sigaddset(&sa->sa_mask, SIGUSR1);
}

/* The family, on SIGSEGV and on SIGUSR2, the answers of both compared. */
static void family(void)
{
    struct sigaction sb, o1, o2;
    int autoopt = ft_autoopt_on();

    info(&sb, handler_b, SA_ONSTACK);
    CHECK(sigaction(SIGSEGV, &sb, &o1) == 0 && sigaction(SIGUSR2, &sb, &o2) == 0, "sigaction B");
    CHECK(o1.sa_sigaction == handler_a, "the old action after MPI_Init is %p, not A",
          (void *) o1.sa_sigaction);
    same("sigaction B: old", &o1, &o2);
    same_now("after sigaction B");
    if (autoopt)
        CHECK(ft_kernel_handler(SIGSEGV) != (void *) handler_b,
              "autoopt is active but B reached the kernel");
    else
        CHECK(ft_kernel_handler(SIGSEGV) == (void *) handler_b, "natively B is not installed");

    CHECK(signal(SIGSEGV, handler_c) == signal(SIGUSR2, handler_c), "signal C: old handler");
    same_now("after signal C");
    CHECK(sysv_signal(SIGSEGV, handler_d) == sysv_signal(SIGUSR2, handler_d),
          "sysv_signal D: old handler");
    same_now("after sysv_signal D");
    CHECK(sigset(SIGSEGV, handler_e) == sigset(SIGUSR2, handler_e), "sigset E: old handler");
    same_now("after sigset E");
    CHECK(siginterrupt(SIGSEGV, 1) == 0 && siginterrupt(SIGUSR2, 1) == 0, "siginterrupt 1");
    same_now("after siginterrupt 1");
    CHECK(signal(SIGSEGV, handler_c) == signal(SIGUSR2, handler_c), "signal C again");
    same_now("after siginterrupt 1, signal C");
    CHECK(siginterrupt(SIGSEGV, 0) == 0 && siginterrupt(SIGUSR2, 0) == 0, "siginterrupt 0");
    same_now("after siginterrupt 0");
    CHECK(sigignore(SIGSEGV) == 0 && sigignore(SIGUSR2) == 0, "sigignore");
    same_now("after sigignore");
    CHECK(signal(SIGSEGV, SIG_DFL) == SIG_IGN, "signal SIG_DFL after sigignore: old not SIG_IGN");
    signal(SIGUSR2, SIG_DFL);
    same_now("after signal SIG_DFL");
}

/* An address with no mapping: a page mapped and unmapped again. */
static char *unmapped(void)
{
    char *p = mmap(NULL, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p, page_size);
    return p;
}

/* A read of an unmapped page, which L must have served: the number of mismatches, each
 * printed (without MPI: also used after MPI_Finalize). */
static int fault_to_l(const char *when, int expect_calls)
{
    char *p = unmapped();
    char v = ((volatile char *) p)[17];
    int bad = 0;

    if (calls != expect_calls)
        bad++, fprintf(stderr, "%s: L ran %d times in all, expected %d\n", when, (int) calls,
                       expect_calls);
    if (seen_addr != p + 17)
        bad++, fprintf(stderr, "%s: L got si_addr %p, the fault was at %p\n", when, seen_addr,
                       (void *) (p + 17));
    if (seen_code != SEGV_MAPERR)
        bad++, fprintf(stderr, "%s: L got si_code %d, expected SEGV_MAPERR\n", when, seen_code);
    if (v != VALUE)
        bad++, fprintf(stderr, "%s: read %d after L, expected %d\n", when, v, VALUE);
    if (seen_alt_sp != altstack || !(seen_alt_flags & SS_ONSTACK))
        bad++, fprintf(stderr, "%s: sigaltstack in L answered %p, flags %#x; expected %p "
                       "with SS_ONSTACK\n", when, seen_alt_sp, (unsigned) seen_alt_flags,
                       (void *) altstack);
    return bad;
}

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double));
    struct sigaction sa, sl, qa, qu;
    int autoopt;

    page_size = (size_t) sysconf(_SC_PAGESIZE);
    info(&sa, handler_a, SA_RESTART);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    pt_init(&argc, &argv);
    autoopt = ft_autoopt_on();
    sigaction(SIGSEGV, NULL, &qa);
    sigaction(SIGUSR2, NULL, &qu);
    same("A after MPI_Init", &qa, &qu);

    family();
    {
        stack_t ss = { .ss_sp = altstack = malloc(ALTSTACK), .ss_size = ALTSTACK, .ss_flags = 0 };
        CHECK(sigaltstack(&ss, NULL) == 0, "sigaltstack failed");
    }
    info(&sl, handler_l, SA_ONSTACK);
    sigaction(SIGSEGV, &sl, NULL);
    if (autoopt) {
        CHECK(ft_kernel_handler(SIGSEGV) != (void *) handler_l,
              "autoopt is active but L reached the kernel");
        CHECK(ft_kernel_altstack() != altstack,
              "autoopt is active but the 8 KiB alternate stack reached the kernel");
    }
    if (pt_rank == 0 && pt_size > 1) {
        MPI_Recv(a, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        aot_test_errors += fault_to_l("receive pending", 1);
        pt_check(a, N, 1, "receive");
    } else if (pt_rank == 1) {
        pt_fill(a, N, 1);
        usleep(300000);
        MPI_Send(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
    free(a);
    int rc = aot_test_verdict();
    MPI_Finalize();

    /* after MPI_Finalize: L and its stack are the kernel's, and L gets a fault directly */
    if (ft_kernel_handler(SIGSEGV) != (void *) handler_l || ft_kernel_altstack() != altstack) {
        fprintf(stderr, "[%d] after MPI_Finalize the kernel's SIGSEGV handler is %p (L: %p), "
                "its alternate stack %p (the program's: %p)\n", pt_rank,
                ft_kernel_handler(SIGSEGV), (void *) handler_l, ft_kernel_altstack(),
                (void *) altstack);
        return EXIT_FAILURE;
    }
    if (pt_rank == 0) {
        if (fault_to_l("after MPI_Finalize", pt_size > 1 ? 2 : 1))
            return EXIT_FAILURE;
        printf("after MPI_Finalize: L in force\n");
    }
    return rc;
}
