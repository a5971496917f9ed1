/*
 * coll_shm.c: the shared-memory area of the host-level collectives (the registry's `shm`
 * algorithms): one MPI-3 shared window per host, its flags and slots, the leaders'
 * communicator.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * After the Cray X1's per-communicator area of flags and short-message buffers (paper 001):
 * ranks of one host exchange short messages through memory they all map, and synchronise on
 * flags in that memory instead of sending messages; one leader per host (its lowest rank)
 * talks to the other hosts.
 *
 * Made on a context's first call to aot_coll_shm (collective over ctx->comm) and freed with
 * the context, so with the communicator (coll_ctx.c):
 *   host     PMPI_Comm_split of ctx->comm by host (aot_coll_hier), key the local rank;
 *   leaders  PMPI_Comm_split of the hosts' leaders, key the host number, so its rank is the
 *            host number; only with two hosts or more;
 *   window   PMPI_Win_allocate_shared on `host` (not when the host has one rank): the leader
 *            allocates it all, the others map it (PMPI_Win_shared_query).
 * The window, L ranks on the host:
 *   L lines of AOT_SHM_LINE bytes   line r: local rank r's flags ARRIVE, RELEASE, DONE, TAKEN
 *   L input slots                   slot r: what local rank r contributes to a reduction
 *   2 output slots                  the data of call seq is in slot seq % 2
 * each slot AOT_SHM_SLOT bytes.  A flag holds the sequence number of the last call in which
 * its owner reached that point; only the owner writes it (a release store, after the data it
 * announces), others wait until it reaches a value (acquire loads).  Every rank of a host
 * numbers the calls that use the window alike (every rank runs the same algorithm with the
 * same size decision), and a flag only grows, so waits are "flag >= seq" and a fast rank that
 * is already in a later call cannot be mistaken for the current one.
 * Reuse of memory: an input slot is written again only after the leader has TAKEN the last
 * contents (aot_shm_claim_in); an output slot only after every rank has ended (DONE) the call
 * two back, which used the same slot (aot_shm_claim_out).  So consecutive calls, also of
 * different collectives, need no barrier between them.
 * Waiting: a few hundred spins, then sched_yield() at every check and at every 16th a
 * PMPI_Iprobe (MPI progress: a message
 * this rank sent before the collective may be what the awaited rank is blocked on; more ranks
 * than cores: docs/platform.md, "More ranks than cores").
 */
#include <mpi.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aot_log.h"
#include "coll_ctx.h"
#include "coll_shm.h"
#include "coll_util.h"

#define AOT_SHM_LINE 128            /* two cache lines: the adjacent-line prefetcher */
#define AOT_SHM_SPINS 256

struct aot_shm_line {
    _Atomic uint64_t flag[4];       /* indexed by enum aot_shm_flag */
    char pad[AOT_SHM_LINE - 4 * sizeof(_Atomic uint64_t)];
};
_Static_assert(sizeof(struct aot_shm_line) == AOT_SHM_LINE, "one flag line");
_Static_assert(ATOMIC_LONG_LOCK_FREE == 2 && sizeof(long) == sizeof(uint64_t),
               "the flags must be lock-free: other processes access them");

static struct aot_shm_line *aot_shm_line(const struct aot_shm *s, int r)
{
    return (struct aot_shm_line *) (void *) (s->base + (size_t) r * AOT_SHM_LINE);
}

void *aot_shm_in(const struct aot_shm *s, int r)
{
    return s->base + (size_t) s->local_size * AOT_SHM_LINE + (size_t) r * AOT_SHM_SLOT;
}

void *aot_shm_out(const struct aot_shm *s, uint64_t seq)
{
    return s->base + (size_t) s->local_size * AOT_SHM_LINE
           + (size_t) (s->local_size + (int) (seq & 1)) * AOT_SHM_SLOT;
}

/* Alone on the host there is no window: posting and waiting do nothing. */
void aot_shm_post(struct aot_shm *s, enum aot_shm_flag f, uint64_t seq)
{
    if (s->local_size < 2)
        return;
    atomic_store_explicit(&aot_shm_line(s, s->local_rank)->flag[f], seq, memory_order_release);
}

