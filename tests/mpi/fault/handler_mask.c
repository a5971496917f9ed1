/*
 * handler_mask: the program's signal handlers that run with SIGSEGV or SIGTRAP blocked by the
 * kernel, and the program's own single steps, while guarded buffers are pending (issue 55,
 * second adversarial review).  Rank 0 receives 1 MiB five times per way (rank 1 sends after
 * 0.1 s: the converted receive is pending and guarded) and then
 *   segv     raises SIGSEGV; its handler (sigaction, no SA_NODEFER: SIGSEGV blocked while it
 *            runs) reads the received buffer;
 *   usr1     raises SIGUSR1; its handler was installed with sigfillset(&sa_mask) (every signal
 *            blocked while it runs) and reads the buffer;
 *   suspend  waits in sigsuspend with every signal but SIGUSR1 blocked; SIGUSR1's handler reads
 *            the buffer;
 *   ppoll, pselect, epoll_pwait
 *            the same wait in ppoll, pselect or epoll_pwait with that mask (before 2026-12-07's
 *            change: death by SIGSEGV);
 *   tf       single-steps itself (trap flag set with popf, its SIGTRAP handler counting the
 *            traps) over a write and a read of the bytes just before the buffer, on its first
 *            page, and over a REP MOVSB there: the traps counted must be those of the same code
 *            on memory no guard covers (before: autoopt's step took the program's trap and
 *            cleared its flag, and the REP was done in one go);
 *   int3     a SIGFPE from a division by a zero next to the buffer (a stepped instruction),
 *            left with siglongjmp, then int3: the SIGTRAP handler must see every int3 (before:
 *            the step left behind took the trap).
 * Every buffer is compared with the pattern sent.  Before this change (4dd714f), under
 * AUTOOPT_P2P_MODE=guarded: segv, usr1 and suspend died of SIGSEGV, tf counted fewer traps,
 * int3 lost some.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <ucontext.h>
#include <unistd.h>

#include "paging_test.h"

#define N (1L << 17)            /* doubles: 1 MiB */
#define ROUNDS 5
#define TF 0x100

static double *buf;             /* 256 bytes into a page-aligned mapping */
static char *page0;             /* its first page */
static volatile int round_m, reads_bad, reads, traps, fpes;
static sigjmp_buf jb;
extern char hm_step_end[];

static void read_buffer(void)
{
    reads++;
    if (buf[0] != pt_val(round_m, 0) || buf[N - 1] != pt_val(round_m, N - 1))
        reads_bad++;
}

static void on_signal(int sig)
{
    (void) sig;
    read_buffer();
}

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
    ucontext_t *uc = ctx;
    (void) sig;
    (void) si;
    traps++;
    if (uc->uc_mcontext.gregs[REG_RIP] == (greg_t) hm_step_end)
        uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t) TF;
}

static void on_fpe(int sig)
{
    (void) sig;
    fpes++;
    siglongjmp(jb, 1);
}

/* Steps itself over code writing and reading p[0..7] and copying 40 bytes to p + 16. */
static void step_over(char *p)
{
    static const char src[64] = "0123456789abcdef0123456789abcdef0123456789abcdef";
    char *d = p + 16;
    const char *s = src;
    long n = 40;
    __asm__ volatile("pushfq\n\torq $0x100,(%%rsp)\n\tpopfq\n\t"
                     "movl $7,(%3)\n\t"
                     "movl 4(%3),%%eax\n\t"
                     "rep movsb\n\t"
                     "nop\n"
                     ".globl hm_step_end\nhm_step_end:\n\tnop\n"
                     : "+D"(d), "+S"(s), "+c"(n) : "r"(p) : "eax", "memory", "cc");
}

static void handle(int sig, void (*fn)(int), int full_mask)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = fn;
    if (full_mask)
        sigfillset(&sa.sa_mask);
    CHECK(sigaction(sig, &sa, NULL) == 0, "sigaction(%d) failed", sig);
}

/* The ways that wait with a mask, SIGUSR1 pending: its handler runs during the wait. */
static int is_wait(const char *way)
{
    return strcmp(way, "suspend") == 0 || strcmp(way, "ppoll") == 0 ||
           strcmp(way, "pselect") == 0 || strcmp(way, "epoll_pwait") == 0;
}

