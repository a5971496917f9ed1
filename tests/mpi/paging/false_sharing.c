/*
 * false_sharing: two receives guard one page; the program writes an unrelated variable on that
 * page before the messages can have been sent.  The write must go ahead without waiting: the
 * peer sends only after it got a message the program sends after the write, so a wait at the
 * write would deadlock (CTest's timeout).  The statistics check (CMakeLists.txt) also requires
 * that false-sharing faults happened and that no request was waited for by anything but the
 * two reads of the received data.  Without conversion the program deadlocks by design (its
 * blocking receives wait for messages sent only later), so it runs only under autoopt.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "paging_test.h"

static struct {
    char a[512];
    char pad1[1024];
    char b[512];
    char pad2[1024];
    volatile int c;                   /* unrelated, 1 KiB from the nearest received byte */
} page __attribute__((aligned(4096)));
static int go = 1;

int main(int argc, char **argv)
{
    char ref[512];

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    for (int i = 0; i < 512; i++)
        ref[i] = (char) (i * 7 + 1);
    if (pt_rank == 0) {
        MPI_Recv(page.a, 512, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(page.b, 512, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        page.c = 42;                                   /* false sharing: no wait */
        MPI_Send(&go, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
        CHECK(memcmp(page.a, ref, 512) == 0, "first message wrong");
        for (int i = 0; i < 512; i++)
            CHECK(page.b[i] == (char) (ref[i] + 1), "second message wrong at %d", i);
        CHECK(page.c == 42, "unrelated variable lost its value: %d", page.c);
    } else if (pt_rank == 1) {
        static char out[2][512];
        int g = 0;
        for (int i = 0; i < 512; i++) {
            out[0][i] = ref[i];
            out[1][i] = (char) (ref[i] + 1);
        }
        MPI_Recv(&g, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out[0], 512, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        MPI_Send(out[1], 512, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    }
    return aot_test_finish();
}