void aot_shm_wait(struct aot_shm *s, int r, enum aot_shm_flag f, uint64_t seq)
{
    _Atomic uint64_t *flag;

    if (s->local_size < 2)
        return;
    flag = &aot_shm_line(s, r)->flag[f];
    for (int spin = 0; atomic_load_explicit(flag, memory_order_acquire) < seq; spin++) {
        if (spin < AOT_SHM_SPINS) {
            __builtin_ia32_pause();
        } else {
            /* Drive MPI's progress engine too: the rank we wait for may be blocked in a
             * receive whose message this rank sent before the collective and which moves only
             * while this rank progresses (seen with the BLACS tester: a deadlock).  An Iprobe on
             * the host's private communicator matches nothing of the program's. */
            int any;
            if ((spin & 15) == 0)   /* every 16th check: MPI's progress costs more than a yield */
                PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->host, &any, MPI_STATUS_IGNORE);
            sched_yield();
        }
    }
}

void aot_shm_claim_in(struct aot_shm *s, uint64_t seq)
{
    aot_shm_wait(s, 0, AOT_SHM_TAKEN, s->my_input);
    s->my_input = seq;
}

void aot_shm_claim_out(struct aot_shm *s, uint64_t seq)
{
    if (seq <= 2)
        return;
    for (int r = 0; r < s->local_size; r++)
        if (r != s->local_rank)
            aot_shm_wait(s, r, AOT_SHM_DONE, seq - 2);
}

int aot_shm_fits(int count, const struct aot_dt *d)
{
    if (count <= 0)
        return 1;
    if (d->extent <= 0 || d->true_extent < 0)
        return count == 1 && (size_t) d->true_extent <= AOT_SHM_SLOT;
    /* (count - 1) extents, then one element's true extent */
    return (size_t) d->true_extent <= AOT_SHM_SLOT
           && (size_t) (count - 1) <= (AOT_SHM_SLOT - (size_t) d->true_extent)
                                      / (size_t) d->extent;
}

/* ---------------------------------------------------------------- the host step of a reduction */

int aot_shm_reduction(const struct aot_coll_ctx *ctx, int count, MPI_Datatype dt,
                      struct aot_shm **s, struct aot_dt *d, int *use)
{
    int rc = aot_coll_shm(ctx, s);

    *use = 0;
    if (rc == MPI_SUCCESS)
        rc = aot_coll_dt(dt, d);
    if (rc == MPI_SUCCESS)
        *use = (*s)->ok && aot_shm_fits(count, d);
    return rc;
}

/* allreduce_shm and reduce_shm: inputs through the input slots, the leader folds them into
 * the output slot (coll_shm.h). */
int aot_shm_reduce_host(struct aot_shm *s, uint64_t seq, const void *input, int count,
                        MPI_Datatype dt, MPI_Op op, const struct aot_dt *d, void **acc)
{
    int rc = MPI_SUCCESS;

    if (s->local_rank != 0) {
        aot_shm_claim_in(s, seq);
        rc = aot_coll_copy(input, count, dt, aot_shm_typed(aot_shm_in(s, s->local_rank), d),
                           count, dt);
        aot_shm_post(s, AOT_SHM_ARRIVE, seq);
        *acc = NULL;
        return rc;
    }
    aot_shm_claim_out(s, seq);
    *acc = aot_shm_typed(aot_shm_out(s, seq), d);
    rc = aot_coll_copy(input, count, dt, *acc, count, dt);
    for (int r = 1; r < s->local_size; r++) {
        aot_shm_wait(s, r, AOT_SHM_ARRIVE, seq);
        if (rc == MPI_SUCCESS)
            rc = aot_coll_reduce_local(aot_shm_typed(aot_shm_in(s, r), d), *acc, count, dt, op);
    }
    aot_shm_post(s, AOT_SHM_TAKEN, seq);
    return rc;
}

/* ---------------------------------------------------------------- making and freeing */

void aot_shm_free(struct aot_shm *s)
{
    if (!s)
        return;
    if (s->win != MPI_WIN_NULL)
        PMPI_Win_free(&s->win);
    if (s->host != MPI_COMM_NULL)
        PMPI_Comm_free(&s->host);
    aot_coll_ctx_destroy(&s->lctx);
    if (s->leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&s->leaders);
    free((void *) s->local_of);
    free(s);
}

static int aot_shm_warned;          /* the failure to make a window was reported */

