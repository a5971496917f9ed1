/*
 * sor: the numerics, shared by the parallel run and the serial check on rank 0.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdlib.h>

#include "common.h"
#include "sor.h"

void sor_block(int n, int parts, int k, int *start, int *len)
{
    int base = n / parts, extra = n % parts;

    *len = base + (k < extra);
    *start = k * base + (k < extra ? k : extra);
}

int sor_grid_alloc(struct sor_grid *g, int n, int rows, int cols, int row0, int col0,
                   double omega)
{
    size_t cells = (size_t) (rows + 2) * (size_t) (cols + 2);

    g->n = n;
    g->rows = rows;
    g->cols = cols;
    g->row0 = row0;
    g->col0 = col0;
    g->stride = cols + 2;
    g->omega = omega;
    g->u = malloc(cells * sizeof *g->u);
    g->b = malloc(cells * sizeof *g->b);
    if (g->u == NULL || g->b == NULL) {
        sor_grid_free(g);
        return -1;
    }
    return 0;
}

void sor_grid_free(struct sor_grid *g)
{
    free(g->u);
    free(g->b);
    g->u = g->b = NULL;
}

/* Boundary values: a harmonic polynomial, so it does not change f. */
static double sor_boundary(double x, double y)
{
    return x * x - y * y + 0.5 * x * y;
}

static double sor_rhs(double x, double y)
{
    return 20.0 * (x * (1.0 - x) + y * (1.0 - y));
}

/* Initial state of the block, halo included: 0 inside, boundary values on the boundary. */
void sor_grid_init(struct sor_grid *g)
{
    double h = 1.0 / (g->n + 1);

    for (int i = 0; i < g->rows + 2; i++) {
        int gi = g->row0 + i;
        double y = gi * h;

        for (int j = 0; j < g->cols + 2; j++) {
            int gj = g->col0 + j;
            double x = gj * h;
            size_t c = (size_t) i * g->stride + j;
            int edge = gi == 0 || gi == g->n + 1 || gj == 0 || gj == g->n + 1;

            g->u[c] = edge ? sor_boundary(x, y) : 0.0;
            g->b[c] = h * h * sor_rhs(x, y);
        }
    }
}

/*
 * Updates the cells of @color in local rows i0..i1 and columns j0..j1 (empty ranges allowed).
 * This is the only place a cell is updated: keep it that way, or the modes stop agreeing
 * bit for bit.
 */
void sor_sweep(struct sor_grid *g, int color, int i0, int i1, int j0, int j1)
{
    const double keep = 1.0 - g->omega, relax = 0.25 * g->omega;
    const int s = g->stride;

    for (int i = i0; i <= i1; i++) {
        /* first column of this row with (global row + global column) % 2 == color */
        int j = j0 + ((g->row0 + i + g->col0 + j0 + color) & 1);

        for (; j <= j1; j += 2) {
            double *u = &g->u[(size_t) i * s + j];
            double b = g->b[(size_t) i * s + j];

            *u = keep * *u + relax * (u[-s] + u[s] + u[-1] + u[1] + b);
        }
    }
}

/* Root-mean-square of f + laplace_h(u) over the interior of the block. */
double sor_residual(const struct sor_grid *g)
{
    double h = 1.0 / (g->n + 1), sum = 0.0;
    const int s = g->stride;

    for (int i = 1; i <= g->rows; i++) {
        for (int j = 1; j <= g->cols; j++) {
            const double *u = &g->u[(size_t) i * s + j];
            double r = u[-s] + u[s] + u[-1] + u[1] - 4.0 * *u + g->b[(size_t) i * s + j];

            sum += r * r;
        }
    }
    return sqrt(sum / ((double) g->rows * g->cols)) / (h * h);
}

/* FNV-1a of the interior doubles in row-major order (the halo is not part of the result). */
uint64_t sor_checksum(const struct sor_grid *g)
{
    uint64_t hash = EX_FNV_OFFSET;

    for (int i = 1; i <= g->rows; i++)
        for (int j = 1; j <= g->cols; j++)
            hash = ex_fnv1a_double(hash, g->u[(size_t) i * g->stride + j]);
    return hash;
}
