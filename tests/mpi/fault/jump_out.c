/*
 * jump_out before|after defer|nodefer: the program's SIGSEGV and SIGTRAP handlers never return,
 * they jump out (issue 55, item 2).  Both are installed (SA_SIGINFO, SIGUSR1 in sa_mask, and
 * SA_NODEFER with "nodefer") before or after MPI_Init; then, after MPI_Init, each rank makes
 * FAULTS faults of each kind
 *   null:  a write through a null pointer (SIGSEGV, SEGV_MAPERR),
 *   page:  a read of a PROT_NONE page of its own (SIGSEGV, SEGV_ACCERR),
 *   trap:  an int3 instruction (SIGTRAP, SI_KERNEL),
 *   icebp: an icebp instruction (SIGTRAP, TRAP_BRKPT: the si_code paging's trap handler takes
 *          for the end of its own single step when one is open, so it must reach the program
 *          when none is),
 * for each way out of the handler
 *   siglongjmp:  siglongjmp to a sigsetjmp(jb, 1) (the mask comes back),
 *   unblock:     sigprocmask(SIG_UNBLOCK) of the signal and SIGUSR1, then longjmp to a setjmp,
 *   plain:       longjmp alone (only with SA_NODEFER: the signal itself was never blocked, so a
 *                program may do it; SIGUSR1, the handler's sa_mask, stays blocked),
 * with an MPI_Allreduce between faults.  Each recovery is counted, and the blocked mask after it
 * must be the one the kernel leaves (the original; with "plain" the original and SIGUSR1).  The
 * reference is the count of faults made: natively every fault is survived.  Before issue 55 the
 * second fault killed the rank under autoopt's default (the entry kept the first fault's
 * siginfo as the one being forwarded, and the second one, delivered at the same place of the
 * alternate stack, looked passed back).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fault_test.h"
#include "paging_test.h"

#define FAULTS 5

enum way { WAY_SIGLONGJMP, WAY_UNBLOCK, WAY_PLAIN, NWAYS };
enum kind { KIND_NULL, KIND_PAGE, KIND_TRAP, KIND_ICEBP, NKINDS };
static const char *const way_name[NWAYS] = { "siglongjmp", "unblock", "plain" };
static const char *const kind_name[NKINDS] = { "null", "page", "trap", "icebp" };

static sigjmp_buf sjb;
static jmp_buf jb;
static volatile sig_atomic_t way, caught_sig;
static int *volatile null_ptr;
static volatile unsigned char *page;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
    sigset_t s;

    (void) si;
    (void) ctx;
    caught_sig = sig;
    if (way == WAY_SIGLONGJMP)
        siglongjmp(sjb, 1);
    if (way == WAY_UNBLOCK) {
        sigemptyset(&s);
        sigaddset(&s, sig);
        sigaddset(&s, SIGUSR1);
        sigprocmask(SIG_UNBLOCK, &s, NULL);
    }
    longjmp(jb, 1);
}

static void install(int nodefer)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | (nodefer ? SA_NODEFER : 0);
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR1);
    if (sigaction(SIGSEGV, &sa, NULL) != 0 || sigaction(SIGTRAP, &sa, NULL) != 0) {
        perror("sigaction");
        exit(2);
    }
}

static void fault(enum kind k)
{
    switch (k) {
    case KIND_NULL:
        *null_ptr = 1;
        break;
    case KIND_PAGE:
        (void) page[100];
        break;
    case KIND_TRAP:
        __asm__ volatile("int3");
        break;
    default:
        __asm__ volatile(".byte 0xf1");     /* icebp */
        break;
    }
}

/* One fault of kind k left through way w: 1 when the handler ran and the program got back. */
static int one(enum kind k, enum way w, const sigset_t *orig)
{
    int back;
    sigset_t now, want = *orig;

    caught_sig = 0;
    way = w;
    if (w == WAY_SIGLONGJMP)
        back = sigsetjmp(sjb, 1);
    else
        back = setjmp(jb);
    if (!back) {
        fault(k);
        CHECK(0, "%s, %s: the fault did not reach the handler", kind_name[k], way_name[w]);
        return 0;
    }
    CHECK(caught_sig == (k == KIND_TRAP || k == KIND_ICEBP ? SIGTRAP : SIGSEGV), "%s, %s: the handler got signal %d",
          kind_name[k], way_name[w], (int) caught_sig);
    if (w == WAY_PLAIN)
        sigaddset(&want, SIGUSR1);
    sigprocmask(SIG_BLOCK, NULL, &now);
    for (int s = 1; s < 65; s++)
        CHECK(sigismember(&now, s) == sigismember(&want, s),
              "%s, %s: after the jump signal %d is %s, natively %s", kind_name[k], way_name[w],
              s, sigismember(&now, s) ? "blocked" : "unblocked",
              sigismember(&want, s) ? "blocked" : "unblocked");
    sigprocmask(SIG_SETMASK, orig, NULL);
    return 1;
}

int main(int argc, char **argv)
{
    int before = argc > 1 && strcmp(argv[1], "before") == 0;
    int nodefer = argc > 2 && strcmp(argv[2], "nodefer") == 0;
    size_t page_size = (size_t) sysconf(_SC_PAGESIZE);
    int recovered = 0, expected = 0;
    sigset_t orig;

    page = mmap(NULL, page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    if (before)
        install(nodefer);
    pt_init(&argc, &argv);
    if (!before)
        install(nodefer);
    if (ft_autoopt_on())
        CHECK(ft_kernel_handler(SIGSEGV) != (void *) on_signal, "autoopt is active but the "
              "program's handler is the installed one: the faults would not go through "
              "autoopt's entry");
    sigprocmask(SIG_BLOCK, NULL, &orig);
    for (int w = 0; w < NWAYS; w++) {
        if (w == WAY_PLAIN && !nodefer)
            continue;
        for (int k = 0; k < NKINDS; k++)
            for (int i = 0; i < FAULTS; i++) {
                int total = 0;
                recovered += one((enum kind) k, (enum way) w, &orig);
                expected++;
                MPI_Allreduce(&recovered, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                CHECK(total == pt_size * expected, "the ranks recovered %d times, expected %d",
                      total, pt_size * expected);
            }
    }
    CHECK(recovered == expected, "recovered from %d faults of %d", recovered, expected);
    if (pt_rank == 0)
        printf("recovered from %d faults per rank (%s MPI_Init, %s)\n", recovered,
               before ? "before" : "after", nodefer ? "SA_NODEFER" : "no SA_NODEFER");
    return aot_test_finish();
}
