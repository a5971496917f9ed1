/*
 * read_recv: values read right after MPI_Recv, MPI_Sendrecv and MPI_Sendrecv_replace are the
 * received ones, also for messages shorter than the receive (the rest of the buffer unchanged)
 * and when the program reads the last element first.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "paging_test.h"

int main(int argc, char **argv)
{
    const long n = 5000;
    double *a, *b;

    pt_init(&argc, &argv);
    a = malloc((size_t) n * sizeof(double));
    b = malloc((size_t) n * sizeof(double));
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    for (int it = 0; it < 6; it++) {
        if (pt_rank == 0) {
            pt_fill(a, n, it);
            MPI_Send(a, (int) n, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
            MPI_Send(a, (int) (n / 3), MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
        } else if (pt_rank == 1) {
            for (long i = 0; i < n; i++)
                a[i] = -7.0;
            MPI_Recv(a, (int) n, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(a[n - 1] == pt_val(it, n - 1), "last element %g", a[n - 1]);
            pt_check(a, n, it, "MPI_Recv");
            for (long i = 0; i < n; i++)
                b[i] = -7.0;
            MPI_Recv(b, (int) n, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(b, n / 3, it, "short MPI_Recv");
            for (long i = n / 3; i < n; i++)
                CHECK(b[i] == -7.0, "element %ld past a short message changed: %g", i, b[i]);
        }
        /* Sendrecv and Sendrecv_replace in a ring */
        {
            int right = (pt_rank + 1) % pt_size, left = (pt_rank + pt_size - 1) % pt_size;
            pt_fill(a, n, 100 + pt_rank);
            MPI_Sendrecv(a, (int) n, MPI_DOUBLE, right, 3, b, (int) n, MPI_DOUBLE, left, 3,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(b, n, 100 + left, "MPI_Sendrecv");
            pt_fill(a, n, 200 + pt_rank);
            MPI_Sendrecv_replace(a, (int) n, MPI_DOUBLE, right, 4, left, 4, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
            pt_check(a, n, 200 + left, "MPI_Sendrecv_replace");
        }
    }
    free(a);
    free(b);
    return aot_test_finish();
}
