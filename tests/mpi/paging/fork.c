/*
 * fork: a receive is still pending when the program forks.  The child must see the received
 * data (as after a blocking MPI_Recv) and must be able to write the buffer; it calls no MPI.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "paging_test.h"

#define N 100000

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double)), *s = malloc(N * sizeof(double));

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    if (pt_rank == 0) {
        pt_fill(a, N, 1);
        usleep(100000);
        MPI_Send(a, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(a, N, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pt_check(a, N, 2, "sent by the parent before it forked");
    } else if (pt_rank == 1) {
        pid_t pid;
        int status = -1;
        MPI_Recv(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pt_fill(s, N, 2);
        MPI_Send(s, N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
        pid = fork();
        if (pid == 0) {
            int bad = 0;
            for (long i = 0; i < N; i++)
                bad += a[i] != pt_val(1, i);
            a[0] = -1;                 /* no guard in the child */
            s[0] = -1;
            _exit(bad ? 1 : 0);
        }
        CHECK(pid > 0, "fork failed");
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child saw wrong data (status %d)",
              status);
        pt_check(a, N, 1, "parent after fork");
    }
    free(a);
    free(s);
    return aot_test_finish();
}
