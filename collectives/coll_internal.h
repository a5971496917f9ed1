/*
 * coll_internal.h: what the files of collectives/ share -- the context of a call, the registry,
 * the decision, the helpers every algorithm uses, the shared engines and the prototypes of all
 * algorithms.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The folder (docs/collectives.md, "Layout"): algorithms/ holds one file per registered
 * algorithm, engines/ the bodies that families of algorithms share, and the top the runner
 * (coll_run.c), the context (coll_ctx.c), the registry and decision, the tuning file, the
 * helpers (coll_util.c) and the headers.
 *
 * An algorithm has the arguments of its collective plus one `const struct aot_coll_ctx *ctx`:
 * autoopt's private duplicate of the user's communicator with its size and rank, the value of
 * the algorithm's parameter (0 when it has none), and the hierarchy of hosts computed on first
 * use (aot_coll_hier).  It runs on ctx->comm only, so its messages never meet the program's
 * own.  It calls PMPI_* only, returns an MPI error code, and never sees MPI_IN_PLACE for
 * allgather, allgatherv, alltoall and alltoallv (the runner turns it into an explicit send
 * buffer; see coll_run.c).  Allreduce and reduce algorithms do handle MPI_IN_PLACE.  Engines
 * (engines/) take a plain MPI_Comm.
 */
#ifndef AOT_COLL_INTERNAL_H_INCLUDED
#define AOT_COLL_INTERNAL_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#include "aot.h"
#include "aot_coll.h"
#include "aot_tuning.h"

/* ---------------------------------------------------------------- the context of a call */

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
    /* The switch of each host, from AUTOOPT_TOPOLOGY (coll_topo.c): nswitches is -1 and
     * switch_of NULL without one. */
    int nswitches;
    const int *switch_of;   /* [nhosts] */
    /* The ranks in topology order: by switch in depth-first order of the switch tree (switch
     * numbers, coll_topo.c), then by host, then by rank; without a topology by host, then by
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

/* ---------------------------------------------------------------- algorithm signatures */

typedef int aot_allreduce_fn(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                             MPI_Op op, const struct aot_coll_ctx *ctx);
typedef int aot_bcast_fn(void *buf, int count, MPI_Datatype dt, int root,
                         const struct aot_coll_ctx *ctx);
typedef int aot_reduce_fn(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                          int root, const struct aot_coll_ctx *ctx);
typedef int aot_allgather_fn(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                             int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx);
typedef int aot_allgatherv_fn(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                              const int *rcounts, const int *displs, MPI_Datatype rdt,
                              const struct aot_coll_ctx *ctx);
typedef int aot_alltoall_fn(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx);
typedef int aot_alltoallv_fn(const void *sbuf, const int *scounts, const int *sdispls,
                             MPI_Datatype sdt, void *rbuf, const int *rcounts,
                             const int *rdispls, MPI_Datatype rdt,
                             const struct aot_coll_ctx *ctx);
typedef int aot_barrier_fn(const struct aot_coll_ctx *ctx);

union aot_coll_fn {
#define AOT_X(upper, lower) aot_##lower##_fn *lower;
    AOT_COLLECTIVES(AOT_X)
#undef AOT_X
};

/* Every algorithm, declared from the registry. */
#define AOT_ALG(coll, name, restr, props, summary) aot_##coll##_fn aot_##coll##_##name;
#define AOT_ALG_P(coll, name, restr, props, summary, ...) aot_##coll##_fn aot_##coll##_##name;
#include "coll_algorithms.def"
#undef AOT_ALG
#undef AOT_ALG_P

/* ---------------------------------------------------------------- the registry */

enum { AOT_R_NONE = 0, AOT_R_COMMUTATIVE = 1u << 0, AOT_R_POF2 = 1u << 1 };
enum { AOT_P_NONE = 0, AOT_P_ORDERED = 1u << 0 };

