/*
 * alltoall_exchange.c: engine of the alltoall ring and pair families -- p-1 steps, one
 * exchange per step, with optional synchronisation between steps (coll_util.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * ring: at step k a rank sends its block for rank+k and receives the block from rank-k.
 * pair: at step k it exchanges blocks with rank XOR k (power-of-two sizes only), so the two
 * partners of a step talk to each other and to nobody else.
 */
#include <mpi.h>

#include "coll_engines.h"
#include "coll_util.h"

int aot_alltoall_exchange(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          int rcount, MPI_Datatype rdt, MPI_Comm comm, int pair,
                          enum aot_coll_sync sync, long n)
{
    MPI_Aint lb, sext, rext;
    int p, rank, rc;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    if (pair && !aot_coll_is_pof2(p))
        return MPI_ERR_OTHER;       /* the selector checks AOT_R_POF2 first */
    PMPI_Type_get_extent(sdt, &lb, &sext);
    PMPI_Type_get_extent(rdt, &lb, &rext);
    rc = aot_coll_copy(AOT_AT(sbuf, (MPI_Aint) rank * scount, sext), scount, sdt,
                       AOT_AT(rbuf, (MPI_Aint) rank * rcount, rext), rcount, rdt);
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int dst = pair ? rank ^ k : (rank + k) % p;
        int src = pair ? rank ^ k : (rank - k + p) % p;
        rc = aot_coll_sync_step(comm, sync, n, k, dst, src);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Sendrecv(AOT_AT(sbuf, (MPI_Aint) dst * scount, sext), scount, sdt, dst,
                               AOT_TAG_ALLTOALL, AOT_AT(rbuf, (MPI_Aint) src * rcount, rext),
                               rcount, rdt, src, AOT_TAG_ALLTOALL, comm, MPI_STATUS_IGNORE);
    }
    return rc;
}
