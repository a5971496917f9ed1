/*
 * own_handler: the program installs its own SIGSEGV handler (SA_SIGINFO, SIGUSR1 in its
 * sa_mask) before MPI_Init, and after it, with a converted receive pending (paging's handler
 * live) and chains on, touches a no-access page of its own.  Its handler must run as the kernel
 * would have run it: once, with the faulting address and SEGV_ACCERR, with SIGSEGV and SIGUSR1
 * blocked; it makes the page readable and returns, and the read then gives the page's value.
 * Under autoopt the kernel's handler after MPI_Init must be autoopt's entry (not the program's),
 * so the call went through the entry's forwarding; sigaction still answers the program's
 * handler, as natively.  Passes natively too.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fault_test.h"
#include "paging_test.h"

#define N 100000
#define OFFSET 1234

static unsigned char *page;
static size_t page_size;
static volatile sig_atomic_t calls, segv_blocked, usr1_blocked;
static void *volatile seen_addr;
static volatile int seen_code, seen_sig;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    sigset_t now;
    (void) ctx;
    calls++;
    seen_sig = sig;
    seen_addr = si->si_addr;
    seen_code = si->si_code;
    if (pthread_sigmask(SIG_SETMASK, NULL, &now) == 0) {
        segv_blocked = sigismember(&now, SIGSEGV);
        usr1_blocked = sigismember(&now, SIGUSR1);
    }
    mprotect(page, page_size, PROT_READ);
}

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double));
    struct sigaction sa, cur;

    page_size = (size_t) sysconf(_SC_PAGESIZE);
    page = mmap(NULL, page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (size_t k = 0; k < page_size; k++)
        page[k] = (unsigned char) (k * 7 + 3);
    mprotect(page, page_size, PROT_NONE);
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR1);
    sigaction(SIGSEGV, &sa, NULL);

    pt_init(&argc, &argv);
    sigaction(SIGSEGV, NULL, &cur);
    CHECK(cur.sa_sigaction == on_segv, "sigaction answers %p, not the program's handler",
          (void *) cur.sa_sigaction);
    if (ft_autoopt_on())
        CHECK(ft_kernel_handler(SIGSEGV) != (void *) on_segv, "autoopt is active but the "
              "program's handler is the installed one: the test would not go through "
              "autoopt's entry");
    if (pt_rank == 0 && pt_size > 1) {
        unsigned char v;
        MPI_Recv(a, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* pending */
        v = ((volatile unsigned char *) page)[OFFSET];                            /* faults */
        CHECK(calls == 1, "the program's handler ran %d times, expected 1", (int) calls);
        CHECK(seen_sig == SIGSEGV, "the handler got signal %d", seen_sig);
        CHECK(seen_addr == page + OFFSET, "the handler got si_addr %p, the fault was at %p",
              seen_addr, (void *) (page + OFFSET));
        CHECK(seen_code == SEGV_ACCERR, "the handler got si_code %d, expected SEGV_ACCERR",
              seen_code);
        CHECK(segv_blocked == 1, "SIGSEGV was not blocked in the handler (no SA_NODEFER)");
        CHECK(usr1_blocked == 1, "SIGUSR1 (the handler's sa_mask) was not blocked in it");
        CHECK(v == (unsigned char) (OFFSET * 7 + 3), "read %u after the handler, expected %u",
              v, (unsigned) (unsigned char) (OFFSET * 7 + 3));
        pt_check(a, N, 1, "receive");
    } else if (pt_rank == 1) {
        pt_fill(a, N, 1);
        MPI_Send(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
    free(a);
    return aot_test_finish();
}
