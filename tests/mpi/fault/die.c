/*
 * die null | die overflow: with a converted receive pending, rank 0 writes through a null
 * pointer, or recurses without end (1 KiB of volatile data per frame) until its stack is
 * exhausted.  Either way it must die of SIGSEGV within seconds, with UCX's "Caught signal 11"
 * and backtrace, as it does without autoopt; under autoopt an overflow, and only an overflow,
 * also gets the line "autoopt[0]: stack overflow ...".  Run through ../paging/expect_signal.sh.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <unistd.h>

#include "paging_test.h"

#define N 100000

static volatile long never = -1;   /* a way out the compiler cannot rule out */

static long deeper(long n)
{
    volatile char frame[1024];
    if (n == never)
        return 0;
    frame[0] = (char) n;
    frame[sizeof(frame) - 1] = (char) n;
    return deeper(n + 1) + frame[0] + frame[sizeof(frame) - 1];
}

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double));
    int overflow = argc > 1 && strcmp(argv[1], "overflow") == 0;
    volatile int *volatile null = NULL;

    pt_init(&argc, &argv);
    if (pt_rank == 0 && pt_size > 1) {
        MPI_Recv(a, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);   /* pending */
        if (overflow)
            printf("survived a stack overflow: %ld\n", deeper(0));
        else
            *null = 1;
        printf("survived a write through a null pointer\n");
        fflush(stdout);
    } else if (pt_rank == 1) {
        pt_fill(a, N, 1);
        MPI_Send(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);   /* natively the receive completes */
        sleep(30);       /* still here when rank 0 dies: the job must end because of it */
    }
    return aot_test_finish();
}
