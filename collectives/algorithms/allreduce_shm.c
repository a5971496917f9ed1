/*
 * allreduce_shm.c: allreduce, host-level through shared memory.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Shared memory, hierarchical (the X1's master-rank reduction, paper 001) -- every
 * rank of a host copies its vector into its input slot of the host's shared window
 * (engines/coll_shm.c) and raises ARRIVE; the host's leader copies its own vector into the
 * call's output slot, folds in the others' slots in local-rank order as they arrive and
 * raises TAKEN; the hosts' leaders then run recursive doubling on the leaders' communicator,
 * in place in the output slot; the leader raises RELEASE and every rank copies the result
 * out.  Vectors stay in their datatype's own layout in the slots, so any datatype an
 * operation accepts works.
 * Restrictions: commutative operations (a host's ranks need not be consecutive ranks).  The
 * order of operations is fixed for a given placement of ranks on hosts, but depends on that
 * placement, not only on the size: not AOT_P_ORDERED.  Vectors whose layout does not fit in
 * AOT_SHM_SLOT bytes, or no window: MPI's own allreduce on the whole communicator (a fallback
 * never slower than native).
 * Cost = lg H(α + nβ + nγ) + (L-1)nγ + 2 hand-offs and 2 copies of n bytes within a host
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

int aot_allreduce_shm(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      const struct aot_coll_ctx *ctx)
{
    const void *input = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    struct aot_shm *s;
    struct aot_dt d;
    uint64_t seq;
    void *acc;
    int rc, use;

    rc = aot_shm_reduction(ctx, count, dt, &s, &d, &use);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!use)
        return aot_allreduce_native(sbuf, rbuf, count, dt, op, ctx);
    if (count == 0)
        return MPI_SUCCESS;
    if (s->local_size == 1) {
        /* alone on the host: the leaders' allreduce on the user's buffers */
        if (s->leaders == MPI_COMM_NULL)
            return aot_coll_copy(input, count, dt, rbuf, count, dt);
        return aot_allreduce_recursive_doubling(sbuf, rbuf, count, dt, op, &s->lctx);
    }
    seq = aot_shm_begin(s);
    rc = aot_shm_reduce_host(s, seq, input, count, dt, op, &d, &acc);
    if (s->local_rank == 0) {
        if (s->leaders != MPI_COMM_NULL && rc == MPI_SUCCESS)
            rc = aot_allreduce_recursive_doubling(MPI_IN_PLACE, acc, count, dt, op, &s->lctx);
        aot_shm_post(s, AOT_SHM_RELEASE, seq);
    } else {
        aot_shm_wait(s, 0, AOT_SHM_RELEASE, seq);
        acc = aot_shm_typed(aot_shm_out(s, seq), &d);
    }
    if (rc == MPI_SUCCESS)
        rc = aot_coll_copy(acc, count, dt, rbuf, count, dt);
    aot_shm_end(s, seq);
    return rc;
}
