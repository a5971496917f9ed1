/*
 * coll_shm.h: host-level shared memory for the `shm` algorithms (engines/coll_shm.c,
 * where the layout and the protocol are described).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_COLL_SHM_H_INCLUDED
#define AOT_COLL_SHM_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#include "coll_ctx.h"
#include "coll_util.h"   /* struct aot_dt */

/* What the shared-memory algorithms (the registry's `shm` lines) use, created on a context's
 * first call to aot_coll_shm and freed with the context (engines/coll_shm.c, where the layout
 * and the protocol are described).  Every field is local to the calling rank. */
struct aot_shm {
    int ok;                     /* 0: the window could not be made on some rank; every rank of
                                 * the communicator then sees 0 and the algorithms fall back */
    const struct aot_coll_hier *hier;
    const int *local_of;        /* [size] each rank's local rank on its host */
    MPI_Comm host;              /* this host's ranks in local-rank order (MPI_COMM_NULL: alone) */
    MPI_Comm leaders;           /* one rank per host, in host order; only on leaders, and only
                                 * with two hosts or more (MPI_COMM_NULL otherwise) */
    struct aot_coll_ctx lctx;   /* a context on `leaders`, to run registry algorithms there */
    MPI_Win win;                /* MPI_WIN_NULL when alone on the host */
    char *base;                 /* the window's memory, as mapped in this process */
    int local_rank, local_size;
    uint64_t seq;               /* calls that used the window so far (the same on the host) */
    uint64_t my_input;          /* the call whose input this rank put in its slot last */
};

/* Bytes of one data slot: messages up to this size go through the window; larger ones run a
 * point-to-point algorithm instead (each algorithm's header names it).  A build may set
 * another size (-DAOT_SHM_SLOT=65536, as the crossover measurement of docs/collectives.md). */
#ifndef AOT_SHM_SLOT
#define AOT_SHM_SLOT ((size_t) 8192)
#endif

/* The shared-memory state of ctx in *out.  The first call on a context is COLLECTIVE over
 * ctx->comm, like aot_coll_hier (which it calls): two splits of ctx->comm, the window on each
 * host, an allreduce that tells every rank whether all windows were made.  MPI_SUCCESS (check
 * (*out)->ok), MPI_ERR_NO_MEM on every rank when one ran out of memory, or an MPI error. */
int aot_coll_shm(const struct aot_coll_ctx *ctx, struct aot_shm **out);
/* Made and freed by coll_ctx.c's lazy state (engines/coll_shm.c). */
int aot_shm_create(const struct aot_coll_ctx *ctx, const struct aot_coll_hier *h,
                   struct aot_shm **out);
void aot_shm_free(struct aot_shm *s);

/* The flags of one call (engines/coll_shm.c).  Each rank owns one line of four sequence
 * numbers; only it writes them (release), everyone may wait on them (acquire, yielding). */
enum aot_shm_flag { AOT_SHM_ARRIVE, AOT_SHM_RELEASE, AOT_SHM_DONE, AOT_SHM_TAKEN };
/* Starts a call: its sequence number. */
static inline uint64_t aot_shm_begin(struct aot_shm *s) { return ++s->seq; }
/* Sets this rank's flag to seq. */
void aot_shm_post(struct aot_shm *s, enum aot_shm_flag f, uint64_t seq);
/* Waits until local rank r's flag reaches seq. */
void aot_shm_wait(struct aot_shm *s, int r, enum aot_shm_flag f, uint64_t seq);
/* Ends call seq on this rank (DONE = seq): it reads nothing of the window any more. */
static inline void aot_shm_end(struct aot_shm *s, uint64_t seq)
{
    aot_shm_post(s, AOT_SHM_DONE, seq);
}
/* Local rank r's input slot, and the output slot of call seq (two, alternating). */
void *aot_shm_in(const struct aot_shm *s, int r);
void *aot_shm_out(const struct aot_shm *s, uint64_t seq);
/* Before writing this rank's input slot in call seq: waits until the leader took the last one. */
void aot_shm_claim_in(struct aot_shm *s, uint64_t seq);
/* Before writing the output slot of call seq: waits until every other rank of the host ended
 * call seq - 2, the last one that used the same slot. */
void aot_shm_claim_out(struct aot_shm *s, uint64_t seq);
/* Whether count elements of d fit in a slot in their own layout (element 0's first byte at
 * the slot's start); the typed address of such a slot is aot_shm_typed(slot, d). */
int aot_shm_fits(int count, const struct aot_dt *d);
static inline void *aot_shm_typed(void *slot, const struct aot_dt *d)
{
    return (char *) slot - d->true_lb;
}

/* The start of allreduce_shm and reduce_shm: the state of ctx (aot_coll_shm, collective on
 * the first call), dt's description, and whether count elements of dt go through the window
 * (*use; the same answer on every rank, as the datatype and count are). */
int aot_shm_reduction(const struct aot_coll_ctx *ctx, int count, MPI_Datatype dt,
                      struct aot_shm **s, struct aot_dt *d, int *use);
/* The host step of allreduce_shm and reduce_shm (engines/coll_shm.c): every rank of
 * the host hands its vector `input` over through its input slot of call seq; the leader folds
 * them into the output slot (count elements of dt in their layout, returned in *acc) and
 * raises TAKEN.  Needs s->local_size > 1.  A commutative op: the leader's vector comes first,
 * then local ranks 1, 2, ... */
int aot_shm_reduce_host(struct aot_shm *s, uint64_t seq, const void *input, int count,
                        MPI_Datatype dt, MPI_Op op, const struct aot_dt *d, void **acc);

#endif /* AOT_COLL_SHM_H_INCLUDED */
