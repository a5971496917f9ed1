/*
 * allgather_posted.c: engine of allgather "simple" and "spreading simple" -- every receive and
 * every send posted at once, then one wait.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * simple visits the peers in the order 0, 1, ..., p-1; spreading simple visits rank+1,
 * rank+2, ... so that no rank is everyone's first target.
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_engines.h"
#include "coll_util.h"

int aot_allgather_posted(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, MPI_Comm comm, int spread)
{
    MPI_Aint lb, rext;
    MPI_Request *req;
    int p, rank, n = 0, rc = MPI_SUCCESS;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    PMPI_Type_get_extent(rdt, &lb, &rext);
    req = malloc(2 * (size_t) p * sizeof(*req));
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int src = spread ? (rank - k + p) % p : k - 1 + (k - 1 >= rank);
        rc = PMPI_Irecv(AOT_AT(rbuf, (MPI_Aint) src * rcount, rext), rcount, rdt, src,
                        AOT_TAG_ALLGATHER, comm, &req[n++]);
    }
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int dst = spread ? (rank + k) % p : k - 1 + (k - 1 >= rank);
        rc = PMPI_Isend(sbuf, scount, sdt, dst, AOT_TAG_ALLGATHER, comm, &req[n++]);
    }
    if (rc == MPI_SUCCESS)
        rc = aot_coll_copy(sbuf, scount, sdt, AOT_AT(rbuf, (MPI_Aint) rank * rcount, rext),
                           rcount, rdt);
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    free(req);
    return rc;
}
