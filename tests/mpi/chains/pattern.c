/*
 * pattern.c: a chain that changes.  Each iteration exchanges two borders with the ring
 * neighbours (MPI_Sendrecv, MPI_Send/MPI_Recv in a fixed order) and checks what arrived.  At
 * iteration K1 an MPI_Barrier appears in the middle of the chain, from iteration K2 on a third
 * exchange joins the chain in the middle, and at K3 one member switches its tag.  Every change
 * breaks the chain; the results must stay right throughout.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define N 2048
#define ITERS 120
#define K1 20
#define K2 50
#define K3 90

static double value(int rank, int it, int which, int i)
{
    return rank * 1e6 + it * 1e3 + which * 100 + (i % 97);
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0, total = 0;
    double *sa, *ra, *sb, *rb, *sc, *rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    sa = malloc(N * sizeof(double)); ra = malloc(N * sizeof(double));
    sb = malloc(N * sizeof(double)); rb = malloc(N * sizeof(double));
    sc = malloc(N * sizeof(double)); rc = malloc(N * sizeof(double));

    for (int it = 0; it < ITERS; it++) {
        int tag_b = it >= K3 ? 7 : 2;
        for (int i = 0; i < N; i++) {
            sa[i] = value(rank, it, 0, i);
            sb[i] = value(rank, it, 1, i);
            sc[i] = value(rank, it, 2, i);
        }
        MPI_Sendrecv(sa, N, MPI_DOUBLE, right, 1, ra, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (it == K1)
            MPI_Barrier(MPI_COMM_WORLD);
        if (it >= K2)
            MPI_Sendrecv(sc, N, MPI_DOUBLE, left, 3, rc, N, MPI_DOUBLE, right, 3, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        if (rank % 2 == 0) {
            MPI_Send(sb, N, MPI_DOUBLE, left, tag_b, MPI_COMM_WORLD);
            MPI_Recv(rb, N, MPI_DOUBLE, right, tag_b, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rb, N, MPI_DOUBLE, right, tag_b, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sb, N, MPI_DOUBLE, left, tag_b, MPI_COMM_WORLD);
        }
        for (int i = 0; i < N; i++) {
            if (ra[i] != value(left, it, 0, i) || rb[i] != value(right, it, 1, i) ||
                (it >= K2 && rc[i] != value(right, it, 2, i))) {
                if (errors < 5)
                    fprintf(stderr, "rank %d iteration %d: wrong value at %d\n", rank, it, i);
                errors++;
                break;
            }
        }
    }
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total)
            printf("Found %d errors\n", total);
        else
            printf("No Errors\n");
    }
    free(sa); free(ra); free(sb); free(rb); free(sc); free(rc);
    MPI_Finalize();
    return total != 0;
}
