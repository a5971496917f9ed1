/*
 * paging_test.h: helpers of the asynchronous-conversion tests (besides ../foundation/aot_test.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The tests run under LD_PRELOAD=libautoopt.so with AUTOOPT_CONVERT=1 AUTOOPT_CONVERT_MIN=0,
 * and also unchanged without autoopt (mode native), where they must pass as well: they check
 * MPI semantics against a reference, never autoopt's internals (those are checked through the
 * statistics file by the CTest definitions).
 */
#ifndef PAGING_TEST_H_INCLUDED
#define PAGING_TEST_H_INCLUDED
#include <stdint.h>
#include <string.h>

#include "aot_test.h"

static int pt_rank, pt_size;

static inline void pt_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &pt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pt_size);
}

/* The value element i of message m holds. */
static inline double pt_val(int m, long i)
{
    return (double) m * 1e6 + (double) i;
}

static inline void pt_fill(double *a, long n, int m)
{
    for (long i = 0; i < n; i++)
        a[i] = pt_val(m, i);
}

/* Counts the elements that differ from message m; prints the first. */
static inline int pt_check(const double *a, long n, int m, const char *what)
{
    int bad = 0;
    for (long i = 0; i < n; i++)
        if (a[i] != pt_val(m, i)) {
            if (!bad)
                CHECK(0, "%s: element %ld is %g, expected %g", what, i, a[i], pt_val(m, i));
            bad++;
        }
    return bad;
}
#endif
