/*
 * learn: a call site whose buffer is touched right after every conversion is learned and
 * then passes through (reason TOUCHED_AT_ONCE, checked in the statistics); a site whose
 * buffer is touched only later keeps being converted.  Data are checked throughout.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "paging_test.h"

#define N (1 << 17)

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double));

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    for (int it = 0; it < 10; it++) {
        if (pt_rank == 0) {
            pt_fill(a, N, it);
            MPI_Send(a, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
            a[0] = -1;                                   /* at once, every time */
        } else if (pt_rank == 1) {
            MPI_Recv(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(a, N, it, "learned site");
        }
    }
    return aot_test_finish();
}
