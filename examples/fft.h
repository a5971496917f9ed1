/*
 * fft: a 3-D FFT of complex doubles on z slabs, whose transposes are all-to-all exchanges.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The grid is N x N x N, stored x fastest.  Rank r of p owns the planes z in [r N/p, (r+1) N/p)
 * (a z slab, [z][y][x]).  The forward transform makes the 1-D FFTs along x and y on its planes,
 * then the transpose: block s of the send buffer holds the rows y in [s N/p, (s+1) N/p) of
 * every local plane, and after the exchange rank r holds the y slab [z][y - r N/p][x] for all
 * z, where it makes the 1-D FFTs along z.  The spectrum stays in that layout; the inverse
 * transform goes back the same way (z, the transpose, y and x, then the scaling by 1/N^3).
 * Every block is N^3/p^2 complex values, the same for every pair of ranks: an MPI_Alltoall.
 *
 * Reproducibility: every 1-D FFT is made by the same code on the same N values, whichever
 * rank holds them, and the exchanges only move data.  So the transforms are the same bits on
 * every process count and for every exchange mode, and the serial transform on rank 0 (-V)
 * is the same bits as the distributed one.
 */
#ifndef EXAMPLES_FFT_H
#define EXAMPLES_FFT_H

#include <complex.h>

#include <mpi.h>

/* Who exchanges with whom, and the requests of the hand-written exchanges. */
struct fft_comm {
    MPI_Comm comm;
    int size, rank;
    int block;                  /* complex values per pair of ranks: N^3 / p^2 */
    MPI_Request *req;           /* 2 * size */
    MPI_Status *status;         /* 2 * size */
};

/* The transpose: block s of @send (c->block values at send + s * c->block) goes to rank s,
 * and block s of @recv comes from rank s (the one a rank sends itself is copied). */
typedef void (*fft_exchange_fn)(const double complex *send, double complex *recv,
                                const struct fft_comm *c);

struct fft_mode {
    const char *name;
    const char *summary;
    fft_exchange_fn exchange;
};

/* fft_exchange.c (MPI_*) and fft_exchange_pmpi.c (PMPI_*); each ends with a NULL name. */
extern const struct fft_mode fft_modes[];
extern const struct fft_mode fft_modes_pmpi[];

#endif /* EXAMPLES_FFT_H */
