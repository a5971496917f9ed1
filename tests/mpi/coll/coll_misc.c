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
 * 5. A freed communicator's handle reused by MPI for one of another size: under
 *    coll.communicators.memo's tuning file a broadcast on 2 ranks runs MPI's own algorithm and
 *    on more ranks binomial, and a rank that kept the first decision for the handle
 *    (collectives/coll_run.c, aot_memo_call) would run MPI's while the others run binomial:
 *    the job would hang or broadcast the wrong data.  The other way round, a rank that kept
 *    the 4-rank communicator's binomial decision, and with it that communicator's freed state,
 *    for the next 2-rank communicator given its handle would run binomial on freed memory.
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

static void check_handle_reuse(int rank)
{
    int reused = 0, all = 0;

    for (int i = 0; i < 200; i++) {
        MPI_Comm c, pair;
        MPI_Comm old = MPI_COMM_NULL;
        int v[4], expect = 1000 * i + 7;

        MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
        if (pair != MPI_COMM_NULL) {
            for (int k = 0; k < 4; k++)
                v[k] = rank == 0 ? expect + k : -1;
            MPI_Bcast(v, 4, MPI_INT, 0, pair);
            for (int k = 0; k < 4; k++)
                CHECK(v[k] == expect + k, "pair %d: bcast got %d, expected %d", i, v[k],
                      expect + k);
            old = pair;
            MPI_Comm_free(&pair);
        }
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        if (old != MPI_COMM_NULL && c == old)
            reused++;
        for (int k = 0; k < 4; k++)
            v[k] = rank == 0 ? expect + 100 + k : -1;
        MPI_Bcast(v, 4, MPI_INT, 0, c);
        for (int k = 0; k < 4; k++)
            CHECK(v[k] == expect + 100 + k, "dup %d: bcast got %d, expected %d", i, v[k],
                  expect + 100 + k);
        MPI_Comm_free(&c);
    }
    /* that MPI reused a handle at all, or the case was not exercised (printed for the log) */
    MPI_Allreduce(&reused, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("handle reuse: the 2-rank communicator's handle came back for the duplicate "
               "%d times of 400 (2 ranks x 200)\n", all);
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
    check_handle_reuse(rank);
    check_self(rank);
    return aot_test_finish();
}
