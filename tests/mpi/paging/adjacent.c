/*
 * adjacent: MPI reads its own small object that shares a page with a pending converted receive
 * (issue 15, finding 7).  In BLACS's Cdgerv2d MPICH read its datatype object 0x20 bytes before
 * the receive buffer while the receive was pending; the fault handler widened that 8-byte read
 * to 64 bytes, found the receive's bytes in the window, and since the read came from inside
 * MPI, killed the program.  Here the object is the program's own, read by an attribute delete
 * callback that MPI runs inside MPI_Comm_free (a call that never waits for pending requests):
 * an 8-byte read at A - 0x20, on A's first page.  The receive of 64 KiB into A is converted
 * (the default configuration) and still pending, since rank 0 sends only after a pause.  The
 * callback must read its value and the receive must deliver its data.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <time.h>

#include "paging_test.h"

#define N 8192                        /* doubles: 64 KiB */

static volatile double seen;

static int read_neighbour(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void) comm;
    (void) keyval;
    (void) extra;
    seen = *(volatile double *) attr;   /* one 8-byte load from inside MPI */
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    char *region = NULL;
    double *a, *obj;
    int keyval;
    MPI_Comm dup;

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    if (posix_memalign((void **) &region, 4096, 4 * 4096 + N * sizeof(double)) != 0)
        abort();
    a = (double *) (region + 4096 + 0x40);      /* A shares its first page ... */
    obj = (double *) ((char *) a - 0x20);        /* ... with the object 0x20 bytes before it */
    *obj = 42.0;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, read_neighbour, &keyval, NULL);
    for (int it = 0; it < 3; it++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_set_attr(dup, keyval, obj);
        if (pt_rank == 0) {
            struct timespec ts = { 0, 200 * 1000 * 1000 };
            nanosleep(&ts, NULL);               /* rank 1's receive is pending meanwhile */
            pt_fill(a, N, it);
            MPI_Send(a, N, MPI_DOUBLE, 1, it, MPI_COMM_WORLD);
        } else if (pt_rank == 1) {
            MPI_Recv(a, N, MPI_DOUBLE, 0, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        seen = 0;
        MPI_Comm_free(&dup);                    /* the callback reads *obj inside MPI */
        CHECK(seen == 42.0, "iteration %d: the callback read %g", it, seen);
        if (pt_rank == 1)
            pt_check(a, N, it, "received");
    }
    MPI_Comm_free_keyval(&keyval);
    free(region);
    return aot_test_finish();
}
