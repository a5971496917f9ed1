/*
 * errclass.c: errors come back exactly as without autoopt.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Under MPI_ERRORS_RETURN, a send to an invalid rank, a receive from one and a collective with
 * an invalid root return an error whose class equals the one PMPI gives for the same call.
 */
#include "aot_test.h"

static int class_of(int rc)
{
    int cls;
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    int rank, size, buf[4] = {0}, rc, ref;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    rc = MPI_Send(buf, 4, MPI_INT, size, 0, MPI_COMM_WORLD);
    ref = PMPI_Send(buf, 4, MPI_INT, size, 0, MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS, "send to rank %d succeeded", size);
    CHECK(class_of(rc) == class_of(ref) && class_of(rc) == MPI_ERR_RANK,
          "send: class %d, native %d, expected MPI_ERR_RANK %d", class_of(rc), class_of(ref),
          MPI_ERR_RANK);

    rc = MPI_Recv(buf, 4, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st);
    ref = PMPI_Recv(buf, 4, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st);
    CHECK(class_of(rc) == class_of(ref) && rc != MPI_SUCCESS, "recv: class %d, native %d",
          class_of(rc), class_of(ref));

    rc = MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    ref = PMPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    CHECK(class_of(rc) == class_of(ref) && class_of(rc) == MPI_ERR_COUNT,
          "negative count: class %d, native %d", class_of(rc), class_of(ref));

    rc = MPI_Bcast(buf, 4, MPI_INT, size, MPI_COMM_WORLD);
    ref = PMPI_Bcast(buf, 4, MPI_INT, size, MPI_COMM_WORLD);
    CHECK(class_of(rc) == class_of(ref) && class_of(rc) == MPI_ERR_ROOT,
          "bcast root: class %d, native %d", class_of(rc), class_of(ref));

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return aot_test_finish();
}
