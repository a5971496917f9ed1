/*
 * autoopt-instr-loop: a one-rank loop of chain-shaped phases, for counting the instructions
 * autoopt adds to each call with callgrind (docs/chains.md, "Cost per call, counted").
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Usage: autoopt-instr-loop ITERS sendrecv|isend|sendself
 *
 * Each phase exchanges 4 messages of 64 doubles with the rank itself, then reads the received
 * data and changes the sent data, as SOR does between its exchanges:
 *   sendrecv  4 MPI_Sendrecv (under autoopt chains they become one chain of 4 members)
 *   isend     the hand-written version: 4 MPI_Irecv, 4 MPI_Isend, one MPI_Waitall
 *   sendself  4 times MPI_Irecv, MPI_Send, MPI_Wait (12 calls): each MPI_Send is a phase of
 *             its own, which chains never make a chain of, and paging passes it (below
 *             AUTOOPT_CONVERT_MIN): the cost of routed calls that autoopt does not optimize
 * Instructions per phase are the difference of two runs (e.g. 40000 and 20000 phases) divided
 * by the difference of their ITERS, so start-up and learning cancel out.  One rank and no
 * peer keep the count deterministic; wall time is printed but means little under callgrind.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUF 4
#define COUNT 64
#define WARMUP 100

static double *sendbuf[NBUF], *recvbuf[NBUF];

static double touch(void)
{
    double s = 0;
    for (int b = 0; b < NBUF; b++) {
        s += recvbuf[b][0] + recvbuf[b][COUNT - 1];
        sendbuf[b][0] += 1e-9;
    }
    return s;
}

int main(int argc, char **argv)
{
    int me, iters, isend, self;
    double sum = 0, t0 = 0, t;

    MPI_Init(&argc, &argv);
    if (argc != 3 || (iters = atoi(argv[1])) <= 0
        || (strcmp(argv[2], "sendrecv") != 0 && strcmp(argv[2], "isend") != 0 &&
            strcmp(argv[2], "sendself") != 0)) {
        fprintf(stderr, "usage: autoopt-instr-loop ITERS sendrecv|isend|sendself\n");
        MPI_Finalize();
        return 2;
    }
    isend = strcmp(argv[2], "isend") == 0;
    self = strcmp(argv[2], "sendself") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int b = 0; b < NBUF; b++) {
        sendbuf[b] = malloc(COUNT * sizeof(double));
        recvbuf[b] = malloc(COUNT * sizeof(double));
        if (!sendbuf[b] || !recvbuf[b]) {
            fprintf(stderr, "autoopt-instr-loop: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int i = 0; i < COUNT; i++)
            sendbuf[b][i] = i + b;
    }
    for (int it = 0; it < iters + WARMUP; it++) {
        if (it == WARMUP)
            t0 = MPI_Wtime();
        if (self) {
            for (int b = 0; b < NBUF; b++) {
                MPI_Request req;
                MPI_Irecv(recvbuf[b], COUNT, MPI_DOUBLE, me, b, MPI_COMM_WORLD, &req);
                MPI_Send(sendbuf[b], COUNT, MPI_DOUBLE, me, b, MPI_COMM_WORLD);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            }
        } else if (!isend) {
            for (int b = 0; b < NBUF; b++)
                MPI_Sendrecv(sendbuf[b], COUNT, MPI_DOUBLE, me, b, recvbuf[b], COUNT, MPI_DOUBLE,
                             me, b, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Request req[2 * NBUF];
            MPI_Status st[2 * NBUF];
            for (int b = 0; b < NBUF; b++)
                MPI_Irecv(recvbuf[b], COUNT, MPI_DOUBLE, me, b, MPI_COMM_WORLD, &req[b]);
            for (int b = 0; b < NBUF; b++)
                MPI_Isend(sendbuf[b], COUNT, MPI_DOUBLE, me, b, MPI_COMM_WORLD, &req[NBUF + b]);
            MPI_Waitall(2 * NBUF, req, st);
        }
        sum += touch();
    }
    t = MPI_Wtime() - t0;
    /* the checksum keeps the loop from being optimized away and shows identical results */
    printf("autoopt-instr-loop: %s %d phases %.1f ns/phase checksum %.17g\n", argv[2], iters,
           t / iters * 1e9, sum);
    for (int b = 0; b < NBUF; b++) {
        free(sendbuf[b]);
        free(recvbuf[b]);
    }
    MPI_Finalize();
    return 0;
}
