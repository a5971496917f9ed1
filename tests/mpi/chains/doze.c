/*
 * doze.c: a chain that dozes, is left in the middle of an occurrence, and comes back.  Phase 1
 * repeats a two-member chain (two MPI_Sendrecv with the ring neighbours) long enough for a
 * chain run natively to doze (chains/chains.c, aot_ch_doze); phase 2 keeps the first member
 * and replaces the second by MPI_Isend + MPI_Recv + MPI_Wait (a routed call that wakes the
 * chain inside an occurrence); phase 3 is phase 1 again, and phase 4 a single exchange that
 * ends each iteration with a different tag, so that the stretch runs out on calls that are
 * not the chain's.  Every message is checked against the value its sender computed; the run
 * also prints its own count of MPI_Sendrecv calls, which the statistics must equal.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define N 64
#define P1 1500
#define P2 300
#define P3 1500
#define P4 400

static double value(int rank, int it, int which, int i)
{
    return rank * 1e6 + it * 1e2 + which * 10 + (i % 7);
}

static int check(const double *r, int from, int it, int which, int rank)
{
    for (int i = 0; i < N; i++)
        if (r[i] != value(from, it, which, i)) {
            fprintf(stderr, "rank %d iteration %d message %d: wrong value at %d\n", rank, it,
                    which, i);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    static double sa[N], ra[N], sb[N], rb[N];
    int rank, size, errors = 0, total = 0;
    long sendrecvs = 0, all = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;

    for (int it = 0; it < P1 + P2 + P3 + P4; it++) {
        const int phase2 = it >= P1 && it < P1 + P2, phase4 = it >= P1 + P2 + P3;
        for (int i = 0; i < N; i++) {
            sa[i] = value(rank, it, 0, i);
            sb[i] = value(rank, it, 1, i);
        }
        if (phase4) {
            /* one exchange, its tag changing every iteration: never a chain */
            MPI_Sendrecv(sa, N, MPI_DOUBLE, right, 100 + it % 3, ra, N, MPI_DOUBLE, left,
                         100 + it % 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sendrecvs++;
            errors += check(ra, left, it, 0, rank);
            continue;
        }
        MPI_Sendrecv(sa, N, MPI_DOUBLE, right, 1, ra, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        sendrecvs++;
        if (phase2) {
            MPI_Request req;
            MPI_Isend(sb, N, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req);
            MPI_Recv(rb, N, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Sendrecv(sb, N, MPI_DOUBLE, left, 2, rb, N, MPI_DOUBLE, right, 2,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sendrecvs++;
        }
        errors += check(ra, left, it, 0, rank) + check(rb, right, it, 1, rank);
    }
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&sendrecvs, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("MPI_Sendrecv calls made: %ld\n", all);
        if (total)
            printf("Found %d errors\n", total);
        else
            printf("No Errors\n");
    }
    MPI_Finalize();
    return total != 0;
}