#define AOT_COLL_MAXTUNE 4
struct aot_coll_param {
    const char *name;           /* NULL: the algorithm has no parameter */
    long dflt, min, max;
    long tune[AOT_COLL_MAXTUNE]; /* the values a tuner tries (and the tests run) */
    int ntune;
};

struct aot_coll_alg {
    enum aot_coll_kind kind;
    const char *name;
    union aot_coll_fn fn;
    unsigned restrictions;      /* AOT_R_* */
    unsigned properties;        /* AOT_P_* */
    const char *summary;
    struct aot_coll_param param;
};

/* The table, natives first: aot_coll_algs[kind] is the native algorithm of that kind. */
extern const struct aot_coll_alg aot_coll_algs[];
extern const int aot_coll_nalgs;
/* "allreduce", "bcast", ... indexed by enum aot_coll_kind. */
extern const char *const aot_coll_kind_names[AOT_COLL_NKINDS];
/* "AUTOOPT_ALLREDUCE", ... */
extern const char *const aot_coll_env_names[AOT_COLL_NKINDS];

/* Index of algorithm `name` (len bytes) of kind, or -1. */
int aot_coll_find(enum aot_coll_kind kind, const char *name, size_t len);
/* Kind named `name` (len bytes), or -1. */
int aot_coll_find_kind(const char *name, size_t len);

/* ---------------------------------------------------------------- topology (coll_topo.c) */

/* At MPI_Init, collective over MPI_COMM_WORLD: reads AUTOOPT_TOPOLOGY's file on rank 0 and
 * resolves the job's hosts against it.  0, or -1 with the same one-line message on every rank
 * ("FILE:LINE: problem", "host X of this job is not in FILE"). */
int aot_coll_topo_init(const char *path, char *err, size_t errlen);
void aot_coll_topo_free(void);
/* Switches of the job's tree (-1 without a topology), and the switch of host `name` (a
 * processor name; -1 when unknown or without a topology). */
int aot_coll_topo_nswitches(void);
int aot_coll_topo_switch(const char *name);
/* The number of uplinks between switches a and b of the job's tree (0 when a == b; -1 when
 * either is not a switch of the tree). */
int aot_coll_topo_hops(int a, int b);
/* The parent of switch sw in the job's tree, -1 for the root or an unknown switch.  Every
 * switch but the root hangs from its parent by one uplink, which this names. */
int aot_coll_topo_parent(int sw);

/* ---------------------------------------------------------------- selection (pure) */

struct aot_coll_choice {
    int alg;                    /* index into aot_coll_algs */
    long param;                 /* value of its parameter (0 when it has none) */
};

/* Parses "name[:param=value]" for kind.  0, or -1 with a message such as
 * "unknown algorithm (known: native, ring, ...)" or "n must be an integer 1..1048576". */
int aot_coll_parse_choice(enum aot_coll_kind kind, const char *spec, struct aot_coll_choice *out,
                          char *err, size_t errlen);
/* Writes "name" or "name:param=value" (the inverse of aot_coll_parse_choice). */
int aot_coll_format_choice(const struct aot_coll_choice *c, char *buf, size_t len);

/* The restrictions of alg that a call with this communicator size and operation violates
 * (AOT_R_* bits; 0 when the algorithm may run). */
unsigned aot_coll_check(int alg, int comm_size, int commutative);
/* "needs a commutative operation" / "needs a power-of-two communicator size". */
const char *aot_coll_restriction_text(unsigned failed);

struct aot_coll_policy {
    int forced[AOT_COLL_NKINDS];          /* registry index, -1 when not forced */
    long forced_param[AOT_COLL_NKINDS];
    const struct aot_tuning *tuning;      /* NULL: no tuning file */
    int reproducible;                     /* AUTOOPT_REPRODUCIBLE */
};

