/*
 * reduce_chain.c: reduce, pipelined chain.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Pipelined chain -- ranks form a chain p-1 -> p-2 -> ... -> 0 (numbered from the
 * root for commutative operations, real ranks with a final send to the root otherwise); the
 * vector moves in segments of `segment` bytes (parameter, whole elements, at least one), each
 * rank combining own op received and passing the segment on at once.
 * Restrictions: none (the order of operations is fixed for a given size).
 * Cost = (p - 1 + k - 1)(α + sβ + sγ), k = ceil(n/s) segments of s bytes
 *   (n: bytes of the vector)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_reduce_chain(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    long param = ctx->param;
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    struct aot_dt d;
    MPI_Request *req = NULL;
    void *raw = NULL, *acc = NULL;
    int p = ctx->size, rank = ctx->rank, commute, troot, v, seg, nseg, n = 0, rc;

    rc = PMPI_Op_commutative(op, &commute);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    if (p == 1)
        return aot_coll_copy(in, count, dt, rbuf, count, dt);
    troot = commute ? root : 0;
    v = (rank - troot + p) % p;
    seg = d.size > 0 && param / d.size > 0 ? (int) (param / d.size) : 1;
    if (seg > count)
        seg = count;
    nseg = seg > 0 ? (count + seg - 1) / seg : 0;
#define AOT_REAL(x) (((x) + troot) % p)

    req = malloc((size_t) (nseg > 0 ? nseg : 1) * sizeof(*req));
    if (v < p - 1)
        acc = aot_coll_tmp(count, &d, &raw);
    if (!req || (v < p - 1 && !acc)) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int s = 0; s < nseg && rc == MPI_SUCCESS; s++) {
        int first = s * seg, len = count - first < seg ? count - first : seg;
        const void *out = AOT_AT(in, first, d.extent);
        if (v < p - 1) {
            void *seg_acc = AOT_AT(acc, first, d.extent);
            rc = PMPI_Recv(seg_acc, len, dt, AOT_REAL(v + 1), AOT_TAG_REDUCE, comm,
                           MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = aot_coll_reduce_local(out, seg_acc, len, dt, op);  /* own op upper */
            out = seg_acc;
        }
        if (rc == MPI_SUCCESS && v > 0)
            rc = PMPI_Isend(out, len, dt, AOT_REAL(v - 1), AOT_TAG_REDUCE, comm, &req[n++]);
    }
    if (n) {
        int wrc = aot_coll_waitall(n, req);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    if (rc == MPI_SUCCESS && v == 0) {
        if (rank == root)
            rc = aot_coll_copy(acc, count, dt, rbuf, count, dt);
        else
            rc = PMPI_Send(acc, count, dt, root, AOT_TAG_REDUCE, comm);
    }
    if (rc == MPI_SUCCESS && rank == root && rank != troot)
        rc = PMPI_Recv(rbuf, count, dt, troot, AOT_TAG_REDUCE, comm, MPI_STATUS_IGNORE);
#undef AOT_REAL
out:
    free(req);
    aot_coll_free(raw);
    return rc;
}
