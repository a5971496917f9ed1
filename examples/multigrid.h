/*
 * multigrid: V-cycles for the 3D Poisson equation on a block-distributed cell-centred grid.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Problem: -laplace(u) = f on the unit cube, N^3 cells, u = 0 on the boundary (a ghost cell
 * holds minus the cell inside), f = x(1-x) + y(1-y) + z(1-z) at the cell centres: pure
 * arithmetic on the global index, the same on every machine.  The 7-point operator is
 * (6u - sum of the 6 neighbours) / h^2.
 *
 * Each level halves the cells per side: a coarse cell is 2 x 2 x 2 fine cells.  Restriction
 * averages the 8 children (no communication: a rank's coarse block covers exactly its fine
 * block), prolongation is trilinear (weights 3/4 and 1/4 per direction, from the coarse cell
 * and its neighbour: this needs the coarse halo, faces, edges and corners), smoothing is
 * weighted Jacobi (weight 6/7).  The blocks are cut at multiples of the coarsest cell, so
 * every level is distributed the same way.  Every cell is computed by one expression from
 * values that do not depend on the partition, so results are the same bits for every mode,
 * process grid and process count.
 *
 * The halo exchange goes dimension by dimension: the x faces, then the y faces including the
 * x halo, then the z faces including both: edges and corners come along, and the faces shrink
 * by 4 from one level to the next.
 */
#ifndef EXAMPLES_MULTIGRID_H
#define EXAMPLES_MULTIGRID_H

#include <stddef.h>

#include <mpi.h>

/* One level of one rank's block, with a halo of one cell on every side. */
struct mg_level {
    int n[3];                   /* local cells per dimension (x, y, z) */
    int off[3];                 /* global index of the first local cell */
    int N;                      /* global cells per side */
    double h2;                  /* (1/N)^2 */
    size_t stride[3];           /* 1, n[0]+2, (n[0]+2)(n[1]+2) */
    double *u, *f, *r, *tmp;    /* (n[0]+2)(n[1]+2)(n[2]+2) each */
    double *send[2], *recv[2];  /* one face each, for the low and the high side */
};

/* Neighbours per dimension (MPI_PROC_NULL at the domain boundary). */
struct mg_comm {
    MPI_Comm comm;
    int lo[3], hi[3];
};

/* Brings the halo of u (a field of level L) up to date. */
typedef void (*mg_exchange_fn)(struct mg_level *L, const struct mg_comm *c, double *u);

struct mg_mode {
    const char *name;
    const char *summary;
    mg_exchange_fn exchange;
};

/* multigrid_exchange.c (MPI_*) and multigrid_exchange_pmpi.c (PMPI_*); NULL-terminated. */
extern const struct mg_mode mg_modes[];
extern const struct mg_mode mg_modes_pmpi[];

enum { MG_PACK, MG_UNPACK };

/* multigrid.c: cells of the face of dimension d (the extent the exchange of d covers). */
int mg_face_cells(const struct mg_level *L, int d);
/* Copies plane @plane of dimension d of u to buf (MG_PACK) or buf into it (MG_UNPACK). */
void mg_face_copy(const struct mg_level *L, int d, int plane, double *u, double *buf, int dir);
/* After the messages of dimension d: the halo planes from a neighbour's message (recv[side])
 * or, at the domain boundary, minus the cells inside. */
void mg_face_finish(struct mg_level *L, const struct mg_comm *c, int d, double *u);

#endif /* EXAMPLES_MULTIGRID_H */
