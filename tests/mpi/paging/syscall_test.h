/*
 * syscall_test.h: the frame of the tests that hand a just-received buffer to system calls
 * (syscall_paths.c, fortified_paths.c; issue 55, item 4).  Rank 0 sends one message per case;
 * rank 1 has its receive posted and waiting when the message comes, and passes the buffer at
 * once to the case's call.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SYSCALL_TEST_H_INCLUDED
#define SYSCALL_TEST_H_INCLUDED
#include <time.h>
#include <unistd.h>

#include "paging_test.h"

/* Starts the job (pt_init) and gives every rank rank 0's process id, for names in /tmp that
 * both ranks agree on.  Returns 0, having reported it, when the job has fewer than 2 ranks. */
static inline int pt_syscall_start(int *argc, char ***argv, int *pid0)
{
    pt_init(argc, argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return 0;
    }
    *pid0 = (int) getpid();
    PMPI_Bcast(pid0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return 1;
}

/* One case's hooks: ctx is the test's own. */
typedef void pt_case_fn(int c, void *ctx);

/* The cases 0 .. ncases-1, each a message of bytes bytes in buf (tag: the case): on rank 0,
 * payload fills buf, then after 50 ms (rank 1's receive is posted and waits) the message goes;
 * on rank 1, before (when not NULL) runs, the message is received into buf and use hands it to
 * the case's call.  A barrier ends each case. */
static inline void pt_syscall_cases(char *buf, int bytes, int ncases, pt_case_fn *payload,
                                    pt_case_fn *before, pt_case_fn *use, void *ctx)
{
    for (int c = 0; c < ncases; c++) {
        if (pt_rank == 0) {
            struct timespec ts = { 0, 50 * 1000 * 1000 };
            nanosleep(&ts, NULL);
            payload(c, ctx);
            MPI_Send(buf, bytes, MPI_CHAR, 1, c, MPI_COMM_WORLD);
        } else if (pt_rank == 1) {
            if (before)
                before(c, ctx);
            MPI_Recv(buf, bytes, MPI_CHAR, 0, c, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            use(c, ctx);
        }
        PMPI_Barrier(MPI_COMM_WORLD);
    }
}
#endif