/* Bytes of the window of a host of L ranks. */
static size_t aot_shm_bytes(int L)
{
    return (size_t) L * AOT_SHM_LINE + (size_t) (L + 2) * AOT_SHM_SLOT;
}

/* The window of this host (s->local_size > 1): MPI_SUCCESS or the error of the allocation. */
static int aot_shm_window(struct aot_shm *s)
{
    size_t bytes = aot_shm_bytes(s->local_size);
    MPI_Aint size;
    int disp, rc;
    void *mine;

    /* a failure is answered below (every rank learns of it), not by the error handler */
    rc = PMPI_Comm_set_errhandler(s->host, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Win_allocate_shared(s->local_rank == 0 ? (MPI_Aint) bytes : 0, 1,
                                      MPI_INFO_NULL, s->host, &mine, &s->win);
    if (rc != MPI_SUCCESS) {
        s->win = MPI_WIN_NULL;
        return rc;
    }
    rc = PMPI_Win_shared_query(s->win, 0, &size, &disp, &s->base);
    if (rc == MPI_SUCCESS && (size_t) size < bytes)
        rc = MPI_ERR_INTERN;
    if (rc == MPI_SUCCESS && s->local_rank == 0) {
        memset(s->base, 0, bytes);
        for (int r = 0; r < s->local_size; r++)
            for (int f = 0; f < 4; f++)
                atomic_init(&aot_shm_line(s, r)->flag[f], 0);
    }
    /* nobody looks at a flag before the leader has cleared them */
    if (rc == MPI_SUCCESS)
        rc = PMPI_Barrier(s->host);
    return rc;
}

int aot_shm_create(const struct aot_coll_ctx *ctx, const struct aot_coll_hier *h,
                   struct aot_shm **out)
{
    struct aot_shm *s = calloc(1, sizeof(*s));
    int *local_of = malloc((size_t) ctx->size * sizeof(int));
    int failed = !s || !local_of, anyfailed = 1, rc;

    *out = NULL;
    /* as aot_coll_hier: all ranks return together when one ran out of memory */
    rc = PMPI_Allreduce(&failed, &anyfailed, 1, MPI_INT, MPI_MAX, ctx->comm);
    if (rc == MPI_SUCCESS && anyfailed)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(s);
        free(local_of);
        return rc;
    }
    s->hier = h;
    s->local_of = local_of;
    s->host = s->leaders = MPI_COMM_NULL;
    s->win = MPI_WIN_NULL;
    s->local_rank = h->local_rank;
    s->local_size = h->local_size;
    for (int k = 0; k < h->nhosts; k++)
        for (int i = h->first[k]; i < h->first[k + 1]; i++)
            local_of[h->members[i]] = i - h->first[k];

    rc = PMPI_Comm_split(ctx->comm, h->my_host, h->local_rank, &s->host);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_split(ctx->comm, h->local_rank == 0 && h->nhosts > 1 ? 0 : MPI_UNDEFINED,
                             h->my_host, &s->leaders);
    if (rc == MPI_SUCCESS && s->leaders != MPI_COMM_NULL)
        rc = aot_coll_ctx_init(&s->lctx, s->leaders);
    if (rc != MPI_SUCCESS) {
        aot_shm_free(s);
        return rc;
    }
    failed = 0;
    if (s->local_size > 1) {
        rc = aot_shm_window(s);
        failed = rc != MPI_SUCCESS;
    }
    rc = PMPI_Allreduce(&failed, &anyfailed, 1, MPI_INT, MPI_MAX, ctx->comm);
    if (rc != MPI_SUCCESS) {
        aot_shm_free(s);
        return rc;
    }
    s->ok = !anyfailed;
    if (failed && !aot_shm_warned) {
        aot_shm_warned = 1;
        aot_log(0, "collectives: no shared-memory window for the %d ranks of host %d of a "
                "communicator of %d ranks; its shm algorithms run their point-to-point "
                "fallback", s->local_size, h->my_host, ctx->size);
    }
    if (s->local_rank == 0 && s->local_size > 1)
        AOT_LOG(1, "collectives: shm: communicator of %d ranks on %d host(s), a window of %zu "
                "bytes for the %d ranks of host %d%s", ctx->size, h->nhosts,
                aot_shm_bytes(s->local_size), s->local_size, h->my_host,
                s->ok ? "" : " (unused: another host has none)");
    *out = s;
    return MPI_SUCCESS;
}
