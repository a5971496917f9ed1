/*
 * coll_util.h: the helpers every algorithm uses (coll_util.c): tags, datatypes, scratch
 * memory, copies and reductions, the synchronisation of ring and pair steps, block and tree
 * arithmetic.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_COLL_UTIL_H_INCLUDED
#define AOT_COLL_UTIL_H_INCLUDED

#include <stddef.h>
#include <mpi.h>

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
/* 1 when dt is one of the predefined datatypes a program commonly passes (C and Fortran
 * basic types), whose figures callers may remember: such a handle never changes. */
int aot_coll_predefined(MPI_Datatype dt);

/* The size alone, from the same per-thread memory of the last predefined type aot_coll_dt
 * keeps (coll_util.c): a hit costs two compares, a miss on a predefined type fills the memory,
 * any other type asks PMPI_Type_size only. */
extern __thread MPI_Datatype aot_dt_last __attribute__((tls_model("initial-exec")));
extern __thread struct aot_dt aot_dt_last_figures __attribute__((tls_model("initial-exec")));
int aot_coll_type_size_miss(MPI_Datatype dt, int *size);
static inline int aot_coll_type_size(MPI_Datatype dt, int *size)
{
    if (dt == aot_dt_last && dt != MPI_DATATYPE_NULL) {
        *size = aot_dt_last_figures.size;
        return MPI_SUCCESS;
    }
    return aot_coll_type_size_miss(dt, size);
}

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
/* After an error: cancels and completes every request of req[0..n) that is not
 * MPI_REQUEST_NULL, so that nothing stays pending on the communicator. */
void aot_coll_cancel_all(int n, MPI_Request *req);

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

#endif /* AOT_COLL_UTIL_H_INCLUDED */
