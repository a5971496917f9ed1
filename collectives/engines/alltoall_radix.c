/*
 * alltoall_radix.c: the mixed-radix (Bruck-style) alltoall engine behind bruck, mesh2d,
 * mesh3d and recursive_doubling.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The distance k = (destination - source) mod p of every block is written in a mixed radix
 * with digits radix[0], radix[1], ...  Phase i moves every block whose digit i is v != 0 by
 * v * weight(i) ranks, one message per value v, all values of a phase at once.  After the
 * last phase each block has travelled its whole distance.  Bruck is radix 2 in ceil(lg p)
 * phases; a 2D (3D) mesh is two (three) phases of radix about sqrt(p) (cbrt(p)): the ranks of
 * a phase form the rows (columns, ...) of a virtual torus.  With xor = 1 the distance is
 * destination XOR source and partners are rank XOR 2^i (recursive doubling, power of two).
 *
 * Blocks live packed in a staging buffer indexed by distance: slot k of rank r starts as the
 * block r sends to r+k (r XOR k) and ends as the block r receives from r-k (r XOR k).
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "coll_engines.h"
#include "coll_util.h"

int aot_alltoall_radix(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                       MPI_Datatype rdt, MPI_Comm comm, const int *radix, int ndigits, int xor)
{
    struct aot_dt sd, rd;
    char *slots = NULL, *sendb = NULL, *recvb = NULL;
    MPI_Request *req = NULL;
    int *voff = NULL;
    int p, rank, rc;
    size_t B;
    long weight = 1;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    rc = aot_coll_dt(sdt, &sd);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(rdt, &rd);
    if (rc != MPI_SUCCESS)
        return rc;
    if (xor && !aot_coll_is_pof2(p))
        return MPI_ERR_OTHER;       /* the selector checks AOT_R_POF2 first */
    B = (size_t) scount * (size_t) sd.size;
    slots = aot_coll_alloc((size_t) p * B + 1);
    sendb = aot_coll_alloc((size_t) p * B + 1);
    recvb = aot_coll_alloc((size_t) p * B + 1);
    req = malloc(2 * (size_t) p * sizeof(*req));
    voff = malloc((size_t) p * sizeof(*voff));
    if (!slots || !sendb || !recvb || !req || !voff) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int k = 0; k < p && rc == MPI_SUCCESS; k++) {
        int dst = xor ? rank ^ k : (rank + k) % p;
        rc = aot_coll_pack(AOT_AT(sbuf, (MPI_Aint) dst * scount, sd.extent), scount, sdt,
                           slots + (size_t) k * B, (MPI_Aint) B);
    }
    for (int i = 0; i < ndigits && rc == MPI_SUCCESS && weight < p; i++) {
        int R = radix[i], nreq = 0;
        size_t used = 0;
        if (R <= 1)
            continue;
        for (int v = 1; v < R && v * weight < p && rc == MPI_SUCCESS; v++) {
            int dist = (int) (v * weight), cnt = 0;
            int dst = xor ? rank ^ dist : (rank + dist) % p;
            int src = xor ? rank ^ dist : (rank - dist + p) % p;
            voff[v] = (int) used;
            for (int k = 0; k < p; k++)
                if ((k / weight) % R == v)
                    memcpy(sendb + (used + (size_t) cnt++) * B, slots + (size_t) k * B, B);
            rc = PMPI_Irecv(recvb + used * B, (int) ((size_t) cnt * B), MPI_BYTE, src,
                            AOT_TAG_ALLTOALL, comm, &req[nreq++]);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Isend(sendb + used * B, (int) ((size_t) cnt * B), MPI_BYTE, dst,
                                AOT_TAG_ALLTOALL, comm, &req[nreq++]);
            used += (size_t) cnt;
        }
        if (nreq) {
            int wrc = aot_coll_waitall(nreq, req);
            if (rc == MPI_SUCCESS)
                rc = wrc;
        }
        for (int v = 1; v < R && v * weight < p && rc == MPI_SUCCESS; v++) {
            size_t at = (size_t) voff[v];
            for (int k = 0; k < p; k++)
                if ((k / weight) % R == v)
                    memcpy(slots + (size_t) k * B, recvb + at++ * B, B);
        }
        weight *= R;
    }
    for (int k = 0; k < p && rc == MPI_SUCCESS; k++) {
        int src = xor ? rank ^ k : (rank - k + p) % p;
        rc = aot_coll_unpack(slots + (size_t) k * B, (MPI_Aint) B,
                             AOT_AT(rbuf, (MPI_Aint) src * rcount, rd.extent), rcount, rdt);
    }
out:
    aot_coll_free(slots);
    aot_coll_free(sendb);
    aot_coll_free(recvb);
    free(req);
    free(voff);
    return rc;
}
