/*
 * old_action: every old action sigaction answers for SIGSEGV and SIGTRAP, printed (issue 55,
 * item 6).  Before and after MPI_Init the program installs handlers with combinations of
 * SA_RESETHAND, SA_NODEFER, SA_SIGINFO, SA_ONSTACK, SA_RESTART, an unknown flag and masks
 * (empty, SIGUSR1, SIGKILL/SIGSTOP/SIGUSR2/a real-time signal, all), SIG_IGN and SIG_DFL, and
 * prints each old action (handler by name, flags, mask as a list, restorer as object+offset);
 * then it takes a fault (SIGSEGV) and a trap (SIGTRAP) under an SA_RESETHAND handler that
 * returns, and prints the old action the next sigaction answers (Linux resets the handler only).
 * same_output.sh runs it natively and under autoopt: the outputs must be identical.  Before
 * issue 55 the old action after the reset had flags 0x4000000 (SA_RESTORER) where the
 * kernel answers 0x84000000 and more.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mpi.h>

static unsigned char *page;
static size_t page_size;
static volatile sig_atomic_t calls;

static void h_a(int sig)
{
    (void) sig;
    calls++;
    mprotect(page, page_size, PROT_READ | PROT_WRITE);
}

static void h_b(int sig, siginfo_t *si, void *ctx)
{
    (void) sig;
    (void) si;
    (void) ctx;
    calls++;
    mprotect(page, page_size, PROT_READ | PROT_WRITE);
}

static const char *name_of(const struct sigaction *sa)
{
    if (sa->sa_handler == SIG_DFL)
        return "SIG_DFL";
    if (sa->sa_handler == SIG_IGN)
        return "SIG_IGN";
    if (sa->sa_handler == h_a)
        return "h_a";
    if ((void *) sa->sa_sigaction == (void *) h_b)
        return "h_b";
    return "other";
}

static void print_old(const char *phase, int sig, int step, const struct sigaction *old)
{
    Dl_info di;
    char mask[400];
    size_t n = 0;

    mask[0] = 0;
    for (int s = 1; s < 65; s++)
        if (sigismember(&old->sa_mask, s) == 1)
            n += (size_t) snprintf(mask + n, sizeof(mask) - n, "%s%d", n ? "," : "", s);
    printf("%s %s %2d: handler %s flags %#x mask {%s} restorer ", phase,
           sig == SIGSEGV ? "SIGSEGV" : "SIGTRAP", step, name_of(old), (unsigned) old->sa_flags,
           mask);
    if (!old->sa_restorer)
        printf("none\n");
    else if (dladdr((void *) old->sa_restorer, &di) && di.dli_fname)
        printf("%s+%#lx\n", strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1
                                                        : di.dli_fname,
               (unsigned long) ((char *) old->sa_restorer - (char *) di.dli_fbase));
    else
        printf("unknown\n");
}

static void set_mask(sigset_t *m, int k)
{
    sigemptyset(m);
    switch (k) {
    case 1:
        sigaddset(m, SIGUSR1);
        break;
    case 2:
        sigaddset(m, SIGKILL);
        sigaddset(m, SIGSTOP);
        sigaddset(m, SIGUSR2);
        sigaddset(m, SIGRTMIN + 3);
        break;
    case 3:
        sigfillset(m);
        break;
    default:
        break;
    }
}

static void sequence(const char *phase, int sig)
{
    static const int flags[] = { 0, SA_SIGINFO, SA_RESETHAND | SA_SIGINFO, SA_NODEFER,
                                 SA_ONSTACK | SA_RESTART,
                                 SA_RESETHAND | SA_NODEFER | SA_SIGINFO | SA_ONSTACK | SA_RESTART,
                                 SA_RESETHAND, 0x400 };
    struct sigaction sa, old;
    int step = 0;

    for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
        for (int m = 0; m < 4; m++) {
            memset(&sa, 0, sizeof(sa));
            sa.sa_flags = flags[f];
            if (flags[f] & SA_SIGINFO)
                sa.sa_sigaction = h_b;
            else
                sa.sa_handler = h_a;
            set_mask(&sa.sa_mask, m);
            memset(&old, 0, sizeof(old));
            if (sigaction(sig, &sa, &old) != 0)
                printf("%s: sigaction failed\n", phase);
            print_old(phase, sig, step++, &old);
        }
    for (int k = 0; k < 2; k++) {
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = k ? SIG_DFL : SIG_IGN;
        sa.sa_flags = k ? SA_RESTART : SA_NODEFER;
        set_mask(&sa.sa_mask, k + 1);
        memset(&old, 0, sizeof(old));
        sigaction(sig, &sa, &old);
        print_old(phase, sig, step++, &old);
    }
    /* an SA_RESETHAND handler that runs, then the old action */
    for (int k = 0; k < 2; k++) {
        memset(&sa, 0, sizeof(sa));
        sa.sa_flags = SA_RESETHAND | (k ? SA_SIGINFO | SA_NODEFER : SA_RESTART);
        if (k)
            sa.sa_sigaction = h_b;
        else
            sa.sa_handler = h_a;
        set_mask(&sa.sa_mask, k + 1);
        sigaction(sig, &sa, NULL);
        calls = 0;
        if (sig == SIGSEGV) {
            mprotect(page, page_size, PROT_NONE);
            page[7] = 1;
        } else {
            __asm__ volatile("int3");
        }
        memset(&old, 0, sizeof(old));
        sigaction(sig, NULL, &old);
        printf("%s %s: the handler ran %d times\n", phase, sig == SIGSEGV ? "SIGSEGV" : "SIGTRAP",
               (int) calls);
        print_old(phase, sig, step++, &old);
    }
}

int main(int argc, char **argv)
{
    page_size = (size_t) sysconf(_SC_PAGESIZE);
    page = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return 2;
    sequence("before", SIGSEGV);
    sequence("before", SIGTRAP);
    MPI_Init(&argc, &argv);
    sequence("after", SIGSEGV);
    sequence("after", SIGTRAP);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
