/*
 * fft: the three ways of making the transpose of the 3-D FFT.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   alltoall  one blocking MPI_Alltoall of the blocks (the program a scientist writes, which
 *             autoopt optimizes)
 *   isend     MPI_Irecv from every other rank and MPI_Isend to every other rank, each rank
 *             starting with its right neighbour so that the senders spread over the
 *             receivers, then one MPI_Waitall
 *   pairwise  p - 1 steps; in each a rank exchanges one block with one partner (MPI_Irecv,
 *             MPI_Isend, MPI_Waitall): rank XOR step when p is a power of two, otherwise
 *             rank + step and rank - step; one message in and one out per rank at a time,
 *             which a switched network carries without congestion
 *
 * fft_exchange_pmpi.c compiles this file a second time with EX_PMPI defined (pmpi.h): the same
 * code then calls PMPI_*, which autoopt does not intercept, and its table is fft_modes_pmpi
 * (fft -m alltoall@pmpi).
 */
#include <string.h>

#include "fft.h"

#include "pmpi.h"
#ifdef EX_PMPI
#define fft_modes fft_modes_pmpi
#endif

enum { TAG_BLOCK = 21 };

static void fft_copy_own(const double complex *send, double complex *recv,
                         const struct fft_comm *c)
{
    size_t at = (size_t) c->rank * c->block;

    memcpy(recv + at, send + at, (size_t) c->block * sizeof *send);
}

static void fft_exchange_alltoall(const double complex *send, double complex *recv,
                                  const struct fft_comm *c)
{
    MPI_Alltoall(send, c->block, MPI_C_DOUBLE_COMPLEX, recv, c->block, MPI_C_DOUBLE_COMPLEX,
                 c->comm);
}

static void fft_exchange_isend(const double complex *send, double complex *recv,
                               const struct fft_comm *c)
{
    int n = 0;

    for (int k = 1; k < c->size; k++) {
        int from = (c->rank - k + c->size) % c->size;

        MPI_Irecv(recv + (size_t) from * c->block, c->block, MPI_C_DOUBLE_COMPLEX, from,
                  TAG_BLOCK, c->comm, &c->req[n++]);
    }
    for (int k = 1; k < c->size; k++) {
        int to = (c->rank + k) % c->size;

        MPI_Isend(send + (size_t) to * c->block, c->block, MPI_C_DOUBLE_COMPLEX, to,
                  TAG_BLOCK, c->comm, &c->req[n++]);
    }
    fft_copy_own(send, recv, c);
    MPI_Waitall(n, c->req, c->status);
}

static void fft_exchange_pairwise(const double complex *send, double complex *recv,
                                  const struct fft_comm *c)
{
    int pow2 = (c->size & (c->size - 1)) == 0;

    fft_copy_own(send, recv, c);
    for (int k = 1; k < c->size; k++) {
        int to = pow2 ? c->rank ^ k : (c->rank + k) % c->size;
        int from = pow2 ? c->rank ^ k : (c->rank - k + c->size) % c->size;

        MPI_Irecv(recv + (size_t) from * c->block, c->block, MPI_C_DOUBLE_COMPLEX, from,
                  TAG_BLOCK, c->comm, &c->req[0]);
        MPI_Isend(send + (size_t) to * c->block, c->block, MPI_C_DOUBLE_COMPLEX, to,
                  TAG_BLOCK, c->comm, &c->req[1]);
        MPI_Waitall(2, c->req, c->status);
    }
}

const struct fft_mode fft_modes[] = {
    { "alltoall", "one blocking MPI_Alltoall per transpose", fft_exchange_alltoall },
    { "isend", "MPI_Irecv/MPI_Isend of every block, then MPI_Waitall", fft_exchange_isend },
    { "pairwise", "p-1 steps, one partner each: MPI_Irecv, MPI_Isend, MPI_Waitall",
      fft_exchange_pairwise },
    { NULL, NULL, NULL },
};
