/*
 * safety.c: correct MPI programs that guard-free chain mode got wrong (issue 15, finding 2).
 * Run in the default configuration: no setting may change their results.
 *
 *   send:  rank 0, each sweep, NZ times { fill buf; MPI_Send(buf) }, then one MPI_Recv.  The
 *          chain [Send, Recv] is learned at the sweep boundary; its first member also occurs
 *          outside it, and the program refills buf after MPI_Send returned (legal).
 *   recv:  rank 1, each sweep, NZ times MPI_Recv(r), reading r at once except after the last
 *          one, then an MPI_Send back: mid-sweep receives start the chain [Recv, Send].
 *   rare:  two MPI_Sendrecv per iteration; every 50th iteration the first receive buffer is read
 *          before the second call.
 * Every value received or read is compared with what the sender wrote.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "aot_test.h"

#define SWEEPS 12

static int rank, size;

static void *page_buffer(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n) != 0)
        abort();
    memset(p, 0, n);
    return p;
}

/* Value i of message (sweep, k) from rank src. */
static double val(int src, int sweep, int k, int i)
{
    return src * 1e9 + sweep * 1e6 + k * 1e4 + i;
}

/* Scenario "send" (bytes per message: n doubles), then "recv" with the roles as in the issue. */
static void sweeps(int nz, int n, int tag)
{
    double *buf = page_buffer((size_t) n * sizeof(double));
    double *back = page_buffer((size_t) n * sizeof(double));

    for (int sw = 0; sw < SWEEPS; sw++) {
        if (rank == 0) {
            for (int k = 0; k < nz; k++) {
                for (int i = 0; i < n; i++)
                    buf[i] = val(0, sw, k, i);
                MPI_Send(buf, n, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD);
            }
            MPI_Recv(back, n, MPI_DOUBLE, 1, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++)
                CHECK(back[i] == val(1, sw, 0, i), "tag %d sweep %d: reply[%d] = %g", tag, sw, i,
                      back[i]);
        } else if (rank == 1) {
            for (int k = 0; k < nz; k++) {
                MPI_Recv(buf, n, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (k < nz - 1)      /* read at once, except after the last one */
                    for (int i = 0; i < n; i++)
                        CHECK(buf[i] == val(0, sw, k, i), "tag %d sweep %d message %d: [%d] = %g",
                              tag, sw, k, i, buf[i]);
            }
            for (int i = 0; i < n; i++)
                CHECK(buf[i] == val(0, sw, nz - 1, i), "tag %d sweep %d last message: [%d] = %g",
                      tag, sw, i, buf[i]);
            for (int i = 0; i < n; i++)
                back[i] = val(1, sw, 0, i);
            MPI_Send(back, n, MPI_DOUBLE, 0, tag + 1, MPI_COMM_WORLD);
        }
    }
    free(buf);
    free(back);
}

static void rare(void)
{
    const int n = 16, iters = 200;
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *s1 = page_buffer(4096), *r1 = page_buffer(4096), *s2 = page_buffer(4096),
           *r2 = page_buffer(4096);

    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < n; i++) {
            s1[i] = val(rank, it, 1, i);
            s2[i] = val(rank, it, 2, i);
        }
        MPI_Sendrecv(s1, n, MPI_DOUBLE, right, 7, r1, n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (it % 50 == 49)
            for (int i = 0; i < n; i++)
                CHECK(r1[i] == val(left, it, 1, i), "rare: iteration %d: r1[%d] = %g before "
                      "the second call", it, i, r1[i]);
        MPI_Sendrecv(s2, n, MPI_DOUBLE, left, 8, r2, n, MPI_DOUBLE, right, 8, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) {
            CHECK(r1[i] == val(left, it, 1, i), "rare: iteration %d: r1[%d] = %g", it, i, r1[i]);
            CHECK(r2[i] == val(right, it, 2, i), "rare: iteration %d: r2[%d] = %g", it, i, r2[i]);
        }
    }
    free(s1);
    free(r1);
    free(s2);
    free(r2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    sweeps(4, 4096, 10);         /* 32 KiB: past UCX's eager copy */
    sweeps(2, 16, 20);           /* 128 B, nz = 2 */
    sweeps(3, 1024, 30);         /* 8 KiB */
    rare();
    return aot_test_finish();
}
