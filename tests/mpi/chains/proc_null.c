/*
 * proc_null.c: chain members with an MPI_PROC_NULL side.  Ranks on an open line exchange with
 * both neighbours every iteration (three MPI_Sendrecv; the end ranks' missing neighbour is
 * MPI_PROC_NULL).  In chain mode a side to MPI_PROC_NULL starts no request, so the checks are
 * MPI's rules for it: a receive from MPI_PROC_NULL leaves its buffer as it was, and a status the
 * program reads says MPI_SOURCE = MPI_PROC_NULL, MPI_TAG = MPI_ANY_TAG, count 0.  Data from
 * real neighbours must be this iteration's.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "aot_test.h"

#define N 64
#define ITERS 60
#define UNTOUCHED -12345.0

static double value(int rank, int it, int which, int i)
{
    return rank * 1e6 + it * 1e3 + which * 100 + i;
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double *s1 = malloc(N * sizeof(double)), *r1 = malloc(N * sizeof(double));
    double *s2 = malloc(N * sizeof(double)), *r2 = malloc(N * sizeof(double));
    double *s3 = malloc(N * sizeof(double)), *r3 = malloc(N * sizeof(double));

    for (int it = 0; it < ITERS; it++) {
        MPI_Status st;
        int count = -1;
        for (int i = 0; i < N; i++) {
            s1[i] = value(rank, it, 1, i);
            s2[i] = value(rank, it, 2, i);
            s3[i] = value(rank, it, 3, i);
            r1[i] = r2[i] = r3[i] = UNTOUCHED;
        }
        /* to the right, from the left; to the left, from the right (status read) */
        MPI_Sendrecv(s1, N, MPI_DOUBLE, right, 1, r1, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        st.MPI_SOURCE = st.MPI_TAG = -999;      /* so that a status left unset shows */
        MPI_Sendrecv(s2, N, MPI_DOUBLE, left, 2, r2, N, MPI_DOUBLE, right, 2, MPI_COMM_WORLD,
                     &st);
        /* a third member with both sides MPI_PROC_NULL on every rank */
        MPI_Sendrecv(s3, N, MPI_DOUBLE, MPI_PROC_NULL, 3, r3, N, MPI_DOUBLE, MPI_PROC_NULL, 3,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Get_count(&st, MPI_DOUBLE, &count);   /* an MPI call: ends the phase, after the chain */
        if (right == MPI_PROC_NULL)
            CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0,
                  "iteration %d: status from MPI_PROC_NULL: source %d tag %d count %d", it,
                  st.MPI_SOURCE, st.MPI_TAG, count);
        else
            CHECK(st.MPI_SOURCE == right && st.MPI_TAG == 2 && count == N,
                  "iteration %d: status: source %d tag %d count %d", it, st.MPI_SOURCE,
                  st.MPI_TAG, count);
        int bad = -1;
        for (int i = 0; i < N && bad < 0; i++) {
            double e1 = left == MPI_PROC_NULL ? UNTOUCHED : value(left, it, 1, i);
            double e2 = right == MPI_PROC_NULL ? UNTOUCHED : value(right, it, 2, i);
            if (r1[i] != e1 || r2[i] != e2 || r3[i] != UNTOUCHED)
                bad = i;
        }
        CHECK(bad < 0, "iteration %d: wrong value at %d", it, bad);
    }
    free(s1); free(r1); free(s2); free(r2); free(s3); free(r3);
    return aot_test_finish();
}
