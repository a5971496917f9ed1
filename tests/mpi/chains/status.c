/*
 * status.c: chain members whose statuses the program reads.  A chain of MPI_Recv (with a
 * status) and MPI_Sendrecv (with a status) over 100 iterations: MPI_SOURCE, MPI_TAG and the
 * count must be those of the message, also in chain mode; MPI_Get_count is asked right away.
 * Then a chain of two MPI_Sendrecv with statuses exchanging with both neighbours at once.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define N 1000

int main(int argc, char **argv)
{
    int rank, size, errors = 0, total = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *s1 = malloc(N * sizeof(int)), *r1 = malloc(N * sizeof(int));
    int *s2 = malloc(N * sizeof(int)), *r2 = malloc(N * sizeof(int));

    for (int it = 0; it < 100; it++) {
        MPI_Status st1, st2;
        int n1 = 0, n2 = 0, len = N - (it % 7);     /* shorter than the buffer */
        for (int i = 0; i < N; i++) {
            s1[i] = rank * 7 + it + i;
            s2[i] = rank * 11 + it + i;
        }
        if (rank % 2 == 0) {
            MPI_Send(s1, len, MPI_INT, right, 10 + rank, MPI_COMM_WORLD);
            MPI_Recv(r1, N, MPI_INT, left, 10 + left, MPI_COMM_WORLD, &st1);
        } else {
            MPI_Recv(r1, N, MPI_INT, left, 10 + left, MPI_COMM_WORLD, &st1);
            MPI_Send(s1, len, MPI_INT, right, 10 + rank, MPI_COMM_WORLD);
        }
        MPI_Sendrecv(s2, N, MPI_INT, left, 5, r2, N, MPI_INT, right, 5, MPI_COMM_WORLD, &st2);
        MPI_Get_count(&st1, MPI_INT, &n1);
        MPI_Get_count(&st2, MPI_INT, &n2);
        if (st1.MPI_SOURCE != left || st1.MPI_TAG != 10 + left || n1 != len ||
            st2.MPI_SOURCE != right || st2.MPI_TAG != 5 || n2 != N) {
            if (errors < 5)
                fprintf(stderr, "rank %d it %d: status %d/%d/%d %d/%d/%d\n", rank, it,
                        st1.MPI_SOURCE, st1.MPI_TAG, n1, st2.MPI_SOURCE, st2.MPI_TAG, n2);
            errors++;
        }
        for (int i = 0; i < len; i++)
            if (r1[i] != left * 7 + it + i) {
                errors++;
                break;
            }
        for (int i = 0; i < N; i++)
            if (r2[i] != right * 11 + it + i) {
                errors++;
                break;
            }
    }
    /* Two MPI_Sendrecv in a row, each reading its status: a chain whose members wait for their
     * receives before returning.  Each neighbour waits for this rank's send at the same time,
     * so the send must be under way before the receive is waited for. */
    for (int it = 0; it < 50; it++) {
        MPI_Status st3, st4;
        for (int i = 0; i < N; i++) {
            s1[i] = rank * 13 + it + i;
            s2[i] = rank * 17 + it + i;
        }
        MPI_Sendrecv(s1, N, MPI_INT, right, 7, r1, N, MPI_INT, left, 7, MPI_COMM_WORLD, &st3);
        MPI_Sendrecv(s2, N, MPI_INT, left, 8, r2, N, MPI_INT, right, 8, MPI_COMM_WORLD, &st4);
        if (st3.MPI_SOURCE != left || st3.MPI_TAG != 7 || st4.MPI_SOURCE != right ||
            st4.MPI_TAG != 8) {
            if (errors < 5)
                fprintf(stderr, "rank %d it %d: pair statuses %d/%d %d/%d\n", rank, it,
                        st3.MPI_SOURCE, st3.MPI_TAG, st4.MPI_SOURCE, st4.MPI_TAG);
            errors++;
        }
        for (int i = 0; i < N; i++)
            if (r1[i] != left * 13 + it + i || r2[i] != right * 17 + it + i) {
                errors++;
                break;
            }
    }
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "Found %d errors\n" : "No Errors\n", total);
    free(s1); free(r1); free(s2); free(r2);
    MPI_Finalize();
    return total != 0;
}
