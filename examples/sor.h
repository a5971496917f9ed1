/*
 * sor: Red-Black SOR for the 2D Poisson equation on a 2D process grid.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Problem: -laplace(u) = f on the unit square, n x n interior points, h = 1/(n+1), with
 *   f(x,y) = 20 (x(1-x) + y(1-y))   and   u = x^2 - y^2 + xy/2 on the boundary,
 * both polynomials, so the data are the same on every IEEE-754 machine (no libm).
 *
 * Red-Black ordering: a cell is red when its global (row + column) is even.  A red update reads
 * only black neighbours and the reverse, so the result of a sweep does not depend on the order
 * in which the cells of one colour are visited, nor on how the grid is cut into blocks.  Every
 * cell, in every mode and in the serial check, is updated by the one expression in
 * sor_sweep(), which is why results are bit-identical across modes and process grids.
 */
#ifndef EXAMPLES_SOR_H
#define EXAMPLES_SOR_H

#include <stdint.h>

#include <mpi.h>

enum { SOR_RED = 0, SOR_BLACK = 1 };

/*
 * One rank's block of the grid, with a halo of one cell on each side.  Local index i (0 ..
 * rows+1) is global row row0 + i; global row 0 and n+1 are the Dirichlet boundary.  The
 * serial reference is the same struct with rows = cols = n and row0 = col0 = 0.
 */
struct sor_grid {
    int n;              /* global interior size */
    int rows, cols;     /* local interior size */
    int row0, col0;     /* global index of local row 0 / column 0 */
    int stride;         /* cols + 2 */
    double omega;
    double *u;          /* (rows + 2) x (cols + 2), row-major, halo included */
    double *b;          /* h^2 f at the same positions */
};

/* Neighbours (MPI_PROC_NULL at the domain boundary) and the packed column buffers. */
struct sor_halo {
    MPI_Comm comm;
    int up, down, left, right;
    double *send_left, *send_right;     /* rows doubles each */
    double *recv_left, *recv_right;
};

/* One colour phase: update every cell of @color in the block, then leave the halos current. */
typedef void (*sor_phase_fn)(struct sor_grid *g, struct sor_halo *h, int color);

struct sor_mode {
    const char *name;
    const char *summary;
    sor_phase_fn phase;
};

/* The exchange variants, in sor_exchange.c; the table ends with a NULL name.  sor_modes_pmpi
 * holds the same variants calling PMPI_* (sor_exchange_pmpi.c). */
extern const struct sor_mode sor_modes[];
extern const struct sor_mode sor_modes_pmpi[];

/* sor_kernel.c: the numerics shared by the parallel run and the serial check. */
int sor_grid_alloc(struct sor_grid *g, int n, int rows, int cols, int row0, int col0,
                   double omega);
void sor_grid_free(struct sor_grid *g);
void sor_grid_init(struct sor_grid *g);
void sor_sweep(struct sor_grid *g, int color, int i0, int i1, int j0, int j1);
double sor_residual(const struct sor_grid *g);
uint64_t sor_checksum(const struct sor_grid *g);

/* Rows (or columns) of a block distribution: part @k of @parts gets *len items from *start. */
void sor_block(int n, int parts, int k, int *start, int *len);

#endif /* EXAMPLES_SOR_H */
