/*
 * aot_test.h: the few helpers every MPI test program shares.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A test counts its errors, prints at most a few mismatches, and ends with "No Errors" on
 * rank 0 when the sum over all ranks is zero; otherwise it exits non-zero.  The sum uses
 * PMPI_Allreduce so that it never goes through the code under test.
 */
#ifndef AOT_TEST_H_INCLUDED
#define AOT_TEST_H_INCLUDED
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int aot_test_errors;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            if (aot_test_errors++ < 10) {                                       \
                int r_;                                                         \
                PMPI_Comm_rank(MPI_COMM_WORLD, &r_);                            \
                fprintf(stderr, "[%d] %s:%d: check failed: %s: ", r_, __FILE__, \
                        __LINE__, #cond);                                       \
                fprintf(stderr, __VA_ARGS__);                                   \
                fputc('\n', stderr);                                            \
            }                                                                   \
        }                                                                       \
    } while (0)

/* Sums the errors of all ranks, prints the verdict on rank 0, returns the exit code. */
static inline int aot_test_verdict(void)
{
    int rank, total = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Allreduce(&aot_test_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total)
            printf("Found %d errors\n", total);
        else
            printf("No Errors\n");
        fflush(stdout);
    }
    return total ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The verdict, then MPI_Finalize; returns the exit code. */
static inline int aot_test_finish(void)
{
    int rc = aot_test_verdict();
    MPI_Finalize();
    return rc;
}
#endif
