/*
 * allgatherv_exchange.c: engine of the allgatherv ring and pair families -- p-1 steps, one
 * exchange per step, with optional synchronisation between steps (coll_util.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * ring: at step k a rank forwards to its right neighbour the block it received at step k-1
 * (its own block first) and receives block rank-k from its left neighbour.
 * pair: at step k it exchanges its own block with rank XOR k (power-of-two sizes only).
 * The _ordered form runs the ring over positions in a given order of the ranks (topo_ring:
 * the topology order of the hierarchy); ranks and blocks are those of position i, order[i].
 */
#include <mpi.h>

#include "coll_engines.h"
#include "coll_util.h"

int aot_allgatherv_exchange(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            const int *rcounts, const int *displs, MPI_Datatype rdt,
                            MPI_Comm comm, int pair, enum aot_coll_sync sync, long n)
{
    return aot_allgatherv_exchange_ordered(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm,
                                           pair, sync, n, NULL, NULL);
}

int aot_allgatherv_exchange_ordered(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                    const int *rcounts, const int *displs, MPI_Datatype rdt,
                                    MPI_Comm comm, int pair, enum aot_coll_sync sync, long n,
                                    const int *order, const int *place)
{
    MPI_Aint lb, rext;
    int p, rank, me, rc;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    if (pair && !aot_coll_is_pof2(p))
        return MPI_ERR_OTHER;       /* the selector checks AOT_R_POF2 first */
    me = place ? place[rank] : rank;
    PMPI_Type_get_extent(rdt, &lb, &rext);
    rc = aot_coll_copy(sbuf, scount, sdt, AOT_AT(rbuf, displs[rank], rext), rcounts[rank], rdt);
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        struct aot_xstep st = aot_coll_xstep(me, p, k, pair, order);
        int dst = st.dst, src = st.src, sblock = st.sblock, rblock = st.rblock;
        rc = aot_coll_sync_step(comm, sync, n, k, dst, src);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Sendrecv(AOT_AT(rbuf, displs[sblock], rext), rcounts[sblock], rdt, dst,
                               AOT_TAG_ALLGATHERV, AOT_AT(rbuf, displs[rblock], rext),
                               rcounts[rblock], rdt, src, AOT_TAG_ALLGATHERV, comm,
                               MPI_STATUS_IGNORE);
    }
    return rc;
}
