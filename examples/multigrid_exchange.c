/*
 * multigrid: the two ways of exchanging the faces of a block, dimension by dimension.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   sendrecv  per dimension, one blocking MPI_Sendrecv towards each side (the program autoopt
 *             optimizes)
 *   isend     per dimension, MPI_Irecv and MPI_Isend of both faces, then MPI_Waitall
 *
 * The dimensions go one after the other in both (the y faces carry the x halo, the z faces
 * both), so edges and corners arrive too.  multigrid_exchange_pmpi.c compiles this file a
 * second time with EX_PMPI defined (pmpi.h): the same code then calls PMPI_*, which autoopt
 * does not intercept, and its table is mg_modes_pmpi (multigrid -m sendrecv@pmpi).
 */
#include "multigrid.h"

#include "pmpi.h"
#ifdef EX_PMPI
#define mg_modes mg_modes_pmpi
#endif

enum { TAG_TO_LOW = 11, TAG_TO_HIGH = 12 };

static void mg_pack_faces(struct mg_level *L, int d, double *u)
{
    mg_face_copy(L, d, 1, u, L->send[0], MG_PACK);
    mg_face_copy(L, d, L->n[d], u, L->send[1], MG_PACK);
}

static void mg_exchange_sendrecv(struct mg_level *L, const struct mg_comm *c, double *u)
{
    for (int d = 0; d < 3; d++) {
        int cells = mg_face_cells(L, d);

        mg_pack_faces(L, d, u);
        MPI_Sendrecv(L->send[0], cells, MPI_DOUBLE, c->lo[d], TAG_TO_LOW,
                     L->recv[1], cells, MPI_DOUBLE, c->hi[d], TAG_TO_LOW,
                     c->comm, MPI_STATUS_IGNORE);
        MPI_Sendrecv(L->send[1], cells, MPI_DOUBLE, c->hi[d], TAG_TO_HIGH,
                     L->recv[0], cells, MPI_DOUBLE, c->lo[d], TAG_TO_HIGH,
                     c->comm, MPI_STATUS_IGNORE);
        mg_face_finish(L, c, d, u);
    }
}

/* (A real status array: GCC 12 warns about MPI_STATUSES_IGNORE, the constant (MPI_Status *) 1.) */
static void mg_exchange_isend(struct mg_level *L, const struct mg_comm *c, double *u)
{
    for (int d = 0; d < 3; d++) {
        int cells = mg_face_cells(L, d);
        MPI_Request req[4];
        MPI_Status status[4];

        MPI_Irecv(L->recv[0], cells, MPI_DOUBLE, c->lo[d], TAG_TO_HIGH, c->comm, &req[0]);
        MPI_Irecv(L->recv[1], cells, MPI_DOUBLE, c->hi[d], TAG_TO_LOW, c->comm, &req[1]);
        mg_pack_faces(L, d, u);
        MPI_Isend(L->send[0], cells, MPI_DOUBLE, c->lo[d], TAG_TO_LOW, c->comm, &req[2]);
        MPI_Isend(L->send[1], cells, MPI_DOUBLE, c->hi[d], TAG_TO_HIGH, c->comm, &req[3]);
        MPI_Waitall(4, req, status);
        mg_face_finish(L, c, d, u);
    }
}

const struct mg_mode mg_modes[] = {
    { "sendrecv", "blocking MPI_Sendrecv towards each side, dimension by dimension",
      mg_exchange_sendrecv },
    { "isend", "MPI_Irecv/MPI_Isend of both faces, then MPI_Waitall, per dimension",
      mg_exchange_isend },
    { NULL, NULL, NULL },
};
