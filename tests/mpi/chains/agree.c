/*
 * agree.c: the governors' agreed verdicts (src/agree.c) when the ranks do not run the same
 * loop.  Ranks 0 and 1 repeat a two-member chain (two MPI_Sendrecv of 16 KiB with each other)
 * LONG times, with a short sleep in each iteration so that the run lasts well over a second;
 * ranks 2 and 3 repeat another chain between themselves SHORT times and go on to MPI_Finalize.
 * Their votes end early: the votes of ranks 0 and 1 after that find no partner, they give up
 * waiting and decide alone, and MPI_Finalize completes every vote (a rank that cast fewer
 * casts empty ones).  The job must end, and every message is checked against the value its
 * sender computed.  With AUTOOPT_STATS=1 the counters show votes and votes given up.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <time.h>

#include "aot_test.h"

#define N 2048                  /* doubles: 16 KiB per message */
#define LONG 4000
#define SHORT 600

static double value(int rank, int it, int which, int i)
{
    return rank * 1e7 + it * 1e2 + which * 10 + (i % 7);
}

int main(int argc, char **argv)
{
    static double sa[N], ra[N], sb[N], rb[N];
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "agree: needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int peer = rank ^ 1, iters = rank < 2 ? LONG : SHORT;
    const struct timespec nap = {0, 200000};    /* 0.2 ms: the long loop lasts about 1 s */

    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < N; i++) {
            sa[i] = value(rank, it, 0, i);
            sb[i] = value(rank, it, 1, i);
        }
        MPI_Sendrecv(sa, N, MPI_DOUBLE, peer, 1, ra, N, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(sb, N, MPI_DOUBLE, peer, 2, rb, N, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++) {
            CHECK(ra[i] == value(peer, it, 0, i), "iteration %d, message 0, element %d", it, i);
            CHECK(rb[i] == value(peer, it, 1, i), "iteration %d, message 1, element %d", it, i);
        }
        if (rank < 2)
            nanosleep(&nap, NULL);
    }
    return aot_test_finish();
}
