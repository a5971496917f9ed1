/*
 * memkinds: buffers on the heap, in global data, in an anonymous mapping and on the stack.
 * Each is sent, touched at once, received and read at once.  The stack buffer must pass
 * through (never guarded); the CTest definition checks that reason in the statistics.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "paging_test.h"

#define N 3000
static double global_buf[N];

static void exchange(double *buf, int m, const char *what)
{
    if (pt_rank == 0) {
        pt_fill(buf, N, m);
        MPI_Send(buf, N, MPI_DOUBLE, 1, m, MPI_COMM_WORLD);
        for (int i = 0; i < N; i++)
            buf[i] = 0.0;
        MPI_Recv(buf, N, MPI_DOUBLE, 1, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pt_check(buf, N, m + 1, what);
    } else if (pt_rank == 1) {
        MPI_Recv(buf, N, MPI_DOUBLE, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pt_check(buf, N, m, what);
        pt_fill(buf, N, m + 1);
        MPI_Send(buf, N, MPI_DOUBLE, 0, m, MPI_COMM_WORLD);
        buf[0] = -1;
    }
}

int main(int argc, char **argv)
{
    double stack_buf[N];
    double *heap = malloc(N * sizeof(double));
    double *map = mmap(NULL, N * sizeof(double), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    for (int it = 0; it < 2; it++) {
        exchange(heap, 10 + it * 100, "heap");
        exchange(global_buf, 20 + it * 100, "global");
        exchange(map, 30 + it * 100, "mmap");
        exchange(stack_buf, 40 + it * 100, "stack");
    }
    munmap(map, N * sizeof(double));
    free(heap);
    return aot_test_finish();
}
