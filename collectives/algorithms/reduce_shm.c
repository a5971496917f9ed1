/*
 * reduce_shm.c: reduce, host-level through shared memory.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Shared memory, hierarchical -- as allreduce_shm, every host's leader folds its
 * host's vectors together in the host's shared window (engines/coll_shm.c); the leaders then
 * run a binomial reduce on the leaders' communicator to the root's host, in place in that
 * leader's output slot.  If the root is that leader it copies the result to its buffer;
 * otherwise the leader raises RELEASE and the root copies it from the slot.  Ranks other than
 * the root leave as soon as their vector is handed over (ARRIVE); their next call waits for
 * the leader to have TAKEN it before reusing the slot.
 * Restrictions: commutative operations; the order of operations depends on the placement of
 * ranks on hosts (not AOT_P_ORDERED).  Vectors whose layout does not fit in AOT_SHM_SLOT
 * bytes, or no window: MPI's own reduce on the whole communicator (a fallback never slower
 * than native).
 * Cost = lg H(α + nβ + nγ) + (L-1)nγ + 1-2 hand-offs and 2 copies of n bytes within a host
 *   (H: hosts, L: ranks on the largest host, n: bytes; a hand-off is a cache line moving
 *   between cores, or a time slice when ranks outnumber cores).  First call: the set-up of
 *   aot_coll_shm.
 */
#include <mpi.h>
#include <stdint.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_shm.h"
#include "coll_util.h"

int aot_reduce_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   int root, const struct aot_coll_ctx *ctx)
{
    const void *input = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    const struct aot_coll_hier *h;
    struct aot_shm *s;
    struct aot_dt d;
    uint64_t seq;
    void *acc;
    int rc, use, root_host;

    rc = aot_shm_reduction(ctx, count, dt, &s, &d, &use);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!use)
        return aot_reduce_native(sbuf, rbuf, count, dt, op, root, ctx);
    if (count == 0)
        return MPI_SUCCESS;
    h = s->hier;
    root_host = h->host[root];
    if (s->local_size == 1) {
        /* alone on the host (so the root's host's leader when on the root's host) */
        if (s->leaders == MPI_COMM_NULL)
            return aot_coll_copy(input, count, dt, rbuf, count, dt);
        return aot_reduce_binomial(sbuf, rbuf, count, dt, op, root_host, &s->lctx);
    }
    seq = aot_shm_begin(s);
    rc = aot_shm_reduce_host(s, seq, input, count, dt, op, &d, &acc);
    if (s->local_rank == 0) {
        if (s->leaders != MPI_COMM_NULL && rc == MPI_SUCCESS)
            rc = aot_reduce_binomial(h->my_host == root_host ? MPI_IN_PLACE : acc, acc, count,
                                     dt, op, root_host, &s->lctx);
        if (ctx->rank == root && rc == MPI_SUCCESS)
            rc = aot_coll_copy(acc, count, dt, rbuf, count, dt);
        else if (h->my_host == root_host)
            aot_shm_post(s, AOT_SHM_RELEASE, seq);
    } else if (ctx->rank == root) {
        aot_shm_wait(s, 0, AOT_SHM_RELEASE, seq);
        rc = aot_coll_copy(aot_shm_typed(aot_shm_out(s, seq), &d), count, dt, rbuf, count, dt);
    }
    aot_shm_end(s, seq);
    return rc;
}
