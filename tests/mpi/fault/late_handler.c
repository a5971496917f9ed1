/*
 * late_handler handler KiB | late_handler ignore: the program changes its SIGSEGV disposition
 * after a receive returned and before it reads the buffer (issue 28).  Rank 0 receives 1 MiB
 * into a heap buffer with MPI_Recv (rank 1 sends after 0.3 s, so a converted receive is still
 * pending when MPI_Recv returns), then
 *   handler: installs its own SA_SIGINFO|SA_ONSTACK handler on an alternate stack of its own
 *            of KiB KiB, a handler that exits with 42 if it is ever called (the program never
 *            faults); sigaltstack must then answer that stack;
 *   ignore:  sets SIGSEGV to SIG_IGN;
 * and sums the buffer.  The sum must be the one computed serially, and the handler must not
 * have run, as natively.  Under autoopt the receive's guard fault is autoopt's own business:
 * the program's new disposition only becomes the handler autoopt forwards other faults to, and
 * an alternate stack too small for paging's wait (8 KiB) is the program's in name only.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "paging_test.h"

#define N (1L << 17)            /* doubles: 1 MiB */

static void never_called(int sig, siginfo_t *si, void *ctx)
{
    static const char msg[] = "late_handler: the program's SIGSEGV handler was called\n";
    (void) sig;
    (void) si;
    (void) ctx;
    if (write(2, msg, sizeof(msg) - 1) < 0)
        _exit(43);
    _exit(42);
}

static void take_segv(int ignore, size_t altstack)
{
    struct sigaction sa;
    stack_t ss, now;

    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    if (ignore) {
        sa.sa_handler = SIG_IGN;
    } else {
        ss.ss_sp = malloc(altstack);
        ss.ss_size = altstack;
        ss.ss_flags = 0;
        CHECK(ss.ss_sp && sigaltstack(&ss, NULL) == 0, "sigaltstack failed");
        CHECK(sigaltstack(NULL, &now) == 0 && now.ss_sp == ss.ss_sp &&
              now.ss_size == ss.ss_size && now.ss_flags == 0,
              "sigaltstack answers %p, %zu bytes, flags %#x: not the stack set", now.ss_sp,
              now.ss_size, (unsigned) now.ss_flags);
        sa.sa_sigaction = never_called;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    }
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0, "sigaction(SIGSEGV) failed");
}

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double));
    int ignore = argc > 1 && strcmp(argv[1], "ignore") == 0;
    size_t altstack = (argc > 2 ? (size_t) atoi(argv[2]) : 64) * 1024;

    pt_init(&argc, &argv);
    if (pt_rank == 0 && pt_size > 1) {
        double sum = 0, expect = 0;
        MPI_Recv(a, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        take_segv(ignore, altstack);
        for (long i = 0; i < N; i++)
            sum += a[i];
        for (long i = 0; i < N; i++)
            expect += pt_val(1, i);
        CHECK(sum == expect, "sum %.17g, computed serially %.17g", sum, expect);
        printf("sum %.17g\n", sum);
    } else if (pt_rank == 1) {
        pt_fill(a, N, 1);
        usleep(300000);
        MPI_Send(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
    free(a);
    return aot_test_finish();
}
