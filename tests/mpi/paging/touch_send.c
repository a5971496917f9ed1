/*
 * touch_send: the program writes into a buffer right after sending it (standard, synchronous
 * and ready mode); the receiver must get the values from before the write.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "paging_test.h"

int main(int argc, char **argv)
{
    /* sizes: less than a page, page-straddling, many pages */
    static const long sizes[] = { 3, 700, 1000, 131072 };

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    for (int mode = 0; mode < 3; mode++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            long n = sizes[s];
            int m = (int) (mode * 10 + s);
            double *a = malloc((size_t) n * sizeof(double));
            if (pt_rank == 0) {
                if (mode == 2)   /* ready mode: the receive must be posted first */
                    MPI_Recv(NULL, 0, MPI_BYTE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                pt_fill(a, n, m);
                if (mode == 0)
                    MPI_Send(a, (int) n, MPI_DOUBLE, 1, m, MPI_COMM_WORLD);
                else if (mode == 1)
                    MPI_Ssend(a, (int) n, MPI_DOUBLE, 1, m, MPI_COMM_WORLD);
                else
                    MPI_Rsend(a, (int) n, MPI_DOUBLE, 1, m, MPI_COMM_WORLD);
                /* touch at once: first the middle, then everything */
                a[n / 2] = -1.0;
                for (long i = 0; i < n; i++)
                    a[i] = -2.0;
            } else if (pt_rank == 1) {
                MPI_Request req;
                MPI_Irecv(a, (int) n, MPI_DOUBLE, 0, m, MPI_COMM_WORLD, &req);
                if (mode == 2)
                    MPI_Send(NULL, 0, MPI_BYTE, 0, 99, MPI_COMM_WORLD);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                pt_check(a, n, m, "received after the sender overwrote its buffer");
            }
            free(a);
        }
    return aot_test_finish();
}
