/*
 * sor: the three ways of exchanging the borders of a block after a colour phase.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Rows are contiguous in the row-major block and go straight from and into the grid; columns
 * are packed into heap buffers of rows doubles.  A neighbour that does not exist is
 * MPI_PROC_NULL, which MPI turns into an empty message; its halo then keeps the boundary values.
 *
 *   sendrecv  sweep the block, then one blocking MPI_Sendrecv per direction (4 per phase)
 *   isend     sweep the block, then MPI_Irecv + MPI_Isend of all four borders and MPI_Waitall
 *   overlap   sweep the outermost ring of the block, start the isend exchange, sweep the inside
 *             while the messages travel, then wait
 *
 * sor_exchange_pmpi.c compiles this file a second time with EX_PMPI defined (pmpi.h): the same
 * code then calls MPI's profiling entry points (PMPI_Sendrecv, ...), which a tool such as
 * autoopt does not intercept, and its table is sor_modes_pmpi (sor -m isend@pmpi).
 */
#include <stddef.h>

#include "sor.h"

#include "pmpi.h"
#ifdef EX_PMPI
#define sor_modes sor_modes_pmpi
#endif

enum { TAG_UP = 1, TAG_DOWN, TAG_LEFT, TAG_RIGHT };

static double *sor_row(struct sor_grid *g, int i)
{
    return &g->u[(size_t) i * g->stride + 1];
}

static void sor_pack_columns(struct sor_grid *g, struct sor_halo *h)
{
    for (int i = 0; i < g->rows; i++) {
        h->send_left[i] = g->u[(size_t) (i + 1) * g->stride + 1];
        h->send_right[i] = g->u[(size_t) (i + 1) * g->stride + g->cols];
    }
}

/* Only from neighbours that exist: at the domain boundary the halo holds boundary values. */
static void sor_unpack_columns(struct sor_grid *g, struct sor_halo *h)
{
    for (int i = 0; i < g->rows; i++) {
        if (h->left != MPI_PROC_NULL)
            g->u[(size_t) (i + 1) * g->stride] = h->recv_left[i];
        if (h->right != MPI_PROC_NULL)
            g->u[(size_t) (i + 1) * g->stride + g->cols + 1] = h->recv_right[i];
    }
}

/* Blocking: one MPI_Sendrecv per direction.  The message going up is the one coming from below. */
static void sor_exchange_sendrecv(struct sor_grid *g, struct sor_halo *h)
{
    const int rows = g->rows, cols = g->cols;

    sor_pack_columns(g, h);
    MPI_Sendrecv(sor_row(g, 1), cols, MPI_DOUBLE, h->up, TAG_UP,
                 sor_row(g, rows + 1), cols, MPI_DOUBLE, h->down, TAG_UP,
                 h->comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(sor_row(g, rows), cols, MPI_DOUBLE, h->down, TAG_DOWN,
                 sor_row(g, 0), cols, MPI_DOUBLE, h->up, TAG_DOWN,
                 h->comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(h->send_left, rows, MPI_DOUBLE, h->left, TAG_LEFT,
                 h->recv_right, rows, MPI_DOUBLE, h->right, TAG_LEFT,
                 h->comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(h->send_right, rows, MPI_DOUBLE, h->right, TAG_RIGHT,
                 h->recv_left, rows, MPI_DOUBLE, h->left, TAG_RIGHT,
                 h->comm, MPI_STATUS_IGNORE);
    sor_unpack_columns(g, h);
}

/* Non-blocking: post all receives, pack and post all sends; the caller waits. */
static void sor_exchange_start(struct sor_grid *g, struct sor_halo *h, MPI_Request req[8])
{
    const int rows = g->rows, cols = g->cols;

    MPI_Irecv(sor_row(g, 0), cols, MPI_DOUBLE, h->up, TAG_DOWN, h->comm, &req[0]);
    MPI_Irecv(sor_row(g, rows + 1), cols, MPI_DOUBLE, h->down, TAG_UP, h->comm, &req[1]);
    MPI_Irecv(h->recv_left, rows, MPI_DOUBLE, h->left, TAG_RIGHT, h->comm, &req[2]);
    MPI_Irecv(h->recv_right, rows, MPI_DOUBLE, h->right, TAG_LEFT, h->comm, &req[3]);
    sor_pack_columns(g, h);
    MPI_Isend(sor_row(g, 1), cols, MPI_DOUBLE, h->up, TAG_UP, h->comm, &req[4]);
    MPI_Isend(sor_row(g, rows), cols, MPI_DOUBLE, h->down, TAG_DOWN, h->comm, &req[5]);
    MPI_Isend(h->send_left, rows, MPI_DOUBLE, h->left, TAG_LEFT, h->comm, &req[6]);
    MPI_Isend(h->send_right, rows, MPI_DOUBLE, h->right, TAG_RIGHT, h->comm, &req[7]);
}

/* (A real status array: GCC 12 warns about MPI_STATUSES_IGNORE, the constant (MPI_Status *) 1.) */
static void sor_exchange_finish(struct sor_grid *g, struct sor_halo *h, MPI_Request req[8])
{
    MPI_Status status[8];

    MPI_Waitall(8, req, status);
    sor_unpack_columns(g, h);
}

static void sor_phase_sendrecv(struct sor_grid *g, struct sor_halo *h, int color)
{
    sor_sweep(g, color, 1, g->rows, 1, g->cols);
    sor_exchange_sendrecv(g, h);
}

static void sor_phase_isend(struct sor_grid *g, struct sor_halo *h, int color)
{
    MPI_Request req[8];

    sor_sweep(g, color, 1, g->rows, 1, g->cols);
    sor_exchange_start(g, h, req);
    sor_exchange_finish(g, h, req);
}

/*
 * The outermost ring is every cell a neighbour needs; the inside (rows 2..rows-1, columns
 * 2..cols-1) reads no halo cell, so it can be swept while the halos are being received.
 * Each cell is swept exactly once, also for blocks one or two cells thick.
 */
static void sor_phase_overlap(struct sor_grid *g, struct sor_halo *h, int color)
{
    const int rows = g->rows, cols = g->cols;
    MPI_Request req[8];

    sor_sweep(g, color, 1, 1, 1, cols);
    if (rows > 1)
        sor_sweep(g, color, rows, rows, 1, cols);
    sor_sweep(g, color, 2, rows - 1, 1, 1);
    if (cols > 1)
        sor_sweep(g, color, 2, rows - 1, cols, cols);
    sor_exchange_start(g, h, req);
    sor_sweep(g, color, 2, rows - 1, 2, cols - 1);
    sor_exchange_finish(g, h, req);
}

const struct sor_mode sor_modes[] = {
    { "sendrecv", "blocking MPI_Sendrecv per direction after the sweep", sor_phase_sendrecv },
    { "isend", "MPI_Isend/MPI_Irecv of all borders, then MPI_Waitall", sor_phase_isend },
    { "overlap", "borders first, exchange while the inside is swept", sor_phase_overlap },
    { NULL, NULL, NULL },
};
