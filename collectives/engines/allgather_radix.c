/*
 * allgather_radix.c: the mixed-radix (Bruck-style) allgather engine behind bruck, mesh2d and
 * mesh3d.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Slot k of rank r's packed staging buffer holds the block of rank r+k.  Before phase i a
 * rank holds slots [0, w) with w the product of the earlier radices; in phase i it sends those
 * slots to r - v*w and receives slots [v*w, v*w + w) from r + v*w, for v = 1 .. radix[i]-1,
 * all at once (clipped at p).  Bruck is radix 2 in ceil(lg p) phases; a 2D (3D) mesh is two
 * (three) phases of radix about sqrt(p) (cbrt(p)) over the rows (columns, ...) of a virtual
 * torus.  At the end slot k is unpacked into block r+k of the receive buffer.
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_engines.h"
#include "coll_util.h"

int aot_allgather_radix(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, MPI_Comm comm, const int *radix, int ndigits)
{
    struct aot_dt sd, rd;
    char *slots = NULL;
    MPI_Request *req = NULL;
    int p, rank, rc;
    size_t B;
    long w = 1;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    rc = aot_coll_dt(sdt, &sd);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(rdt, &rd);
    if (rc != MPI_SUCCESS)
        return rc;
    B = (size_t) scount * (size_t) sd.size;
    slots = aot_coll_alloc((size_t) p * B + 1);
    req = malloc(2 * (size_t) p * sizeof(*req));
    if (!slots || !req) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    rc = aot_coll_pack(sbuf, scount, sdt, slots, (MPI_Aint) B);
    for (int i = 0; i < ndigits && rc == MPI_SUCCESS && w < p; i++) {
        int R = radix[i], nreq = 0;
        if (R <= 1)
            continue;
        for (int v = 1; v < R && v * w < p && rc == MPI_SUCCESS; v++) {
            int off = (int) (v * w);
            int n = (int) (w < p - off ? w : p - off);
            rc = PMPI_Irecv(slots + (size_t) off * B, (int) ((size_t) n * B), MPI_BYTE,
                            (rank + off) % p, AOT_TAG_ALLGATHER, comm, &req[nreq++]);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Isend(slots, (int) ((size_t) n * B), MPI_BYTE, (rank - off + p) % p,
                                AOT_TAG_ALLGATHER, comm, &req[nreq++]);
        }
        if (nreq) {
            int wrc = aot_coll_waitall(nreq, req);
            if (rc == MPI_SUCCESS)
                rc = wrc;
        }
        w *= R;
    }
    for (int k = 0; k < p && rc == MPI_SUCCESS; k++)
        rc = aot_coll_unpack(slots + (size_t) k * B, (MPI_Aint) B,
                             AOT_AT(rbuf, (MPI_Aint) ((rank + k) % p) * rcount, rd.extent),
                             rcount, rdt);
out:
    aot_coll_free(slots);
    free(req);
    return rc;
}
