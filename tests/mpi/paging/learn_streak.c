/*
 * learn_streak: when a call site is learned to touch its buffer at once (AUTOOPT_LEARN_TOUCH=3
 * conversions in a row), checked exactly through the statistics.  Rank 1 receives at two
 * sites.  Site B touches two receives at once, then one only after another MPI call
 * (MPI_Iprobe, which completes nothing: the streak ends either way, by that touch or by the
 * request retiring untouched): its streak never reaches 3 and it is never learned.  Site C
 * touches three at once, then one later: it is learned at its third receive and its later
 * calls pass (TOUCHED_AT_ONCE).  Rank 0 sends each message from a buffer of its own, written
 * before the first send and never again (its site learns nothing), after a pause that leaves rank 1's receive
 * pending when its call returns, so that rank 1's touch faults.  Data are checked throughout.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <unistd.h>

#include "paging_test.h"

#define N (1 << 13)          /* 64 KiB: above the snapshot size, guarded */
#define ROUNDS 12            /* receives per site */
#define PAUSE_US 30000

/* Another MPI call between a receive and its touch: the touch is no longer at once. */
static void touch_later(void)
{
    int flag = 0;
    MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    double *a, *out;
    int m = 0;

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    if (pt_rank == 0) {
        out = malloc((size_t) 2 * ROUNDS * N * sizeof(double));
        /* every buffer is written before the first send: a write next to a pending send
         * (they share pages) would be a touch of rank 0's own */
        for (m = 0; m < 2 * ROUNDS; m++)
            pt_fill(out + (size_t) m * N, N, m);
        for (m = 0; m < 2 * ROUNDS; m++) {
            usleep(PAUSE_US);
            MPI_Send(out + (size_t) m * N, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
        }
    } else if (pt_rank == 1) {
        a = malloc(N * sizeof(double));
        for (int it = 0; it < ROUNDS; it++, m++) {
            MPI_Recv(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* site B */
            if (it % 3 == 2)
                touch_later();
            pt_check(a, N, m, "site B");
        }
        for (int it = 0; it < ROUNDS; it++, m++) {
            MPI_Recv(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* site C */
            if (it % 4 == 3)
                touch_later();
            pt_check(a, N, m, "site C");
        }
    }
    return aot_test_finish();
}
