/*
 * crash: with converted requests pending, the program writes into memory it made
 * inaccessible itself.  That is a real fault: the process must die of SIGSEGV (with UCX's
 * usual backtrace) within seconds, not hang and not carry on.  Run through expect_signal.sh.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "paging_test.h"

#define N 100000

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double));
    volatile double *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    pt_init(&argc, &argv);
    if (pt_rank == 0 && pt_size > 1) {
        MPI_Recv(a, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* pending */
        bad[3] = 1.0;                                                             /* dies */
        printf("survived a write to a PROT_NONE page\n");
        fflush(stdout);
    } else if (pt_rank == 1) {
        sleep(30);       /* never reached in time: rank 0 must be gone long before */
        pt_fill(a, N, 1);
        MPI_Send(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
    return aot_test_finish();
}
