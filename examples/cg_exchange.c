/*
 * cg: the three ways of bringing the halo of a vector up to date before the product, and the
 * reduction of the dot products.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   send     MPI_Irecv from every neighbour, then a blocking MPI_Send to each and an MPI_Wait
 *            per receive, then the product (the exchange of HPCG and of NAS CG: the program
 *            autoopt optimizes)
 *   isend    MPI_Irecv and MPI_Isend of all halos, then MPI_Waitall, then the product
 *   overlap  start the isend exchange, multiply the rows that read no halo entry while the
 *            messages travel, wait, multiply the others
 *
 * Every variant reduces the dot products with MPI_Allreduce.  cg_exchange_pmpi.c compiles this
 * file a second time with EX_PMPI defined (pmpi.h): the same code then calls PMPI_*, which
 * autoopt does not intercept, and its table is cg_modes_pmpi (cg -m send@pmpi).
 */
#include <stddef.h>

#include "cg.h"

#include "pmpi.h"
#ifdef EX_PMPI
#define cg_modes cg_modes_pmpi
#endif

enum { TAG_HALO = 7 };

static void cg_post_receives(const struct cg_matrix *A, struct cg_halo *h, double *p)
{
    for (int k = 0; k < h->nnbr; k++)
        MPI_Irecv(&p[A->nlocal + h->recv_off[k]], h->recv_count[k], MPI_DOUBLE, h->nbr[k],
                  TAG_HALO, h->comm, &h->req[k]);
}

static void cg_pack(struct cg_halo *h, const double *p)
{
    int total = h->nnbr > 0 ? h->send_off[h->nnbr - 1] + h->send_count[h->nnbr - 1] : 0;

    for (int i = 0; i < total; i++)
        h->send_buf[i] = p[h->send_idx[i]];
}

/* Blocking sends: each MPI_Send returns when its buffer may be reused. */
static void cg_spmv_send(const struct cg_matrix *A, struct cg_halo *h, double *p, double *q)
{
    cg_post_receives(A, h, p);
    cg_pack(h, p);
    for (int k = 0; k < h->nnbr; k++)
        MPI_Send(&h->send_buf[h->send_off[k]], h->send_count[k], MPI_DOUBLE, h->nbr[k],
                 TAG_HALO, h->comm);
    for (int k = 0; k < h->nnbr; k++)
        MPI_Wait(&h->req[k], &h->status[k]);
    cg_rows(A, NULL, A->nlocal, p, q);
}

static void cg_start_isend(const struct cg_matrix *A, struct cg_halo *h, double *p)
{
    cg_post_receives(A, h, p);
    cg_pack(h, p);
    for (int k = 0; k < h->nnbr; k++)
        MPI_Isend(&h->send_buf[h->send_off[k]], h->send_count[k], MPI_DOUBLE, h->nbr[k],
                  TAG_HALO, h->comm, &h->req[h->nnbr + k]);
}

static void cg_spmv_isend(const struct cg_matrix *A, struct cg_halo *h, double *p, double *q)
{
    cg_start_isend(A, h, p);
    MPI_Waitall(2 * h->nnbr, h->req, h->status);
    cg_rows(A, NULL, A->nlocal, p, q);
}

static void cg_spmv_overlap(const struct cg_matrix *A, struct cg_halo *h, double *p, double *q)
{
    cg_start_isend(A, h, p);
    cg_rows(A, A->inner, A->ninner, p, q);
    MPI_Waitall(2 * h->nnbr, h->req, h->status);
    cg_rows(A, A->outer, A->nouter, p, q);
}

static void cg_reduce(struct cg_halo *h)
{
    MPI_Allreduce(h->slots, h->sums, CG_CHUNKS, MPI_DOUBLE, MPI_SUM, h->comm);
}

const struct cg_mode cg_modes[] = {
    { "send", "MPI_Irecv, blocking MPI_Send, MPI_Wait per neighbour (HPCG's exchange)",
      cg_spmv_send, cg_reduce },
    { "isend", "MPI_Irecv/MPI_Isend of all halos, then MPI_Waitall", cg_spmv_isend, cg_reduce },
    { "overlap", "rows without halo entries multiplied while the halos travel",
      cg_spmv_overlap, cg_reduce },
    { NULL, NULL, NULL, NULL },
};
