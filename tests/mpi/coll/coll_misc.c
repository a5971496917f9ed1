/*
 * coll_misc.c: the communicator side of autoopt's collectives, with algorithms forced.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * 1. Isolation: a wildcard receive the program posted before a collective must not catch any
 *    message of the algorithm (they travel on autoopt's private duplicate), and must then get
 *    the program's own message.
 * 2. Intercommunicators go to MPI's own collective (checked by results; the statistics check
 *    in CMake counts the pass-through).
 * 3. Communicators created and freed in a loop, each used by collectives (the attribute's
 *    delete callback frees the private duplicate; MPICH has a limited number of context ids,
 *    so leaked duplicates would exhaust them).
 * 4. MPI_COMM_SELF.
 * Run with 2 or more ranks.
 */
#include <stdio.h>
#include <string.h>

#include "aot_test.h"

static void check_isolation(int rank, int size)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st;
    int got = -1, sum = -1, one = 1, flag = 0;

    if (rank == 0)
        MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    for (int i = 0; i < 5; i++) {
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == size, "allreduce: got %d, expected %d", sum, size);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Bcast(&sum, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
    }
    if (rank == 0) {
        MPI_Test(&req, &flag, &st);
        CHECK(!flag, "the program's wildcard receive matched a message: got %d tag %d from %d",
              got, st.MPI_TAG, st.MPI_SOURCE);
    }
    /* the program's own message leaves only after that test (MPI's own barrier) */
    PMPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1)
        MPI_Send(&size, 1, MPI_INT, 0, 42, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Wait(&req, &st);
        CHECK(got == size && st.MPI_TAG == 42 && st.MPI_SOURCE == size - 1,
              "wildcard receive got %d tag %d from %d", got, st.MPI_TAG, st.MPI_SOURCE);
    }
}

static void check_intercomm(int rank, int size)
{
    MPI_Comm local, inter;
    int color = rank % 2, remote_leader = color ? 0 : 1, lsize, rsize, sum = -1, value;

    if (size < 2)
        return;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 7, &inter);
    MPI_Comm_size(local, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    /* allreduce over an intercommunicator: each group gets the sum of the other group */
    value = color + 1;
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(sum == rsize * (color ? 1 : 2), "intercomm allreduce: got %d", sum);
    MPI_Barrier(inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

static void check_comm_cycle(int rank, int size)
{
    for (int i = 0; i < 3000; i++) {
        MPI_Comm c;
        int x = rank, sum = -1;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
        if (sum != size * (size - 1) / 2) {
            CHECK(0, "comm %d: allreduce got %d", i, sum);
            MPI_Comm_free(&c);
            break;
        }
        MPI_Comm_free(&c);
    }
}

static void check_self(int rank)
{
    int x = rank + 5, y = -1;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    CHECK(y == rank + 5, "COMM_SELF allreduce: got %d", y);
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_SELF);
    MPI_Barrier(MPI_COMM_SELF);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_isolation(rank, size);
    check_intercomm(rank, size);
    check_comm_cycle(rank, size);
    check_self(rank);
    return aot_test_finish();
}
