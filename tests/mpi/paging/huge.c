/*
 * huge: receives of more than INT_MAX bytes.  Rank 0 sends 270,000,000 doubles (2.16 GB) with
 * MPI_DOUBLE, then 2,049 elements of a contiguous type of 1 MiB; rank 1 receives each into a
 * zeroed buffer, counts the wrong elements and checks MPI_Get_count.  Before 2026-11-24 a
 * converted receive sized its copy-out with MPI_Get_count(MPI_BYTE), which is MPI_UNDEFINED
 * above INT_MAX bytes: nothing was delivered, silently.
 * Memory: about 2.2 GB per rank natively, twice that on rank 1 under autoopt (its shadow).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "paging_test.h"

static void one(MPI_Datatype dt, int count, long ndoubles, int m)
{
    double *a = calloc((size_t) ndoubles, sizeof(double));
    if (!a) {
        CHECK(0, "cannot allocate %ld doubles", ndoubles);
        return;
    }
    if (pt_rank == 0) {
        pt_fill(a, ndoubles, m);
        MPI_Send(a, count, dt, 1, m, MPI_COMM_WORLD);
    } else if (pt_rank == 1) {
        MPI_Status st;
        int got = -1;
        MPI_Count got_c = -1;
        MPI_Recv(a, count, dt, 0, m, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, dt, &got);
        CHECK(got == count, "message %d: MPI_Get_count gives %d, expected %d", m, got, count);
        MPI_Get_count_c(&st, MPI_BYTE, &got_c);
        CHECK(got_c == (MPI_Count) ndoubles * 8, "message %d: MPI_Get_count_c(MPI_BYTE) gives %lld",
              m, (long long) got_c);
        int bad = pt_check(a, ndoubles, m, "huge receive");
        CHECK(bad == 0, "message %d: %d of %ld elements wrong", m, bad, ndoubles);
    }
    free(a);
}

int main(int argc, char **argv)
{
    const long n = 270000000L;                 /* 2.16 GB of doubles */
    const long per = (1L << 20) / 8;           /* doubles in 1 MiB */
    MPI_Datatype mib;

    pt_init(&argc, &argv);
    if (pt_size != 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    one(MPI_DOUBLE, (int) n, n, 1);
    MPI_Type_contiguous((int) per, MPI_DOUBLE, &mib);
    MPI_Type_commit(&mib);
    one(mib, 2049, 2049 * per, 2);
    MPI_Type_free(&mib);
    return aot_test_finish();
}
