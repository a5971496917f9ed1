/*
 * ring: one pass around the ring, blocking (what a scientist writes) or hand-written with
 * MPI_Irecv + MPI_Isend + MPI_Waitall.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * ring_pass_pmpi.c compiles this file again with EX_PMPI defined (pmpi.h): the same calls then
 * go to MPI's profiling entry points, which autoopt does not intercept (ring -m blocking@pmpi).
 */
#include <mpi.h>

#include "ring.h"

#include "pmpi.h"
#ifdef EX_PMPI
#define ring_passes ring_passes_pmpi
#endif

/* Blocking sends around a ring can deadlock, so even ranks send first and odd ranks receive
 * first (for any number of ranks >= 2 some rank is always receiving).  One rank has no
 * neighbour but itself: it uses MPI_Sendrecv, which cannot deadlock with itself. */
static void ring_blocking(struct ring_state *s)
{
    if (s->size == 1) {
        MPI_Sendrecv(s->sbuf, s->bytes, MPI_BYTE, s->right, 0, s->rbuf, s->bytes, MPI_BYTE,
                     s->left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (s->rank % 2 == 0) {
        MPI_Send(s->sbuf, s->bytes, MPI_BYTE, s->right, 0, MPI_COMM_WORLD);
        MPI_Recv(s->rbuf, s->bytes, MPI_BYTE, s->left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(s->rbuf, s->bytes, MPI_BYTE, s->left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(s->sbuf, s->bytes, MPI_BYTE, s->right, 0, MPI_COMM_WORLD);
    }
}

/* Both transfers at once: no ordering needed. */
static void ring_isend(struct ring_state *s)
{
    MPI_Request req[2];
    MPI_Status st[2];

    MPI_Irecv(s->rbuf, s->bytes, MPI_BYTE, s->left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(s->sbuf, s->bytes, MPI_BYTE, s->right, 0, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, st);
}

const ring_pass_fn ring_passes[] = { ring_blocking, ring_isend };
