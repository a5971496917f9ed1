/*
 * allgather_exchange.c: engine of the allgather ring and pair families -- p-1 steps, one
 * exchange per step, with optional synchronisation between steps (coll_util.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * ring: at step k a rank forwards to its right neighbour the block it received at step k-1
 * (its own block first) and receives block rank-k from its left neighbour.
 * pair: at step k it exchanges its own block with rank XOR k (power-of-two sizes only).
 */
#include "coll_internal.h"

int aot_allgather_exchange(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, MPI_Comm comm, int pair,
                           enum aot_coll_sync sync, long n)
{
    MPI_Aint lb, rext;
    int p, rank, rc;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    if (pair && !aot_coll_is_pof2(p))
        return MPI_ERR_OTHER;       /* the selector checks AOT_R_POF2 first */
    PMPI_Type_get_extent(rdt, &lb, &rext);
    rc = aot_coll_copy(sbuf, scount, sdt, AOT_AT(rbuf, (MPI_Aint) rank * rcount, rext), rcount,
                       rdt);
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int dst = pair ? rank ^ k : (rank + 1) % p;
        int src = pair ? rank ^ k : (rank - 1 + p) % p;
        int sblock = pair ? rank : (rank - k + 1 + p) % p;
        int rblock = pair ? src : (rank - k + p) % p;
        rc = aot_coll_sync_step(comm, sync, n, k, dst, src);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Sendrecv(AOT_AT(rbuf, (MPI_Aint) sblock * rcount, rext), rcount, rdt, dst,
                               AOT_TAG_ALLGATHER, AOT_AT(rbuf, (MPI_Aint) rblock * rcount, rext),
                               rcount, rdt, src, AOT_TAG_ALLGATHER, comm, MPI_STATUS_IGNORE);
    }
    return rc;
}
