/*
 * allgatherv_recursive_doubling.c: allgatherv, recursive doubling.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Recursive doubling -- as for allgather, on a packed copy that holds the blocks
 * back to back in rank order, so that the blocks of a range of ranks are one contiguous
 * message whatever the displacements; unpacked into the receive buffer at the end.
 * Non-powers of two: the first 2*rem ranks pair up (even hands its block to odd, odd returns
 * the result).
 * Restrictions: none.
 * Cost = lg p·α + (n-m)β + local packing of 2n bytes  (power of two);
 *   + α + mβ and α + nβ otherwise   (n: bytes of all blocks, m: of the own block)
 */
#include <mpi.h>
#include <stdlib.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_util.h"

int aot_allgatherv_recursive_doubling(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                      const int *rcounts, const int *displs, MPI_Datatype rdt,
                                      const struct aot_coll_ctx *ctx)
{
    MPI_Comm comm = ctx->comm;
    struct aot_dt rd;
    size_t *off = NULL;
    char *packed = NULL;
    int p = ctx->size, rank = ctx->rank, pof2, rem, newrank, rc;

    rc = aot_coll_dt(rdt, &rd);
    if (rc != MPI_SUCCESS)
        return rc;
    off = malloc(((size_t) p + 1) * sizeof(*off));
    if (!off)
        return MPI_ERR_NO_MEM;
    off[0] = 0;
    for (int j = 0; j < p; j++)
        off[j + 1] = off[j] + (size_t) rcounts[j] * (size_t) rd.size;
    packed = aot_coll_alloc(off[p] + 1);
    if (!packed) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    rc = aot_coll_pack(sbuf, scount, sdt, packed + off[rank],
                       (MPI_Aint) (off[rank + 1] - off[rank]));
    if (rc != MPI_SUCCESS)
        goto out;
    pof2 = aot_coll_pof2_floor(p);
    rem = p - pof2;

#define AOT_BYTES(a, b) ((int) (off[b] - off[a]))
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            rc = PMPI_Send(packed + off[rank], AOT_BYTES(rank, rank + 1), MPI_BYTE, rank + 1,
                           AOT_TAG_ALLGATHERV, comm);
            newrank = -1;
        } else {
            rc = PMPI_Recv(packed + off[rank - 1], AOT_BYTES(rank - 1, rank), MPI_BYTE, rank - 1,
                           AOT_TAG_ALLGATHERV, comm, MPI_STATUS_IGNORE);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }

#define AOT_FIRST(nr) ((nr) < rem ? 2 * (nr) : (nr) + rem)
    for (int mask = 1; newrank >= 0 && mask < pof2 && rc == MPI_SUCCESS; mask <<= 1) {
        int pnr = newrank ^ mask;
        int partner = pnr < rem ? 2 * pnr + 1 : pnr + rem;
        int g = newrank & ~(mask - 1), pg = g ^ mask;
        int s0 = AOT_FIRST(g), s1 = AOT_FIRST(g + mask);
        int r0 = AOT_FIRST(pg), r1 = AOT_FIRST(pg + mask);
        rc = PMPI_Sendrecv(packed + off[s0], AOT_BYTES(s0, s1), MPI_BYTE, partner,
                           AOT_TAG_ALLGATHERV, packed + off[r0], AOT_BYTES(r0, r1), MPI_BYTE,
                           partner, AOT_TAG_ALLGATHERV, comm, MPI_STATUS_IGNORE);
    }
#undef AOT_FIRST

    if (rc == MPI_SUCCESS && rank < 2 * rem) {
        if (rank % 2)
            rc = PMPI_Send(packed, AOT_BYTES(0, p), MPI_BYTE, rank - 1, AOT_TAG_ALLGATHERV, comm);
        else
            rc = PMPI_Recv(packed, AOT_BYTES(0, p), MPI_BYTE, rank + 1, AOT_TAG_ALLGATHERV, comm,
                           MPI_STATUS_IGNORE);
    }
#undef AOT_BYTES
    for (int j = 0; j < p && rc == MPI_SUCCESS; j++)
        rc = aot_coll_unpack(packed + off[j], (MPI_Aint) (off[j + 1] - off[j]),
                             AOT_AT(rbuf, displs[j], rd.extent), rcounts[j], rdt);
out:
    free(off);
    aot_coll_free(packed);
    return rc;
}
