/*
 * alltoallv_exchange.c: engine of the alltoallv ring and pair families -- p-1 steps, one
 * exchange per step, with optional synchronisation between steps (coll_util.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * ring: at step k a rank sends its block for rank+k and receives the block from rank-k.
 * pair: at step k it exchanges blocks with rank XOR k (power-of-two sizes only).
 */
#include <mpi.h>

#include "coll_engines.h"
#include "coll_util.h"

int aot_alltoallv_exchange(const void *sbuf, const int *scounts, const int *sdispls,
                           MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                           MPI_Datatype rdt, MPI_Comm comm, int pair, enum aot_coll_sync sync,
                           long n)
{
    MPI_Aint lb, sext, rext;
    int p, rank, rc;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    if (pair && !aot_coll_is_pof2(p))
        return MPI_ERR_OTHER;       /* the selector checks AOT_R_POF2 first */
    PMPI_Type_get_extent(sdt, &lb, &sext);
    PMPI_Type_get_extent(rdt, &lb, &rext);
    rc = aot_coll_copy(AOT_AT(sbuf, sdispls[rank], sext), scounts[rank], sdt,
                       AOT_AT(rbuf, rdispls[rank], rext), rcounts[rank], rdt);
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int dst = pair ? rank ^ k : (rank + k) % p;
        int src = pair ? rank ^ k : (rank - k + p) % p;
        rc = aot_coll_sync_step(comm, sync, n, k, dst, src);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Sendrecv(AOT_AT(sbuf, sdispls[dst], sext), scounts[dst], sdt, dst,
                               AOT_TAG_ALLTOALLV, AOT_AT(rbuf, rdispls[src], rext), rcounts[src],
                               rdt, src, AOT_TAG_ALLTOALLV, comm, MPI_STATUS_IGNORE);
    }
    return rc;
}
