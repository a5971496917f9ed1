/*
 * tune_calls: MPI_Bcast and MPI_Allgather at the message sizes given on the command line, each
 * result checked against the values every rank can compute; the test tools.tune.rules runs it
 * with a tuning file that autoopt-tune wrote and compares the algorithms autoopt used
 * (AUTOOPT_STATS) with the file's rules (tune_check.py).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * usage: mpiexec -n N tune_calls BYTES...
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char value(long i, int rank)
{
    return (unsigned char) (i * 7 + rank * 13 + 1);
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int a = 1; a < argc; a++) {
        long n = strtol(argv[a], NULL, 10);
        unsigned char *b = malloc((size_t) n + 1), *g = malloc((size_t) n * size + 1);
        if (n < 1 || !b || !g) {
            fprintf(stderr, "tune_calls: bad size '%s'\n", argv[a]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        for (long i = 0; i < n; i++)
            b[i] = rank == 0 ? value(i, 0) : 0;
        MPI_Bcast(b, (int) n, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
        for (long i = 0; i < n; i++)
            errors += b[i] != value(i, 0);
        for (long i = 0; i < n; i++)
            b[i] = value(i, rank);
        MPI_Allgather(b, (int) n, MPI_UNSIGNED_CHAR, g, (int) n, MPI_UNSIGNED_CHAR,
                      MPI_COMM_WORLD);
        for (int r = 0; r < size; r++)
            for (long i = 0; i < n; i++)
                errors += g[(long) r * n + i] != value(i, r);
        free(b);
        free(g);
    }
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(errors ? "tune_calls: %d wrong bytes\n" : "tune_calls: No Errors\n", errors);
    MPI_Finalize();
    return errors != 0;
}