/* Waits with mask in the call way names; SIGUSR1 is pending, so each returns EINTR at once
 * (the timeouts only bound a wait that missed it). */
static void wait_with(const char *way, const sigset_t *mask)
{
    struct timespec t = { 5, 0 };
    int r;

    if (strcmp(way, "suspend") == 0) {
        sigsuspend(mask);
        return;
    }
    if (strcmp(way, "ppoll") == 0) {
        r = ppoll(NULL, 0, &t, mask);
    } else if (strcmp(way, "pselect") == 0) {
        r = pselect(0, NULL, NULL, NULL, &t, mask);
    } else {
        int ep = epoll_create1(0);
        struct epoll_event ev;
        CHECK(ep >= 0, "epoll_create1 failed");
        r = epoll_pwait(ep, &ev, 1, 5000, mask);
        close(ep);
    }
    CHECK(r < 0, "%s returned %d, expected -1 (EINTR)", way, r);
}

int main(int argc, char **argv)
{
    const char *way = argc > 1 ? argv[1] : "segv";
    long pg = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, N * sizeof(double) + 2 * pg, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *plain = malloc(256);
    static int want_traps;

    pt_init(&argc, &argv);
    page0 = map;
    buf = (double *) (map + 256);
    if (strcmp(way, "segv") == 0)
        handle(SIGSEGV, on_signal, 0);
    else if (strcmp(way, "usr1") == 0)
        handle(SIGUSR1, on_signal, 1);
    else if (is_wait(way))
        handle(SIGUSR1, on_signal, 0);
    if (strcmp(way, "tf") == 0 || strcmp(way, "int3") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_trap;
        sa.sa_flags = SA_SIGINFO;
        CHECK(sigaction(SIGTRAP, &sa, NULL) == 0, "sigaction(SIGTRAP) failed");
        handle(SIGFPE, on_fpe, 0);
        step_over(plain);           /* the reference: no guard anywhere near */
        want_traps = traps;
        traps = 0;
    }
    for (int r = 0; r < ROUNDS; r++) {
        round_m = r + 1;
        if (pt_rank == 1) {
            pt_fill(buf, N, round_m);
            usleep(100000);
            MPI_Send(buf, N, MPI_DOUBLE, 0, r, MPI_COMM_WORLD);
            continue;
        }
        if (pt_rank != 0)
            continue;
        MPI_Recv(buf, N, MPI_DOUBLE, 1, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (strcmp(way, "segv") == 0) {
            raise(SIGSEGV);
        } else if (strcmp(way, "usr1") == 0) {
            raise(SIGUSR1);
        } else if (is_wait(way)) {
            sigset_t usr1, was, wait;
            sigemptyset(&usr1);
            sigaddset(&usr1, SIGUSR1);
            sigprocmask(SIG_BLOCK, &usr1, &was);
            raise(SIGUSR1);
            sigfillset(&wait);
            sigdelset(&wait, SIGUSR1);
            wait_with(way, &wait);
            sigprocmask(SIG_SETMASK, &was, NULL);
        } else if (strcmp(way, "tf") == 0) {
            traps = 0;
            step_over(page0);
            CHECK(traps == want_traps, "round %d: %d traps of the program's single steps, "
                  "expected %d", r, traps, want_traps);
        } else {
            int before = traps;
            if (sigsetjmp(jb, 1) == 0) {
                page0[64] = 0;
                __asm__ volatile("movl $1,%%eax\n\tcltd\n\tidivl (%0)\n"
                                 : : "r"(page0 + 64) : "eax", "edx", "memory", "cc");
            }
            __asm__ volatile("int3");
            CHECK(traps == before + 1, "round %d: int3 after a stepped SIGFPE not delivered", r);
        }
        if (strcmp(way, "segv") == 0 || strcmp(way, "usr1") == 0 || is_wait(way))
            CHECK(reads == r + 1, "round %d: the handler ran %d times, expected %d", r, reads, r + 1);
        pt_check(buf, N, round_m, way);
    }
    CHECK(reads_bad == 0, "%d handler reads of the buffer differ from the message", reads_bad);
    CHECK(strcmp(way, "int3") != 0 || pt_rank != 0 || fpes == ROUNDS, "%d SIGFPE, expected %d",
          fpes, ROUNDS);
    free(plain);
    return aot_test_finish();
}
