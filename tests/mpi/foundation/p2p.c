/*
 * p2p.c: point-to-point calls through autoopt give the data, statuses and counts MPI gives.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every rank exchanges with its neighbours using every blocking and nonblocking form, with
 * contiguous and vector datatypes, MPI_ANY_SOURCE / MPI_ANY_TAG and MPI_PROC_NULL.  Expected
 * values are computed locally from the sender's rank.  Also calls MPI_Send through a function
 * pointer, which must compile under autoopt-mpicc too.
 */
#include <string.h>

#include "aot_test.h"

#define N 5000

static double value(int src, int i, int round) { return src * 1e6 + i + round * 0.5; }

static void fill(double *b, int src, int round)
{
    for (int i = 0; i < N; i++)
        b[i] = value(src, i, round);
}

static void check(const double *b, int src, int round, const char *what)
{
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += b[i] != value(src, i, round);
    CHECK(bad == 0, "%s: %d wrong elements from %d (round %d)", what, bad, src, round);
}

int main(int argc, char **argv)
{
    int rank, size, right, left, count;
    double *sbuf = malloc(N * sizeof(double)), *rbuf = malloc(N * sizeof(double));
    int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = MPI_Send;
    MPI_Status st;
    MPI_Request req[2];
    MPI_Status sts[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;

    /* 1. Send / Recv around the ring, even ranks first (works on any size, also 1 with Sendrecv). */
    for (int round = 0; round < 3; round++) {
        fill(sbuf, rank, round);
        memset(rbuf, 0, N * sizeof(double));
        if (size == 1) {
            MPI_Sendrecv(sbuf, N, MPI_DOUBLE, 0, round, rbuf, N, MPI_DOUBLE, 0, round,
                         MPI_COMM_WORLD, &st);
        } else if (rank % 2 == 0) {
            MPI_Send(sbuf, N, MPI_DOUBLE, right, round, MPI_COMM_WORLD);
            MPI_Recv(rbuf, N, MPI_DOUBLE, left, round, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(rbuf, N, MPI_DOUBLE, left, round, MPI_COMM_WORLD, &st);
            send_fn(sbuf, N, MPI_DOUBLE, right, round, MPI_COMM_WORLD);
        }
        check(rbuf, left, round, "send/recv");
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == round, "status %d/%d", st.MPI_SOURCE, st.MPI_TAG);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK(count == N, "count %d", count);
    }

    /* 2. Sendrecv with wildcards and a shorter message: count and status must say so. */
    fill(sbuf, rank, 7);
    MPI_Sendrecv(sbuf, N / 2, MPI_DOUBLE, right, 40 + rank, rbuf, N, MPI_DOUBLE, MPI_ANY_SOURCE,
                 MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 40 + left, "wildcard status %d/%d",
          st.MPI_SOURCE, st.MPI_TAG);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == N / 2, "wildcard count %d", count);
    MPI_Get_elements(&st, MPI_DOUBLE, &count);
    CHECK(count == N / 2, "wildcard elements %d", count);
    for (int i = 0; i < N / 2; i++)
        CHECK(rbuf[i] == value(left, i, 7), "sendrecv element %d", i);

    /* 3. Nonblocking requests pass through unchanged. */
    fill(sbuf, rank, 9);
    MPI_Irecv(rbuf, N, MPI_DOUBLE, left, 9, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(sbuf, N, MPI_DOUBLE, right, 9, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, sts); /* not MPI_STATUSES_IGNORE: GCC 12 -Wstringop-overflow */
    check(rbuf, left, 9, "isend/irecv");

    /* 4. A vector datatype: every other element. */
    {
        MPI_Datatype vec;
        MPI_Type_vector(N / 2, 1, 2, MPI_DOUBLE, &vec);
        MPI_Type_commit(&vec);
        fill(sbuf, rank, 11);
        for (int i = 0; i < N; i++)
            rbuf[i] = -1.0;
        MPI_Sendrecv(sbuf, 1, vec, right, 11, rbuf, 1, vec, left, 11, MPI_COMM_WORLD, &st);
        for (int i = 0; i < N; i++)
            CHECK(rbuf[i] == (i % 2 ? -1.0 : value(left, i, 11)), "vector element %d", i);
        MPI_Get_elements(&st, vec, &count);
        CHECK(count == N / 2, "vector elements %d", count);
        MPI_Type_free(&vec);
    }

    /* 5. MPI_PROC_NULL: a receive completes at once with the documented status. */
    MPI_Recv(rbuf, N, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
          "proc_null status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, count);

    /* 6. Cancelled receives (MPICH cancels a receive that nothing matched yet, and not one that
     *    a message matched): the status says which, and a cancelled receive takes nothing. */
    {
        int flag, v = -1, w = -1, x = 1000 + rank;
        MPI_Irecv(&v, 1, MPI_INT, left, 60, MPI_COMM_WORLD, &req[0]);
        MPI_Cancel(&req[0]);
        MPI_Wait(&req[0], &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(flag == 1 && v == -1, "unmatched receive: cancelled %d, value %d", flag, v);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Sendrecv(&x, 1, MPI_INT, right, 60, &v, 1, MPI_INT, left, 60, MPI_COMM_WORLD, &st);
        CHECK(v == 1000 + left, "the message after a cancel: %d", v);
        MPI_Test_cancelled(&st, &flag);
        CHECK(flag == 0, "a completed receive reads as cancelled");

        MPI_Irecv(&w, 1, MPI_INT, left, 61, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(&x, 1, MPI_INT, right, 61, MPI_COMM_WORLD, &req[1]);
        MPI_Wait(&req[1], &sts[1]);
        do                                /* the message has matched the receive */
            MPI_Request_get_status(req[0], &flag, MPI_STATUS_IGNORE);
        while (!flag);
        MPI_Cancel(&req[0]);              /* too late: it completes as received */
        MPI_Wait(&req[0], &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK(flag == 0, "a matched receive was cancelled");
        CHECK(w == 1000 + left && st.MPI_SOURCE == left && st.MPI_TAG == 61,
              "matched receive: value %d, status %d/%d", w, st.MPI_SOURCE, st.MPI_TAG);
    }

    free(sbuf);
    free(rbuf);
    return aot_test_finish();
}
