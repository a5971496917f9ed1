/*
 * coll_engines.h: the bodies that families of algorithms share (engines/): exchange, posted,
 * radix, trees by distance, the contention-free schedule, Copy/Split/Merge and recursive
 * halving.  They take a plain communicator (the algorithm passes ctx->comm), except the ones
 * that need the context's hierarchy.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_COLL_ENGINES_H_INCLUDED
#define AOT_COLL_ENGINES_H_INCLUDED

#include <mpi.h>

#include "coll_ctx.h"
#include "coll_util.h"   /* enum aot_coll_sync */

/* Ring and pair families (alltoall_exchange.c, alltoallv_exchange.c, allgather_exchange.c,
 * allgatherv_exchange.c): pair = 0 gives ring steps, pair = 1 XOR steps (power of two). */
int aot_alltoall_exchange(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                          int rcount, MPI_Datatype rdt, MPI_Comm comm, int pair,
                          enum aot_coll_sync sync, long n);
int aot_alltoallv_exchange(const void *sbuf, const int *scounts, const int *sdispls,
                           MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                           MPI_Datatype rdt, MPI_Comm comm, int pair, enum aot_coll_sync sync,
                           long n);
/* The ring with w steps in flight (alltoall_window.c) over the blocks of an alltoall
 * (scounts == NULL: scount elements per peer at j * scount) or an alltoallv (counts and
 * displacements per peer); sext, rext: the datatypes' extents. */
struct aot_win_blocks {
    const void *sbuf;
    void *rbuf;
    MPI_Datatype sdt, rdt;
    MPI_Aint sext, rext;
    int scount, rcount;
    const int *scounts, *sdispls, *rcounts, *rdispls;
};
int aot_alltoall_window(const struct aot_win_blocks *b, MPI_Comm comm, long window, int tag);
/* The blocks of an alltoall call, and of an alltoallv call, extents included. */
struct aot_win_blocks aot_win_blocks_alltoall(const void *sbuf, int scount, MPI_Datatype sdt,
                                              void *rbuf, int rcount, MPI_Datatype rdt);
struct aot_win_blocks aot_win_blocks_alltoallv(const void *sbuf, const int *scounts,
                                               const int *sdispls, MPI_Datatype sdt, void *rbuf,
                                               const int *rcounts, const int *rdispls,
                                               MPI_Datatype rdt);
/* One side's block of peer j (send = 1: the send buffer's): its address and *count. */
void *aot_win_block(const struct aot_win_blocks *b, int send, int j, int *count);
/* Every block as messages of at most `segment` packed bytes, all posted at once in the order
 * rank+1, rank+2, ... (alltoall_segmented.c). */
int aot_alltoall_segmented(const struct aot_win_blocks *b, MPI_Comm comm, long segment, int tag);
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

#endif /* AOT_COLL_ENGINES_H_INCLUDED */
