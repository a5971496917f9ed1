/*
 * native.c: MPI's own collectives, registered like every other algorithm.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: native -- PMPI_<Collective>, whatever the MPI library chooses.
 * Restrictions: none.  Cost: that of the library's choice.
 *
 * The entry points in coll_run.c call PMPI_<Collective> on the user's communicator directly
 * when the decision is native (aot_reduce_pmpi and aot_allgatherv_pmpi for the two with
 * workarounds); the aot_<coll>_native functions are what the table holds, and what the
 * benchmark and the tests reach when they run an algorithm by its table entry.
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_allreduce_native(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         const struct aot_coll_ctx *ctx)
{
    return PMPI_Allreduce(sbuf, rbuf, count, dt, op, ctx->comm);
}

int aot_bcast_native(void *buf, int count, MPI_Datatype dt, int root,
                     const struct aot_coll_ctx *ctx)
{
    return PMPI_Bcast(buf, count, dt, root, ctx->comm);
}

/* MPICH 4.0.2 (and 4.1.1) crash in MPI_Reduce when the root is not rank 0 and passes
 * MPI_IN_PLACE, from about 600 ints up (MPIR_Reduce_intra_reduce_scatter_gather reads the
 * send buffer; pmodels/mpich#6540, fixed in 2023 by #6543).  Such a root hands MPI a copy of
 * its data instead -- legal, as only the root's own arguments change. */
int aot_reduce_pmpi(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    int root, MPI_Comm comm)
{
    struct aot_dt d;
    void *raw = NULL, *copy;
    int rc;

    if (sbuf != MPI_IN_PLACE || root == 0 || count == 0)
        return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    copy = aot_coll_tmp(count, &d, &raw);
    if (!copy)
        return MPI_ERR_NO_MEM;
    rc = aot_coll_copy(rbuf, count, dt, copy, count, dt);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Reduce(copy, rbuf, count, dt, op, root, comm);
    aot_coll_free(raw);
    return rc;
}

int aot_reduce_native(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, const struct aot_coll_ctx *ctx)
{
    return aot_reduce_pmpi(sbuf, rbuf, count, dt, op, root, ctx->comm);
}

int aot_allgather_native(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    int rank;
    MPI_Aint lb, ext;

    /* The runner hands algorithms the own block as a send buffer; MPI wants MPI_IN_PLACE. */
    PMPI_Comm_rank(comm, &rank);
    PMPI_Type_get_extent(rdt, &lb, &ext);
    if (sbuf == AOT_AT(rbuf, (MPI_Aint) rank * rcount, ext))
        sbuf = MPI_IN_PLACE;
    return PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm);
}

int aot_allgatherv_pmpi(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                        const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm)
{
    int rank, size;
    MPI_Aint lb, ext;

    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    PMPI_Type_get_extent(rdt, &lb, &ext);
    if (sbuf == AOT_AT(rbuf, displs[rank], ext))
        sbuf = MPI_IN_PLACE;
    /* MPICH 4.0.2 copies to the start of rbuf on a one-rank communicator, ignoring displs[0]
     * (pmodels/mpich#6374, fixed in 2023): do that copy here. */
    if (size == 1) {
        if (sbuf == MPI_IN_PLACE)
            return MPI_SUCCESS;
        return aot_coll_copy(sbuf, scount, sdt, AOT_AT(rbuf, displs[0], ext), rcounts[0], rdt);
    }
    return PMPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm);
}

int aot_allgatherv_native(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          const int *rcounts, const int *displs, MPI_Datatype rdt,
                          const struct aot_coll_ctx *ctx)
{
    return aot_allgatherv_pmpi(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, ctx->comm);
}

int aot_alltoall_native(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    return PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, ctx->comm);
}

int aot_alltoallv_native(const void *sbuf, const int *scounts, const int *sdispls,
                         MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                         MPI_Datatype rdt, const struct aot_coll_ctx *ctx)
{
    return PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, ctx->comm);
}

int aot_barrier_native(const struct aot_coll_ctx *ctx)
{
    return PMPI_Barrier(ctx->comm);
}
