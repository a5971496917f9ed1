/*
 * bcast_shm.c: broadcast, host-level through shared memory.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Shared memory, hierarchical -- on the root's host the root packs the message
 * into the call's output slot of the host's shared window (engines/coll_shm.c) and raises its
 * RELEASE flag; that host's leader (if it is not the root) unpacks it from there.  The hosts'
 * leaders then run a binomial broadcast on the leaders' communicator from the root's host;
 * every other leader packs what it received into its host's output slot and raises RELEASE.
 * The remaining ranks wait for the flag of whoever wrote their slot and unpack.  Output
 * slots alternate between calls, so a root can start the next broadcast while slow readers
 * still copy this one.
 * Restrictions: none.  Messages of more than AOT_SHM_SLOT bytes (count x type size), or no
 * window: MPI's own broadcast on the whole communicator (a fallback never slower than native;
 * issue 31 measured the van de Geijn broadcast it ran before at 200 us against native's 36 us,
 * 16 KiB on 4 ranks of one host).
 * Cost = ceil(lg H)(α + nβ) + 2 hand-offs and 2 copies of n bytes within a host (H: hosts,
 * n: bytes; a hand-off is a cache line moving between cores, or a time slice when ranks
 * outnumber cores).  First call: the set-up of aot_coll_shm.
 */
#include <mpi.h>
#include <stdint.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_shm.h"
#include "coll_util.h"

int aot_bcast_shm(void *buf, int count, MPI_Datatype dt, int root,
                  const struct aot_coll_ctx *ctx)
{
    const struct aot_coll_hier *h;
    struct aot_shm *s;
    struct aot_dt d;
    uint64_t seq;
    MPI_Aint bytes;
    int rc, writer, root_host;

    rc = aot_coll_shm(ctx, &s);
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(dt, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    bytes = (MPI_Aint) count * d.size;
    if (!s->ok || (size_t) bytes > AOT_SHM_SLOT)
        return aot_bcast_native(buf, count, dt, root, ctx);
    if (bytes == 0)
        return MPI_SUCCESS;
    h = s->hier;
    root_host = h->host[root];
    /* who fills this host's slot: the root on its own host, the leader elsewhere */
    writer = h->my_host == root_host ? s->local_of[root] : 0;
    seq = aot_shm_begin(s);

    if (ctx->rank == root && s->local_size > 1) {
        aot_shm_claim_out(s, seq);
        rc = aot_coll_pack(buf, count, dt, aot_shm_out(s, seq), bytes);
        aot_shm_post(s, AOT_SHM_RELEASE, seq);
    }
    if (s->local_rank == 0) {
        if (h->my_host == root_host && ctx->rank != root) {
            aot_shm_wait(s, writer, AOT_SHM_RELEASE, seq);
            rc = aot_coll_unpack(aot_shm_out(s, seq), bytes, buf, count, dt);
        }
        if (s->leaders != MPI_COMM_NULL && rc == MPI_SUCCESS)
            rc = aot_bcast_binomial(buf, count, dt, root_host, &s->lctx);
        if (h->my_host != root_host && s->local_size > 1) {
            aot_shm_claim_out(s, seq);
            if (rc == MPI_SUCCESS)
                rc = aot_coll_pack(buf, count, dt, aot_shm_out(s, seq), bytes);
            aot_shm_post(s, AOT_SHM_RELEASE, seq);
        }
    } else if (ctx->rank != root) {
        aot_shm_wait(s, writer, AOT_SHM_RELEASE, seq);
        rc = aot_coll_unpack(aot_shm_out(s, seq), bytes, buf, count, dt);
    }
    aot_shm_end(s, seq);
    return rc;
}
