/*
 * status: statuses of converted receives answer as MPI's would.  MPI_SOURCE and MPI_TAG are
 * right at once, MPI_ERROR is left as it was (MPICH does not set it for single-request calls),
 * MPI_Get_count / MPI_Get_elements / MPI_Get_elements_x give the received size (also for short
 * messages, derived types and copies of the status), MPI_Test_cancelled says false, a receive
 * from MPI_PROC_NULL and a wildcard receive fill the status as MPI does.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <unistd.h>

#include "paging_test.h"

int main(int argc, char **argv)
{
    const int n = 4000;
    double *a = malloc((size_t) n * sizeof(double));
    MPI_Datatype pair;

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    for (int it = 0; it < 3; it++) {
        if (pt_rank == 0) {
            pt_fill(a, n, it);
            usleep(20000);                       /* the receives are pending when queried */
            MPI_Send(a, 1234, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
            MPI_Send(a, 1235, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD);
            MPI_Send(a, 100, MPI_DOUBLE, 1, 9, MPI_COMM_WORLD);
            MPI_Send(a, 50, MPI_DOUBLE, 1, 10, MPI_COMM_WORLD);
            MPI_Sendrecv(a, 10, MPI_DOUBLE, 1, 11, a + 100, 20, MPI_DOUBLE, 1, 12,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (pt_rank == 1) {
            MPI_Status s, copy, s2, s3, s4, s5;
            int cnt = -2, el = -2, flag = 1;
            MPI_Count elx = -2;

            s.MPI_ERROR = 12345;
            MPI_Recv(a, n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &s);
            CHECK(s.MPI_SOURCE == 0 && s.MPI_TAG == 7, "source %d tag %d", s.MPI_SOURCE, s.MPI_TAG);
            CHECK(s.MPI_ERROR == 12345, "MPI_ERROR changed to %d", s.MPI_ERROR);
            copy = s;
            MPI_Test_cancelled(&s, &flag);
            CHECK(flag == 0, "MPI_Test_cancelled says cancelled");
            MPI_Get_count(&s, MPI_DOUBLE, &cnt);
            CHECK(cnt == 1234, "MPI_Get_count %d", cnt);
            MPI_Get_count(&copy, MPI_DOUBLE, &cnt);
            CHECK(cnt == 1234, "MPI_Get_count of a copy %d", cnt);
            MPI_Get_elements(&s, MPI_DOUBLE, &el);
            CHECK(el == 1234, "MPI_Get_elements %d", el);
            MPI_Get_count(&s, pair, &cnt);
            CHECK(cnt == 617, "MPI_Get_count in pairs %d", cnt);
            pt_check(a, 1234, it, "first message");

            /* an odd number of doubles received as pairs */
            MPI_Recv(a, n / 2, pair, 0, 8, MPI_COMM_WORLD, &s2);
            MPI_Get_count(&s2, pair, &cnt);
            CHECK(cnt == MPI_UNDEFINED, "partial pair count %d", cnt);
            MPI_Get_elements(&s2, pair, &el);
            CHECK(el == 1235, "MPI_Get_elements of pairs %d", el);
            MPI_Get_elements_x(&s2, pair, &elx);
            CHECK(elx == 1235, "MPI_Get_elements_x of pairs %lld", (long long) elx);

            /* the count queried only after a later receive */
            MPI_Recv(a, n, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, &s3);
            MPI_Recv(a + 200, n - 200, MPI_DOUBLE, 0, 10, MPI_COMM_WORLD, &s4);
            MPI_Get_count(&s4, MPI_DOUBLE, &cnt);
            CHECK(cnt == 50, "fourth count %d", cnt);
            MPI_Get_count(&s3, MPI_DOUBLE, &cnt);
            CHECK(cnt == 100, "third count %d", cnt);

            MPI_Sendrecv(a + 1000, 20, MPI_DOUBLE, 0, 12, a + 2000, 30, MPI_DOUBLE, 0, 11,
                         MPI_COMM_WORLD, &s5);
            MPI_Get_count(&s5, MPI_DOUBLE, &cnt);
            CHECK(s5.MPI_SOURCE == 0 && s5.MPI_TAG == 11 && cnt == 10,
                  "sendrecv status %d %d %d", s5.MPI_SOURCE, s5.MPI_TAG, cnt);
        }
        /* MPI_PROC_NULL and wildcards, compared with a reference made by MPI itself */
        {
            MPI_Status s, ref;
            int cnt = -2, right = (pt_rank + 1) % pt_size, left = (pt_rank + pt_size - 1) % pt_size;
            MPI_Recv(a, n, MPI_DOUBLE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &s);
            PMPI_Recv(a, n, MPI_DOUBLE, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &ref);
            MPI_Get_count(&s, MPI_DOUBLE, &cnt);
            CHECK(s.MPI_SOURCE == MPI_PROC_NULL && s.MPI_TAG == ref.MPI_TAG && cnt == 0,
                  "MPI_PROC_NULL status %d %d %d", s.MPI_SOURCE, s.MPI_TAG, cnt);
            MPI_Sendrecv(a, 10, MPI_DOUBLE, MPI_PROC_NULL, 1, a + 10, 10, MPI_DOUBLE,
                         MPI_PROC_NULL, 1, MPI_COMM_WORLD, &s);
            CHECK(s.MPI_SOURCE == MPI_PROC_NULL, "sendrecv MPI_PROC_NULL source %d", s.MPI_SOURCE);
            pt_fill(a, 300, 50 + pt_rank);
            MPI_Sendrecv(a, 300, MPI_DOUBLE, right, 20 + pt_rank, a + 1000, 400, MPI_DOUBLE,
                         MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
            MPI_Get_count(&s, MPI_DOUBLE, &cnt);
            CHECK(s.MPI_SOURCE == left && s.MPI_TAG == 20 + left && cnt == 300,
                  "wildcard status %d %d %d", s.MPI_SOURCE, s.MPI_TAG, cnt);
            for (int i = 0; i < 300; i++)
                CHECK(a[1000 + i] == pt_val(50 + left, i), "wildcard data %d", i);
        }
    }
    MPI_Type_free(&pair);
    free(a);
    return aot_test_finish();
}