enum aot_coll_why {
    AOT_WHY_DEFAULT,        /* nothing forced or tuned: native */
    AOT_WHY_FORCED,         /* AUTOOPT_<COLL> */
    AOT_WHY_TUNED,          /* a rule of the tuning file */
    AOT_WHY_RESTRICTED,     /* the forced or tuned algorithm's restriction rejected the call */
    AOT_WHY_REPRODUCIBLE    /* replaced by an order-fixed reduction (AUTOOPT_REPRODUCIBLE) */
};

struct aot_coll_decision {
    struct aot_coll_choice choice;
    enum aot_coll_why why;
    int rejected;           /* the algorithm that was replaced, or -1 */
    unsigned failed;        /* its failed restrictions (AOT_WHY_RESTRICTED) */
};

/* The decision: forced algorithm, else tuning file, else native; an algorithm whose
 * restriction rejects the call becomes native; under AUTOOPT_REPRODUCIBLE a reduction that is
 * not AOT_P_ORDERED becomes the order-fixed default.  Pure: no MPI calls, no global state.
 * Every input must be identical on all ranks (bytes: see aot_coll_bytes in coll_run.c). */
void aot_coll_decide(const struct aot_coll_policy *pol, enum aot_coll_kind kind, int comm_size,
                     uint64_t bytes, int commutative, struct aot_coll_decision *d);

/* What the decision knows of a communicator: its size and, when a tuning file qualifies rules by
 * host shape (aot_tuning.shaped), its hosts and the ranks on its fullest host (0: unknown, and
 * then only unqualified rules apply).  The same on every rank. */
struct aot_coll_shape {
    int size, nhosts, ppn;
};

/* The shape of ctx->comm from its hierarchy: size, hosts and the ranks on the fullest host.
 * Collective on first use, as aot_coll_hier is.  MPI_SUCCESS, or aot_coll_hier's error (then
 * *sh says only the size). */
int aot_coll_shape_of(const struct aot_coll_ctx *ctx, struct aot_coll_shape *sh);

/* aot_coll_decide for a communicator of this shape. */
void aot_coll_decide_shape(const struct aot_coll_policy *pol, enum aot_coll_kind kind,
                           const struct aot_coll_shape *shape, uint64_t bytes, int commutative,
                           struct aot_coll_decision *d);

/* The order-fixed algorithm used for allreduce and reduce under AUTOOPT_REPRODUCIBLE. */
int aot_coll_reproducible_default(enum aot_coll_kind kind, uint64_t bytes);

/* ---------------------------------------------------------------- nested selection */

/* Replaces the tuning table the decision reads (NULL: none).  For autoopt-tune, which fills it
 * with the rules measured so far, so that a nested selection (the allgather inside an
 * allreduce) runs the allgather that was measured best.  The table stays the caller's. */
void aot_coll_set_tuning(const struct aot_tuning *t);

/* Run the algorithm the policy selects for an allgather / alltoall made by another algorithm
 * (Rabenseifner variations, allgather-based allreduce) in the caller's context (its private
 * communicator; the selected algorithm gets its own parameter).  sbuf may be MPI_IN_PLACE. */
int aot_coll_run_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx);
int aot_coll_run_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          int rcount, MPI_Datatype rdt, const struct aot_coll_ctx *ctx);

/* MPI's own reduce and allgatherv on any communicator, with autoopt's workarounds of MPICH
 * bugs (native.c); the runner calls them on the user's communicator. */
int aot_reduce_pmpi(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    int root, MPI_Comm comm);
int aot_allgatherv_pmpi(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                        const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm);

/* ---------------------------------------------------------------- helpers (coll_util.c) */

/* Tags on the private communicator: one per collective, so a message can only meet the
 * matching algorithm even if two collectives' messages between the same pair were in flight. */
enum {
    AOT_TAG_ALLREDUCE = 1, AOT_TAG_BCAST, AOT_TAG_REDUCE, AOT_TAG_ALLGATHER, AOT_TAG_ALLGATHERV,
    AOT_TAG_ALLTOALL, AOT_TAG_ALLTOALLV, AOT_TAG_BARRIER, AOT_TAG_SYNC, AOT_TAG_PHASE2
};

