/*
 * overlap: (1) two sends whose elements share bytes, then writes to shared and to unshared
 * bytes; (2) a send and a receive on one page without shared bytes, then a write to the send's
 * bytes and a read of the receive's.  The peer delays its side so the requests are pending
 * when the program touches them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <unistd.h>

#include "paging_test.h"

static double area[512] __attribute__((aligned(4096)));   /* one page */

int main(int argc, char **argv)
{
    const long n = 2000;
    double *buf = malloc((size_t) n * sizeof(double));
    double *got = malloc((size_t) n * sizeof(double));

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    for (int it = 0; it < 3; it++) {
        if (pt_rank == 0) {
            /* (1) elements 500..1499 belong to both messages */
            pt_fill(buf, n, it);
            MPI_Ssend(buf, 1500, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
            MPI_Ssend(buf + 500, 1500, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
            buf[1000] = -1.0;                   /* shared: both sends first */
            buf[1800] = -2.0;                   /* second send only */
            buf[10] = -3.0;                     /* first send only */
            CHECK(buf[1000] == -1.0 && buf[1800] == -2.0 && buf[10] == -3.0, "writes lost");
            /* (2) bytes 0..1023 sent, bytes 2048..3071 received, same page */
            pt_fill(area, 128, 10 + it);
            MPI_Ssend(area, 128, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
            MPI_Recv(area + 256, 128, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            area[5] = -4.0;                     /* owned by the send: waits for it only */
            area[200] = -5.0;                   /* owned by nobody: false sharing */
            for (int i = 0; i < 128; i++)
                CHECK(area[256 + i] == pt_val(20 + it, i), "received element %d: %g", i,
                      area[256 + i]);
            CHECK(area[5] == -4.0 && area[200] == -5.0, "writes lost");
        } else if (pt_rank == 1) {
            usleep(100000);
            MPI_Recv(got, 1500, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(got, 1500, it, "first overlapping send");
            MPI_Recv(got, 1500, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < 1500; i++)
                CHECK(got[i] == pt_val(it, 500 + i), "second overlapping send element %d", i);
            usleep(100000);
            MPI_Recv(got, 128, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(got, 128, 10 + it, "send sharing a page with a receive");
            pt_fill(got, 128, 20 + it);
            usleep(50000);
            MPI_Send(got, 128, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
        }
    }
    free(buf);
    free(got);
    return aot_test_finish();
}
