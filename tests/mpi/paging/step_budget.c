/*
 * step_budget: a receive guards a page and the program then works on other data of that page
 * in a loop (a halo row next to the rows a solver sweeps, small heap buffers sharing a page).
 * Single-stepping every one of those accesses would cost a fault each; past a small budget the
 * handler waits for the receive instead, and the loop runs free.  The message is sent late
 * (the sender sleeps first), so the receive is still pending while the loop starts.  The data
 * and the loop's result are checked here; the statistics check (CMakeLists.txt) requires one
 * budget wait and only a handful of false-sharing faults for the 10000 writes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <unistd.h>

#include "paging_test.h"

static struct {
    double halo[64];                  /* 512 B received */
    double rows[448];                 /* the rest of the page: worked on meanwhile */
} page __attribute__((aligned(4096)));

int main(int argc, char **argv)
{
    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    if (pt_rank == 0) {
        double sum = 0.0;
        MPI_Recv(page.halo, 64, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int it = 0; it < 10000; it++) {
            page.rows[it % 448] += 1.0;
            __asm__ volatile("" ::: "memory");
        }
        for (int i = 0; i < 448; i++)
            sum += page.rows[i];
        CHECK(sum == 10000.0, "the loop's writes were lost: sum %g, expected 10000", sum);
        pt_check(page.halo, 64, 1, "received halo");
    } else if (pt_rank == 1) {
        static double out[64];
        pt_fill(out, 64, 1);
        usleep(200 * 1000);
        MPI_Send(out, 64, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
    return aot_test_finish();
}