/* What the algorithms need to know about a datatype. */
struct aot_dt {
    int size;                      /* MPI_Type_size */
    MPI_Aint lb, extent;
    MPI_Aint true_lb, true_extent;
    int contig;                    /* count elements are size*count bytes at buf + true_lb */
};
int aot_coll_dt(MPI_Datatype dt, struct aot_dt *d);

/* Element i of a buffer of elements of extent ext. */
#define AOT_AT(buf, i, ext) ((void *) ((char *) (buf) + (MPI_Aint) (i) * (MPI_Aint) (ext)))

/* Scratch memory for staging buffers, from a small cache of freed buffers (coll_util.c).
 * Everything aot_coll_alloc or aot_coll_tmp returns goes back with aot_coll_free;
 * aot_coll_scratch_release empties the cache (finalize). */
void *aot_coll_alloc(size_t bytes);
void aot_coll_free(void *p);
void aot_coll_scratch_release(void);

/* A temporary buffer for count elements of d: element i at result + i*extent.  Free *raw with
 * aot_coll_free().  NULL when out of memory.  _padded: the elements from `used` on are zero bytes
 * (padding that gets sent, so that no uninitialised memory goes on the wire). */
void *aot_coll_tmp(MPI_Aint count, const struct aot_dt *d, void **raw);
void *aot_coll_tmp_padded(MPI_Aint count, MPI_Aint used, const struct aot_dt *d, void **raw);

/* Local copy between datatypes of the same signature (scount*sdt -> rcount*rdt;
 * MPI_ERR_TRUNCATE when it does not fit).  Does nothing when source and destination are the
 * same elements. */
int aot_coll_copy(const void *src, int scount, MPI_Datatype sdt, void *dst, int rcount,
                  MPI_Datatype rdt);
/* Prefixes err ("PATH: reason") with "VAR=", so that the one line also names the setting. */
void aot_coll_name_setting(const char *var, char *err, size_t errlen);

/* Pack count elements to `bytes` contiguous bytes, and back. */
int aot_coll_pack(const void *buf, int count, MPI_Datatype dt, void *out, MPI_Aint bytes);
int aot_coll_unpack(const void *in, MPI_Aint bytes, void *buf, int count, MPI_Datatype dt);

/* inout = in (op) inout, over count elements (MPI_Reduce_local); in comes from lower ranks. */
int aot_coll_reduce_local(const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op);

/* The first line of MPI_Get_library_version with tabs as spaces ("MPICH Version: 4.0.2"), as
 * a tuning file's "# setup ... mpi=" line records it.  0, or -1 when MPI gives none. */
int aot_coll_mpi_version(char *buf, int len);

/* PMPI_Waitall without statuses. */
int aot_coll_waitall(int n, MPI_Request *req);

/* Synchronisation between the steps of the ring and pair families. */
enum aot_coll_sync {
    AOT_SYNC_NONE,      /* plain */
    AOT_SYNC_LIGHT,     /* zero-byte handshake with the next step's peers */
    AOT_SYNC_MPI,       /* PMPI_Barrier between steps */
    AOT_SYNC_EVERY_N    /* PMPI_Barrier after every n steps */
};
/* Call before step `step` (1-based) whose peers are sendto / recvfrom. */
int aot_coll_sync_step(MPI_Comm comm, enum aot_coll_sync mode, long n, int step, int sendto,
                       int recvfrom);

static inline int aot_coll_is_pof2(int p) { return p > 0 && (p & (p - 1)) == 0; }
static inline int aot_coll_pof2_floor(int p)
{
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    return q;
}

/* Element ranges when `count` elements are cut into `nblocks` blocks as evenly as possible:
 * block i starts at aot_coll_block_start(count, nblocks, i). */
static inline int aot_coll_block_start(int count, int nblocks, int i)
{
    int q = count / nblocks, r = count % nblocks;
    return i * q + (i < r ? i : r);
}

