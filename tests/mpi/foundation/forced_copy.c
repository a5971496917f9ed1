/*
 * forced_copy.c: rank 0 sends 1 MiB to rank 1 50 times (each message's contents checked against
 * the values sent).  Under AUTOOPT_P2P_MODE=copy the sends are copied and the receives, which
 * have nothing to copy, run natively: the statistics must say it was the setting
 * (FORCED_MODE), not a benefit governor that never ran (NOT_PAYING; issue 55, item 10).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n = 1 << 18, errs = 0;
    int *buf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    buf = malloc((size_t) n * sizeof(int));
    if (!buf || size < 2)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int it = 0; it < 50; it++) {
        if (rank == 0) {
            for (int i = 0; i < n; i++)
                buf[i] = i + it;
            MPI_Send(buf, n, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(buf, n, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++)
                errs += buf[i] != i + it;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (errs)
            printf("Found %d errors\n", errs);
        else
            printf("No Errors\n");
    }
    free(buf);
    MPI_Finalize();
    return errs != 0;
}
