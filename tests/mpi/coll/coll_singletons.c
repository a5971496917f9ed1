/*
 * coll_singletons.c: collectives on communicators of one rank under a tuning file
 * (issue 55, item 10).  SPDX-License-Identifier: GPL-2.0-or-later
 *
 * MPI_Comm_split into singletons (as ARMCI makes them) and MPI_COMM_SELF: allreduce, bcast
 * and barrier on each, results compared with what one rank must get.  Then a 3-rank
 * communicator (ranks 0-2 of 4) runs allreduce, compared with the serial sum.  Under
 * coll.tuning.singletons' file (rules for 4 ranks only) a 1-rank collective needs no rule and
 * autoopt says nothing about it, while the 3-rank communicator still gets the warning that the
 * file has no rules for its size (the CMake test checks both lines).  Run with 4 ranks.
 */
#include <stdio.h>

#include "aot_test.h"

#define N 1000

/* allreduce, bcast and barrier on a 1-rank communicator */
static void check_one(MPI_Comm c, int rank, const char *what)
{
    static int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = rank * N + i;
    MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, c);
    for (int i = 0; i < N; i++)
        CHECK(out[i] == in[i], "%s: allreduce [%d]: got %d, expected %d", what, i, out[i], in[i]);
    MPI_Bcast(out, N, MPI_INT, 0, c);
    for (int i = 0; i < N; i++)
        CHECK(out[i] == in[i], "%s: bcast [%d]: got %d, expected %d", what, i, out[i], in[i]);
    MPI_Barrier(c);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Comm single, three;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 4, "run with 4 ranks, not %d", size);
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &single);
    for (int round = 0; round < 3; round++) {
        check_one(single, rank, "split singleton");
        check_one(MPI_COMM_SELF, rank, "MPI_COMM_SELF");
    }
    MPI_Comm_free(&single);

    /* a real mismatch: 3 ranks, for which the file has no rules */
    MPI_Comm_split(MPI_COMM_WORLD, rank < 3 ? 0 : 1, rank, &three);
    if (rank < 3) {
        int in[N], out[N];
        for (int i = 0; i < N; i++)
            in[i] = rank + i;
        MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, three);
        for (int i = 0; i < N; i++)
            CHECK(out[i] == 3 + 3 * i, "3 ranks: allreduce [%d]: got %d, expected %d", i,
                  out[i], 3 + 3 * i);
    }
    MPI_Comm_free(&three);
    return aot_test_finish();
}
