/*
 * large: 1 MiB and 64 MiB messages on the default shared-memory path (UCX uses CMA for them:
 * the receiving process reads the sender's buffer with process_vm_readv).  Send, Recv and
 * Sendrecv, touched at once on both sides.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "paging_test.h"

int main(int argc, char **argv)
{
    static const long sizes[] = { 1L << 17, 1L << 23 };   /* doubles: 1 MiB, 64 MiB */

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    for (size_t s = 0; s < 2; s++) {
        long n = sizes[s];
        double *a = malloc((size_t) n * sizeof(double)), *b = malloc((size_t) n * sizeof(double));
        int peer = pt_rank ^ 1;
        for (int it = 0; it < 2; it++) {
            int m = (int) (10 * s + it);
            if (peer >= pt_size)
                break;
            if (pt_rank == 0) {
                pt_fill(a, n, m);
                MPI_Send(a, (int) n, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
                a[n - 1] = -1;
                MPI_Recv(b, (int) n, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                pt_check(b, n, m + 1, "received back");
            } else if (pt_rank == 1) {
                MPI_Recv(a, (int) n, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                pt_check(a, n, m, "received");
                pt_fill(b, n, m + 1);
                MPI_Send(b, (int) n, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
                b[0] = -1;
            }
            if (peer < pt_size) {
                pt_fill(a, n, 100 + pt_rank);
                MPI_Sendrecv(a, (int) n, MPI_DOUBLE, peer, 3, b, (int) n, MPI_DOUBLE, peer, 3,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                a[0] = -1;
                pt_check(b, n, 100 + peer, "Sendrecv");
            }
        }
        free(a);
        free(b);
    }
    return aot_test_finish();
}
