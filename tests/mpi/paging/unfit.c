/*
 * unfit: a converting call site whose calls cannot be converted (a send from a buffer on the
 * stack, which is never guarded or copied by paging), in the default configuration where the
 * site's benefit governor decides before the call is prepared.  Every message must arrive
 * intact; the CTest definition checks that the site's calls pass for their own reason (STACK)
 * once the governor first tried to convert one, and that none was converted.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "paging_test.h"

#define N 8192          /* 64 KiB of doubles */
#define ITERS 400

static void send_from_stack(int m)
{
    double buf[N];

    pt_fill(buf, N, m);
    MPI_Send(buf, N, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
    buf[0] = -1;        /* the buffer is the program's again at once */
}

int main(int argc, char **argv)
{
    double *heap = malloc(N * sizeof(double));

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    for (int m = 0; m < ITERS; m++) {
        if (pt_rank == 0) {
            send_from_stack(m);
        } else if (pt_rank == 1) {
            MPI_Recv(heap, N, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (pt_check(heap, N, m, "stack send"))
                break;
        }
    }
    free(heap);
    return aot_test_finish();
}