/* A binary tree over the ranges of virtual ranks [0, p): the root of a range [lo, hi) is lo,
 * its left subtree [lo+1, lhi) holds ceil((hi-lo-1)/2) ranks and its right subtree [lhi, hi)
 * the rest.  Every subtree is a contiguous range of ranks (pre-order numbering), so reductions
 * along it keep rank order.  Fields are virtual ranks, -1 when absent. */
struct aot_bnode {
    int parent, left, right;
    int lo, hi, lhi;            /* own subtree [lo, hi), left [lo+1, lhi), right [lhi, hi) */
};
static inline void aot_coll_binary_node(int v, int p, struct aot_bnode *n)
{
    int lo = 0, hi = p, parent = -1, lhi;

    while (lo != v) {
        lhi = lo + 1 + (hi - lo) / 2;
        parent = lo;
        if (v < lhi) {
            lo = lo + 1;
            hi = lhi;
        } else {
            lo = lhi;
        }
    }
    lhi = lo + 1 + (hi - lo) / 2;
    n->parent = parent;
    n->left = lo + 1 < lhi ? lo + 1 : -1;
    n->right = lhi < hi ? lhi : -1;
    n->lo = lo;
    n->hi = hi;
    n->lhi = lhi;
}

/* ---------------------------------------------------------------- shared engines */

/* The shared engines live in engines/ and take a plain communicator (the algorithm passes
 * ctx->comm). */

/* Ring and pair families (alltoall_exchange.c, alltoallv_exchange.c, allgather_exchange.c,
 * allgatherv_exchange.c): pair = 0 gives ring steps, pair = 1 XOR steps (power of two). */
int aot_alltoall_exchange(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          int rcount, MPI_Datatype rdt, MPI_Comm comm, int pair,
                          enum aot_coll_sync sync, long n);
int aot_alltoallv_exchange(const void *sbuf, const int *scounts, const int *sdispls,
                           MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                           MPI_Datatype rdt, MPI_Comm comm, int pair, enum aot_coll_sync sync,
                           long n);
int aot_allgather_exchange(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                           int rcount, MPI_Datatype rdt, MPI_Comm comm, int pair,
                           enum aot_coll_sync sync, long n);
int aot_allgatherv_exchange(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                            const int *rcounts, const int *displs, MPI_Datatype rdt,
                            MPI_Comm comm, int pair, enum aot_coll_sync sync, long n);
/* Step k (1..p-1) of the allgather(v) ring (pair = 0) or pair (1) families for the rank at
 * position me of order (NULL: the identity): the ranks it sends to and receives from and the
 * ranks whose blocks it sends and receives. */
struct aot_xstep {
    int dst, src, sblock, rblock;
};
static inline struct aot_xstep aot_coll_xstep(int me, int p, int k, int pair, const int *order)
{
    struct aot_xstep s;
    int dst = pair ? me ^ k : (me + 1) % p, src = pair ? me ^ k : (me - 1 + p) % p;
    int sb = pair ? me : (me - k + 1 + p) % p, rb = pair ? src : (me - k + p) % p;

    s.dst = order ? order[dst] : dst;
    s.src = order ? order[src] : src;
    s.sblock = order ? order[sb] : sb;
    s.rblock = order ? order[rb] : rb;
    return s;
}

/* The ring (pair = 0) over positions 0..p-1 of a permutation of the ranks: position i is rank
 * order[i], rank r sits at place[r] (both [p]; NULL, NULL: the identity, as above). */
int aot_allgather_exchange_ordered(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                   int rcount, MPI_Datatype rdt, MPI_Comm comm, int pair,
                                   enum aot_coll_sync sync, long n, const int *order,
                                   const int *place);
int aot_allgatherv_exchange_ordered(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                                    const int *rcounts, const int *displs, MPI_Datatype rdt,
                                    MPI_Comm comm, int pair, enum aot_coll_sync sync, long n,
                                    const int *order, const int *place);
