/*
 * barrier_shm.c: barrier, host-level through shared memory.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Algorithm: Shared memory, hierarchical -- every rank of a host raises its ARRIVE flag in the
 * host's shared window (engines/coll_shm.c); the host's leader waits for all of them, runs a
 * dissemination barrier with the other hosts' leaders on the leaders' communicator, and
 * raises its RELEASE flag, for which the others wait.  One rank per host: the leaders'
 * barrier alone; one host: no messages at all.
 * Restrictions: none.  Without a window (it could not be made) MPI's own barrier on the whole
 * communicator runs instead (a fallback never slower than native).
 * Cost = ceil(lg H)α + 2 flag hand-offs within a host (H: hosts; a hand-off is a cache line
 * moving between cores, or a time slice when ranks outnumber cores).  First call: the set-up
 * of aot_coll_shm.
 */
#include <mpi.h>
#include <stdint.h>

#include "coll_algorithms.h"
#include "coll_ctx.h"
#include "coll_shm.h"

int aot_barrier_shm(const struct aot_coll_ctx *ctx)
{
    struct aot_shm *s;
    uint64_t seq;
    int rc;

    rc = aot_coll_shm(ctx, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!s->ok)
        return aot_barrier_native(ctx);
    seq = aot_shm_begin(s);
    if (s->local_size > 1) {
        if (s->local_rank == 0)
            for (int r = 1; r < s->local_size; r++)
                aot_shm_wait(s, r, AOT_SHM_ARRIVE, seq);
        else
            aot_shm_post(s, AOT_SHM_ARRIVE, seq);
    }
    if (s->leaders != MPI_COMM_NULL)
        rc = aot_barrier_dissemination(&s->lctx);
    if (s->local_size > 1) {
        if (s->local_rank == 0)
            aot_shm_post(s, AOT_SHM_RELEASE, seq);
        else
            aot_shm_wait(s, 0, AOT_SHM_RELEASE, seq);
    }
    aot_shm_end(s, seq);
    return rc;
}
