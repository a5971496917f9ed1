/*
 * coll_ctx.h: the context an algorithm runs in (coll_ctx.c): autoopt's private duplicate
 * of the user's communicator, its size and rank, the algorithm's parameter, and what is computed
 * once per communicator (the hierarchy of hosts, per-algorithm slots).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_COLL_CTX_H_INCLUDED
#define AOT_COLL_CTX_H_INCLUDED

#include <mpi.h>

/* Which ranks of a communicator share a host (aot_coll_hier).  Two ranks share a host when
 * MPI_Get_processor_name gives both the same name AND MPI_COMM_TYPE_SHARED puts them in one
 * communicator: names first, because in the emulated cluster (network namespaces started by one
 * launcher) MPI_COMM_TYPE_SHARED alone lumps every rank together.  Hosts are numbered in the
 * order of their lowest rank; all ranks are ranks of the context's communicator. */
struct aot_coll_hier {
    int nhosts;
    const int *host;        /* [size] host of each rank */
    const int *host_size;   /* [nhosts] ranks on each host */
    const int *leader;      /* [nhosts] the lowest rank of each host */
    const int *first;       /* [nhosts + 1] host h holds members[first[h] .. first[h + 1]) */
    const int *members;     /* [size] the ranks host by host, ascending within a host */
    int my_host;            /* host of this rank */
    int local_rank;         /* this rank's place among the ranks of its host (0: the leader) */
    int local_size;         /* host_size[my_host] */
    /* The switch of each host, from AUTOOPT_TOPOLOGY (coll_switches.c): nswitches is -1 and
     * switch_of NULL without one. */
    int nswitches;
    const int *switch_of;   /* [nhosts] */
    /* The ranks in topology order: by switch in depth-first order of the switch tree (switch
     * numbers, coll_switches.c), then by host, then by rank; without a topology by host, then by
     * rank (members).  place[r] is rank r's index in order.  A ring in this order crosses each
     * uplink once per direction (Faraj & Yuan's logical ring). */
    const int *order;       /* [size] */
    const int *place;       /* [size] */
};

/* What a context computes on first use, shared by every copy of the context (coll_ctx.c). */
struct aot_coll_lazy;

/* The context an algorithm runs in.  The runner keeps one per user communicator (an attribute,
 * freed with the communicator, coll_run.c) and hands each call a copy with the parameter of
 * the algorithm it chose; copies share `lazy`, so what one call computes the next ones reuse. */
struct aot_coll_ctx {
    MPI_Comm comm;                  /* autoopt's private duplicate of the user's communicator */
    int size, rank;                 /* of comm */
    long param;                     /* the algorithm's parameter, 0 when it has none */
    struct aot_coll_lazy *lazy;     /* use through aot_coll_hier() */
};

/* Sets ctx up for comm, a communicator the caller owns and keeps until aot_coll_ctx_destroy
 * (the runner's private duplicate, or the tuner's): size, rank, param 0, nothing computed.
 * Local, no communication.  MPI_SUCCESS or MPI_ERR_NO_MEM. */
int aot_coll_ctx_init(struct aot_coll_ctx *ctx, MPI_Comm comm);
/* Frees what ctx computed (not comm).  ctx->lazy NULL (never initialised) is fine. */
void aot_coll_ctx_destroy(struct aot_coll_ctx *ctx);

/* A copy of ctx for running another algorithm with parameter param (allreduce reduce_bcast
 * runs reduce binomial; the nested selections run what they select). */
static inline struct aot_coll_ctx aot_coll_ctx_with(const struct aot_coll_ctx *ctx, long param)
{
    struct aot_coll_ctx c = *ctx;
    c.param = param;
    return c;
}

/* The hierarchy of ctx->comm in *out, valid until aot_coll_ctx_destroy.  The first call on a
 * context is COLLECTIVE over ctx->comm (an allreduce of an out-of-memory flag, two allgathers
 * on ctx->comm, a split by MPI_COMM_TYPE_SHARED and an allgather on the split); later calls
 * are local.  So every rank of the communicator must make its first call at the same point:
 * an algorithm that uses the hierarchy calls aot_coll_hier on every rank, before anything that
 * depends on the rank or the root, every time it runs (the decision that chose it is the same
 * on every rank, so every rank computes the hierarchy in the same call).  No lock: MPI lets
 * only one collective at a time run on a communicator, and under MPI_THREAD_MULTIPLE autoopt's
 * collectives are off.  MPI_SUCCESS, MPI_ERR_NO_MEM on every rank when one rank ran out of
 * memory, or the error of an MPI call. */
int aot_coll_hier(const struct aot_coll_ctx *ctx, const struct aot_coll_hier **out);

/* What an algorithm derives from the hierarchy once per communicator (topo_pair's schedule),
 * kept with the context: one slot per user, a malloc'd block freed with the context.  Get
 * returns NULL until set.  Set takes ownership of p and returns the block the slot now holds
 * (p; the earlier block, p freed, when the slot was full; NULL, p freed, without a context).
 * Local. */
enum aot_coll_slot { AOT_SLOT_TOPO_PAIR, AOT_COLL_NSLOTS };
void *aot_coll_slot_get(const struct aot_coll_ctx *ctx, enum aot_coll_slot slot);
void *aot_coll_slot_set(const struct aot_coll_ctx *ctx, enum aot_coll_slot slot, void *p);

#endif /* AOT_COLL_CTX_H_INCLUDED */
