/*
 * longjmp_mask: a jump back to a sigsetjmp(env, 1) made while SIGSEGV was blocked, with a
 * converted receive pending (issue 55, second adversarial review).  glibc's siglongjmp,
 * longjmp and _longjmp (and the fortified __longjmp_chk a -D_FORTIFY_SOURCE=2 build calls)
 * restore the saved mask with glibc's internal sigprocmask: SIGSEGV is blocked again while
 * the buffer is guarded, and the next touch of it is not delivered: the kernel kills.
 * For each way, rank 0 blocks SIGSEGV, saves the point with sigsetjmp(env, 1), unblocks,
 * receives 1 MiB (rank 1 sends after 0.1 s: the receive is pending and guarded), jumps back,
 * checks that SIGSEGV is blocked again, reads the buffer, receives and reads another one while
 * blocked, then unblocks.  Every buffer is compared with the pattern sent.  Before this change
 * (AUTOOPT_P2P_MODE=guarded) rank 0 died of SIGSEGV at the first read.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paging_test.h"

#define N (1L << 17)            /* doubles: 1 MiB */
#define NWAYS 3

static const char *const way_name[NWAYS] = { "siglongjmp", "longjmp", "_longjmp" };
static sigjmp_buf env;

static void jump(int w)
{
    if (w == 0)
        siglongjmp(env, 1);
    else if (w == 1)
        longjmp(env, 1);
    _longjmp(env, 1);
}

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double)), *b = malloc(N * sizeof(double));
    sigset_t segv, was, now;

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    for (int w = 0; w < NWAYS; w++) {
        int m = 10 * w;
        if (pt_rank == 0) {
            CHECK(sigprocmask(SIG_BLOCK, &segv, &was) == 0, "sigprocmask failed");
            if (sigsetjmp(env, 1) == 0) {
                CHECK(sigprocmask(SIG_SETMASK, &was, NULL) == 0, "sigprocmask failed");
                MPI_Recv(a, N, MPI_DOUBLE, 1, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                jump(w);
            }
            CHECK(sigprocmask(SIG_BLOCK, NULL, &now) == 0 && sigismember(&now, SIGSEGV) == 1,
                  "SIGSEGV is not blocked after the jump");
            pt_check(a, N, m, way_name[w]);           /* read while blocked */
            MPI_Recv(b, N, MPI_DOUBLE, 1, m + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(b, N, m + 1, way_name[w]);
            CHECK(sigprocmask(SIG_SETMASK, &was, NULL) == 0, "sigprocmask failed");
            MPI_Recv(b, N, MPI_DOUBLE, 1, m + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(b, N, m + 2, way_name[w]);       /* unblocked again: guarded */
        } else if (pt_rank == 1) {
            pt_fill(a, N, m);
            usleep(100000);
            MPI_Send(a, N, MPI_DOUBLE, 0, m, MPI_COMM_WORLD);
            pt_fill(b, N, m + 1);
            MPI_Send(b, N, MPI_DOUBLE, 0, m + 1, MPI_COMM_WORLD);
            pt_fill(a, N, m + 2);
            MPI_Send(a, N, MPI_DOUBLE, 0, m + 2, MPI_COMM_WORLD);
        }
    }
    free(a);
    free(b);
    return aot_test_finish();
}