/* simple / spreading simple (posted all at once; spread = 1 orders peers rank+1, rank+2...). */
int aot_alltoall_posted(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, MPI_Comm comm, int spread);
int aot_alltoallv_posted(const void *sbuf, const int *scounts, const int *sdispls,
                         MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                         MPI_Datatype rdt, MPI_Comm comm, int spread);
int aot_allgather_posted(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                         MPI_Datatype rdt, MPI_Comm comm, int spread);

/* Mixed-radix (Bruck-style) engines: digit i of the distance has radix radix[i]
 * (alltoall_radix.c, allgather_radix.c).  xor = 1: partners rank XOR distance (radix 2 only,
 * power-of-two sizes). */
int aot_alltoall_radix(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                       MPI_Datatype rdt, MPI_Comm comm, const int *radix, int ndigits, int xor);
int aot_allgather_radix(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                        MPI_Datatype rdt, MPI_Comm comm, const int *radix, int ndigits);
/* Radices of a virtual torus of `dims` dimensions holding p ranks (mesh2d, mesh3d). */
int aot_coll_mesh_radix(int p, int dims, int *radix);

/* Trees ordered by distance from the root (topo_tree.c): near_first = 1 the near-first/
 * far-last tree, 0 the far-first/near-last one.  They take the hierarchy (collective on first
 * use).  The reduce needs a commutative operation (MPI_ERR_OP otherwise). */
int aot_bcast_topo_tree(void *buf, int count, MPI_Datatype dt, int root,
                        const struct aot_coll_ctx *ctx, int near_first);
int aot_reduce_topo_tree(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                         int root, const struct aot_coll_ctx *ctx, int near_first);

/* A contention-free pairwise all-to-all schedule on the tree of switches (topo_sched.c): this
 * rank's partner in each phase, -1 when it sits a phase out.  Computed on first use from the
 * hierarchy (so collective then, as aot_coll_hier) and kept with the context. */
struct aot_topo_sched {
    int nphases;
    int partner[];
};
int aot_coll_topo_sched(const struct aot_coll_ctx *ctx, const struct aot_topo_sched **out);

/* Imamura's Copy/Split/Merge broadcast (bcast_csm.c): ops[level] is 'C' or 'S' for the levels
 * of a halving tree over the ranks (levels beyond nops are 'C'); merges follow in reverse. */
int aot_bcast_csm(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                  const char *ops, int nops);

/* Recursive-halving reduce-scatter shared by the Rabenseifner family (coll_halving.c).
 * Non-powers of two: the first 2*rem ranks pair up, even ones hand their vector to the odd
 * one and sit out (newrank -1); the other pof2 ranks halve.  The vector is cut into pof2
 * units, unit u being elements [uoff[u], uoff[u+1]); at level l a rank keeps the half of its
 * unit range chosen by bit l of its newrank, so partial results always cover a contiguous range
 * of ranks and non-commutative operations stay in rank order. */
struct aot_halving {
    MPI_Comm comm;
    int p, rank, pof2, rem, newrank;   /* newrank -1: an even extra rank */
    int nlevels;                       /* lg pof2 */
    int lo[31], hi[31];                /* unit range kept after level l */
    int ulo, uhi;                      /* final unit range */
};
int aot_halving_init(struct aot_halving *h, MPI_Comm comm);
/* buf holds count elements of dt, in place; afterwards a rank with newrank >= 0 holds the full
 * reduction of elements [uoff[ulo], uoff[uhi]).  uoff has pof2 + 1 entries. */
int aot_halving_reduce_scatter(struct aot_halving *h, void *buf, int count, MPI_Datatype dt,
                               MPI_Op op, int commutative, const int *uoff);
/* Original rank of newrank nr. */
static inline int aot_halving_rank(const struct aot_halving *h, int nr)
{
    return nr < h->rem ? 2 * nr + 1 : nr + h->rem;
}

/* ---------------------------------------------------------------- host-level shared memory */

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

#endif /* AOT_COLL_INTERNAL_H_INCLUDED */
