/*
 * coll.c: every blocking collective through autoopt gives what MPI's own gives.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The reference is computed in the same run with the PMPI_ entry point, which autoopt does not
 * intercept.  Integer data must match exactly; the double sums use integer-valued doubles, so
 * they are exact in any order.  Runs with whatever AUTOOPT_* settings CTest gives it.
 */
#include <string.h>

#include "aot_test.h"

#define MAXC 1031   /* a count that is not a multiple of any rank count used */

static void same_ints(const int *a, const int *b, int n, const char *what)
{
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) {
            if (first < 0)
                first = i;
            bad++;
        }
    CHECK(bad == 0, "%s: %d of %d elements differ, first at %d", what, bad, n, first);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int total = MAXC * size;
    int *s = malloc(sizeof(int) * total), *r = malloc(sizeof(int) * total);
    int *ref = malloc(sizeof(int) * total);
    int *cnt = malloc(sizeof(int) * size), *dsp = malloc(sizeof(int) * size);
    double *ds = malloc(sizeof(double) * MAXC), *dr = malloc(sizeof(double) * MAXC);
    double *dref = malloc(sizeof(double) * MAXC);
    static const int counts[] = {0, 1, 7, MAXC};

    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
        int n = counts[ci];
        for (int i = 0; i < total; i++)
            s[i] = rank * 100003 + i * 7 + n;
        for (int i = 0; i < MAXC; i++)
            ds[i] = (double) (rank + 1) * (i + 1);

        for (int root = 0; root < size; root += (size > 2 ? size - 1 : 1)) {
            memcpy(r, s, sizeof(int) * total);
            memcpy(ref, s, sizeof(int) * total);
            MPI_Bcast(r, n, MPI_INT, root, MPI_COMM_WORLD);
            PMPI_Bcast(ref, n, MPI_INT, root, MPI_COMM_WORLD);
            same_ints(r, ref, n, "bcast");

            memset(r, 0, sizeof(int) * total);
            memset(ref, 0, sizeof(int) * total);
            MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
            PMPI_Reduce(s, ref, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
            if (rank == root)
                same_ints(r, ref, n, "reduce");

            memset(r, 0, sizeof(int) * total);
            memset(ref, 0, sizeof(int) * total);
            MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
            PMPI_Gather(s, n, MPI_INT, ref, n, MPI_INT, root, MPI_COMM_WORLD);
            if (rank == root)
                same_ints(r, ref, n * size, "gather");

            MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
            PMPI_Scatter(s, n, MPI_INT, ref, n, MPI_INT, root, MPI_COMM_WORLD);
            same_ints(r, ref, n, "scatter");
        }

        memset(r, 0, sizeof(int) * total);
        MPI_Allreduce(s, r, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        PMPI_Allreduce(s, ref, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        same_ints(r, ref, n, "allreduce max");

        memcpy(r, s, sizeof(int) * total);
        MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Allreduce(s, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        same_ints(r, ref, n, "allreduce in place");

        MPI_Allreduce(ds, dr, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Allreduce(ds, dref, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            CHECK(dr[i] == dref[i], "allreduce double %d: %g != %g", i, dr[i], dref[i]);

        MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
        PMPI_Allgather(s, n, MPI_INT, ref, n, MPI_INT, MPI_COMM_WORLD);
        same_ints(r, ref, n * size, "allgather");

        MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
        PMPI_Alltoall(s, n, MPI_INT, ref, n, MPI_INT, MPI_COMM_WORLD);
        same_ints(r, ref, n * size, "alltoall");

        /* v-variants: rank i contributes (n + i) % (n + 1) elements. */
        int off = 0;
        for (int i = 0; i < size; i++) {
            cnt[i] = (n + i) % (n + 1);
            dsp[i] = off;
            off += cnt[i];
        }
        MPI_Allgatherv(s, cnt[rank], MPI_INT, r, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
        PMPI_Allgatherv(s, cnt[rank], MPI_INT, ref, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
        same_ints(r, ref, off, "allgatherv");

        /* alltoallv: rank i sends c(i,j) = (i + j + n) % (n + 1) elements to rank j; c is
         * symmetric, so what j expects from i is the same number. */
        off = 0;
        for (int j = 0; j < size; j++) {
            cnt[j] = (rank + j + n) % (n + 1);
            dsp[j] = off;
            off += cnt[j];
        }
        MPI_Alltoallv(s, cnt, dsp, MPI_INT, r, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
        PMPI_Alltoallv(s, cnt, dsp, MPI_INT, ref, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
        same_ints(r, ref, off, "alltoallv");

        MPI_Scan(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Scan(s, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        same_ints(r, ref, n, "scan");

        MPI_Exscan(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Exscan(s, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank > 0)
            same_ints(r, ref, n, "exscan");

        MPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Reduce_scatter_block(s, ref, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        same_ints(r, ref, n, "reduce_scatter_block");

        MPI_Barrier(MPI_COMM_WORLD);
    }

    free(s); free(r); free(ref); free(cnt); free(dsp); free(ds); free(dr); free(dref);
    return aot_test_finish();
}
