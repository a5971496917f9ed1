/*
 * interleaved: two receives of rows of one column-major matrix, whose bytes interleave on the
 * same pages (found by autoopt-validate --full under AUTOOPT_CONVERT_MIN=0: ScaLAPACK's xdnep
 * and xsnep died in pdlahqr's dgerv2d calls).  A receive with a datatype that has gaps is
 * converted through a packed copy: posting it packs the buffer first, so that the bytes the
 * message does not overwrite come back unchanged.  Here row 0's receive is still pending (rank
 * 0 sends after a pause) when row 1's is posted, so row 1's pack reads its own bytes on pages
 * that row 0's guard made no-access.  The handler took row 1's request, pending but not yet
 * guarded, for the owner of those bytes and, the read being inside autoopt, killed the
 * program.  Both rows must arrive and every other element keep its value.  Each row is
 * 8192 doubles (64 KiB): converted in the default configuration.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <time.h>

#include "paging_test.h"

#define LD 16                          /* rows (leading dimension) */
#define NCOL 8192                      /* columns: a row is 64 KiB */
#define ROUNDS 3

int main(int argc, char **argv)
{
    double *m = NULL, *row = NULL;
    MPI_Datatype rowtype;

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    if (posix_memalign((void **) &m, 4096, (size_t) LD * NCOL * sizeof(double)) != 0 ||
        (row = malloc(NCOL * sizeof(double))) == NULL)
        abort();
    MPI_Type_vector(NCOL, 1, LD, MPI_DOUBLE, &rowtype);
    MPI_Type_commit(&rowtype);
    for (int it = 0; it < ROUNDS; it++) {
        if (pt_rank == 0) {
            struct timespec ts = { 0, 200 * 1000 * 1000 };
            nanosleep(&ts, NULL);               /* rank 1's first receive is pending meanwhile */
            for (int r = 0; r < 2; r++) {
                pt_fill(row, NCOL, 10 * it + r);
                MPI_Send(row, NCOL, MPI_DOUBLE, 1, r, MPI_COMM_WORLD);
            }
        } else if (pt_rank == 1) {
            /* every element -1 - its index: what no message carries */
            for (long i = 0; i < (long) LD * NCOL; i++)
                m[i] = -1.0 - (double) i;
            MPI_Recv(&m[0], 1, rowtype, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&m[1], 1, rowtype, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (long j = 0; j < NCOL; j++)
                for (long i = 0; i < LD; i++) {
                    double want = i < 2 ? pt_val(10 * it + (int) i, j) : -1.0 - (double) (j * LD + i);
                    if (m[j * LD + i] != want) {
                        CHECK(0, "round %d: m(%ld,%ld) is %g, expected %g", it, i, j,
                              m[j * LD + i], want);
                        j = NCOL;
                        break;
                    }
                }
        }
    }
    MPI_Type_free(&rowtype);
    free(row);
    free(m);
    return aot_test_finish();
}
