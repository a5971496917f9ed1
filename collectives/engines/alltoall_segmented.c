/*
 * alltoall_segmented.c: engine of the spread_segmented algorithms of alltoall and alltoallv --
 * every block cut into messages of at most `segment` bytes, all of them posted at once, peers
 * in the order rank+1, rank+2, ... as in spreading simple.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Why: MPICH 4.0.2 over UCX 1.13's TCP transport sends a message above UCX's rendezvous
 * threshold (between 16 and 32 KiB there) after a handshake, and on the emulated cluster (8
 * ranks on 2 cores) two ranks exchanging such messages both ways move 48-53 % of the link's
 * rate in each direction, at 50, 100 and 200 Mbit/s alike, against 88-93 % for messages of
 * 16 KiB or less, which go eagerly (docs/netcluster.md, "Where an alltoall's link time goes").
 * Cut into eager messages, every block keeps its links as busy as the kernel's TCP can.
 *
 * Blocks travel as packed bytes (MPI_BYTE), so both sides cut them alike whatever their
 * datatypes: a send block and the matching receive block have one type signature, hence one
 * size, hence the same segments, and the segments of one pair meet in order (messages between
 * two ranks with one tag do not overtake).  A block of a contiguous datatype is sent from and
 * received into the program's buffer; other blocks are packed into, and unpacked from, scratch
 * memory.  MPI_BYTE carries no representation conversion: for homogeneous systems, as every
 * algorithm that runs on packed bytes here (the broadcasts).
 */
#include <stdint.h>
#include <stdlib.h>

#include <mpi.h>

#include "coll_engines.h"
#include "coll_util.h"

/* Messages a block of `bytes` becomes. */
static MPI_Aint aot_seg_count(MPI_Aint bytes, MPI_Aint seg)
{
    return bytes > 0 ? (bytes + seg - 1) / seg : 0;
}

/* Posts the segments of one block: `bytes` at buf, to or from peer; *n counts the requests
 * posted. */
static int aot_seg_post(int send, char *buf, MPI_Aint bytes, MPI_Aint seg, int peer, int tag,
                        MPI_Comm comm, MPI_Request *req, int *n)
{
    int rc = MPI_SUCCESS;

    for (MPI_Aint off = 0; off < bytes && rc == MPI_SUCCESS; off += seg) {
        int len = (int) (bytes - off < seg ? bytes - off : seg);
        rc = send ? PMPI_Isend(buf + off, len, MPI_BYTE, peer, tag, comm, &req[*n])
                  : PMPI_Irecv(buf + off, len, MPI_BYTE, peer, tag, comm, &req[*n]);
        if (rc == MPI_SUCCESS)
            ++*n;
    }
    return rc;
}

int aot_alltoall_segmented(const struct aot_win_blocks *b, MPI_Comm comm, long segment, int tag)
{
    struct aot_dt sd, rd;
    MPI_Aint seg = segment < 1 ? 1 : segment, nreq = 0, stotal = 0, rtotal = 0, soff, roff;
    MPI_Request *req = NULL;
    char *stmp = NULL, *rtmp = NULL;
    int p, rank, n = 0, count, rcount, rc;
    void *s, *r;

    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    if ((rc = aot_coll_dt(b->sdt, &sd)) != MPI_SUCCESS
        || (rc = aot_coll_dt(b->rdt, &rd)) != MPI_SUCCESS)
        return rc;
    s = aot_win_block(b, 1, rank, &count);
    r = aot_win_block(b, 0, rank, &rcount);
    rc = aot_coll_copy(s, count, b->sdt, r, rcount, b->rdt);
    if (rc != MPI_SUCCESS || p == 1)
        return rc;
    for (int j = 0; j < p; j++) {
        if (j == rank)
            continue;
        aot_win_block(b, 1, j, &count);
        stotal += (MPI_Aint) count * sd.size;
        nreq += aot_seg_count((MPI_Aint) count * sd.size, seg);
        aot_win_block(b, 0, j, &count);
        rtotal += (MPI_Aint) count * rd.size;
        nreq += aot_seg_count((MPI_Aint) count * rd.size, seg);
    }
    req = malloc((size_t) (nreq ? nreq : 1) * sizeof(*req));
    if (!sd.contig && stotal)
        stmp = aot_coll_alloc((size_t) stotal);
    if (!rd.contig && rtotal)
        rtmp = aot_coll_alloc((size_t) rtotal);
    if (!req || (!sd.contig && stotal && !stmp) || (!rd.contig && rtotal && !rtmp)) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }

    /* every receive first, then every send, each in spreading order */
    roff = 0;
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int src = (rank - k + p) % p;
        char *at = aot_win_block(b, 0, src, &count);
        MPI_Aint bytes = (MPI_Aint) count * rd.size;
        at = rd.contig ? at + rd.true_lb : rtmp + roff;
        rc = aot_seg_post(0, at, bytes, seg, src, tag, comm, req, &n);
        roff += bytes;
    }
    soff = 0;
    for (int k = 1; k < p && rc == MPI_SUCCESS; k++) {
        int dst = (rank + k) % p;
        char *at = aot_win_block(b, 1, dst, &count);
        MPI_Aint bytes = (MPI_Aint) count * sd.size;
        if (!sd.contig) {
            rc = aot_coll_pack(at, count, b->sdt, stmp + soff, bytes);
            at = stmp + soff;
        } else {
            at += sd.true_lb;
        }
        if (rc == MPI_SUCCESS)
            rc = aot_seg_post(1, at, bytes, seg, dst, tag, comm, req, &n);
        soff += bytes;
    }
    if (rc != MPI_SUCCESS) {    /* leave nothing pending on the private communicator */
        aot_coll_cancel_all(n, req);
        goto out;
    }
    rc = aot_coll_waitall(n, req);
    roff = 0;
    for (int k = 1; k < p && rc == MPI_SUCCESS && rtmp; k++) {
        int src = (rank - k + p) % p;
        char *at = aot_win_block(b, 0, src, &count);
        MPI_Aint bytes = (MPI_Aint) count * rd.size;
        rc = aot_coll_unpack(rtmp + roff, bytes, at, count, b->rdt);
        roff += bytes;
    }
out:
    aot_coll_free(stmp);
    aot_coll_free(rtmp);
    free(req);
    return rc;
}
