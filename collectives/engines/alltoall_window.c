/*
 * alltoall_window.c: engine of the ring_window algorithms of alltoall and alltoallv -- the
 * ring's p-1 steps with w of them in flight, so that a step's transfers (and the rendezvous
 * handshakes of large messages) start before the previous step's have ended.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Step k (1..p-1) receives the block of rank-k and sends the block for rank+k.  Steps 1..w are
 * posted at once (receive first, then send); when step k has completed both its transfers,
 * step k+w is posted.  With w = 1 this is the ring whose steps follow each other without a
 * gap; with w = p-1 it is "spreading simple" (every transfer at once).  In between, each link
 * carries at most w flows in each direction, enough to keep it busy across step boundaries
 * without the p-1 concurrent flows that overflow switch queues.
 *
 * Every block of a call goes to a different rank and comes from a different rank, so the
 * steps in flight never compete for a match; a call returns only when all its transfers are
 * complete, so calls do not mix either.
 */
#include <stdlib.h>

#include <mpi.h>

#include "coll_engines.h"
#include "coll_util.h"

struct aot_win_blocks aot_win_blocks_alltoall(const void *sbuf, int scount, MPI_Datatype sdt,
                                              void *rbuf, int rcount, MPI_Datatype rdt)
{
    struct aot_win_blocks b = {sbuf, rbuf, sdt, rdt, 0, 0, scount, rcount, NULL, NULL, NULL,
                               NULL};
    MPI_Aint lb;

    PMPI_Type_get_extent(sdt, &lb, &b.sext);
    PMPI_Type_get_extent(rdt, &lb, &b.rext);
    return b;
}

struct aot_win_blocks aot_win_blocks_alltoallv(const void *sbuf, const int *scounts,
                                               const int *sdispls, MPI_Datatype sdt, void *rbuf,
                                               const int *rcounts, const int *rdispls,
                                               MPI_Datatype rdt)
{
    struct aot_win_blocks b = aot_win_blocks_alltoall(sbuf, 0, sdt, rbuf, 0, rdt);

    b.scounts = scounts;
    b.sdispls = sdispls;
    b.rcounts = rcounts;
    b.rdispls = rdispls;
    return b;
}

void *aot_win_block(const struct aot_win_blocks *b, int send, int j, int *count)
{
    const int *counts = send ? b->scounts : b->rcounts;
    const int *displs = send ? b->sdispls : b->rdispls;
    const void *buf = send ? b->sbuf : b->rbuf;
    MPI_Aint ext = send ? b->sext : b->rext;
    int one = send ? b->scount : b->rcount;

    if (counts) {
        *count = counts[j];
        return AOT_AT(buf, displs[j], ext);
    }
    *count = one;
    return AOT_AT(buf, (MPI_Aint) j * one, ext);
}

/* Posts step k (receive from rank-k, then send to rank+k) into the request pair req[0..1]. */
static int aot_win_post(const struct aot_win_blocks *b, MPI_Comm comm, int rank, int p, int k,
                        int tag, MPI_Request *req)
{
    int src = (rank - k + p) % p, dst = (rank + k) % p, sc, rcnt;
    void *r = aot_win_block(b, 0, src, &rcnt), *s = aot_win_block(b, 1, dst, &sc);
    int rc = PMPI_Irecv(r, rcnt, b->rdt, src, tag, comm, &req[0]);

    return rc == MPI_SUCCESS ? PMPI_Isend(s, sc, b->sdt, dst, tag, comm, &req[1]) : rc;
}

int aot_alltoall_window(const struct aot_win_blocks *b, MPI_Comm comm, long window, int tag)
{
    MPI_Request *req;
    int p, rank, rc, w, sc, rcnt;
    void *s, *r;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    s = aot_win_block(b, 1, rank, &sc);
    r = aot_win_block(b, 0, rank, &rcnt);
    rc = aot_coll_copy(s, sc, b->sdt, r, rcnt, b->rdt);
    if (rc != MPI_SUCCESS || p == 1)
        return rc;
    w = window < 1 ? 1 : window > p - 1 ? p - 1 : (int) window;
    req = malloc(2 * (size_t) w * sizeof(*req));
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < 2 * w; i++)
        req[i] = MPI_REQUEST_NULL;

    /* step k goes into slot (k-1) mod w */
    for (int k = 1; k <= w && rc == MPI_SUCCESS; k++)
        rc = aot_win_post(b, comm, rank, p, k, tag, &req[2 * (k - 1)]);
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int slot = (k - 1) % w;
        rc = aot_coll_waitall(2, &req[2 * slot]);
        if (rc == MPI_SUCCESS && k + w < p)
            rc = aot_win_post(b, comm, rank, p, k + w, tag, &req[2 * slot]);
    }
    if (rc != MPI_SUCCESS)      /* leave nothing pending on the program's communicator */
        aot_coll_cancel_all(2 * w, req);
    free(req);
    return rc;
}
