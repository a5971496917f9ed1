/*
 * cg: conjugate gradients for a sparse symmetric positive definite matrix whose rows are
 * dealt out to the ranks in irregular contiguous blocks.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The matrix: the 5-point graph Laplacian of an N x N grid plus "shortcut" edges between
 * distant grid points (one from every 16th point on average, to a point up to a quarter of
 * the unknowns ahead, chosen by a hash of the point's index), plus a small shift on the
 * diagonal.  Off-diagonal entries are -w (w = 1 on grid edges, 1/2 on shortcuts), the diagonal
 * is the sum of the row's w plus the shift: symmetric, strictly diagonally dominant, hence SPD.
 * The shortcuts give every rank its own set of neighbours and its own message sizes.
 *
 * Reproducibility: the rows are cut into CG_CHUNKS fixed chunks and every rank owns whole
 * chunks (in proportions 3:4:5:3:4:5..., so the blocks differ in size).  A dot product sums
 * each chunk in row order, MPI_Allreduce adds the per-chunk sums of all ranks into one vector
 * (each slot holds one rank's value and zeros elsewhere: exact in any order, whatever
 * algorithm the library picks), and every rank adds the chunks in order.  A row's product is
 * summed in column order.  So every operation is the same on every rank count, and the
 * solution is the same bits for every mode, process count and MPI library.
 */
#ifndef EXAMPLES_CG_H
#define EXAMPLES_CG_H

#include <mpi.h>

enum { CG_CHUNKS = 64 };

/* The local rows in compressed sparse row form.  Columns 0..nlocal-1 are local rows,
 * nlocal.. the halo, in the order the neighbours send them (ascending global index). */
struct cg_matrix {
    int nlocal, nhalo;
    long row0;                  /* global index of local row 0 */
    int *rowptr, *col;
    double *val;
    int *inner, ninner;         /* rows that read no halo entry */
    int *outer, nouter;         /* rows that read one */
};

/* Who sends what to whom, and the dot products' chunk vectors. */
struct cg_halo {
    MPI_Comm comm;
    int nnbr;
    int *nbr;                   /* neighbour ranks, ascending */
    int *recv_count, *recv_off; /* halo entries from nbr[k] at x[nlocal + recv_off[k]] */
    int *send_count, *send_off; /* entries for nbr[k]: send_idx[send_off[k]...] */
    int *send_idx;              /* local row indices */
    double *send_buf;
    MPI_Request *req;           /* 2 * nnbr */
    MPI_Status *status;
    double slots[CG_CHUNKS], sums[CG_CHUNKS];
    int chunk0, nchunks;        /* this rank's chunks */
    long *chunk_start;          /* CG_CHUNKS + 1 global row indices */
};

/* q = A p; the halo of p is brought up to date first (p has nlocal + nhalo entries). */
typedef void (*cg_spmv_fn)(const struct cg_matrix *A, struct cg_halo *h, double *p, double *q);
/* h->sums = the sum of every rank's h->slots (CG_CHUNKS doubles). */
typedef void (*cg_reduce_fn)(struct cg_halo *h);

struct cg_mode {
    const char *name;
    const char *summary;
    cg_spmv_fn spmv;
    cg_reduce_fn reduce;
};

/* cg_exchange.c: the variants, calling MPI_*; cg_exchange_pmpi.c: the same through PMPI_*.
 * Each table ends with a NULL name. */
extern const struct cg_mode cg_modes[];
extern const struct cg_mode cg_modes_pmpi[];

/* cg.c: the local product of the rows in list (all rows when list is NULL). */
void cg_rows(const struct cg_matrix *A, const int *list, int n, const double *p, double *q);

#endif /* EXAMPLES_CG_H */
