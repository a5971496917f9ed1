/*
 * coll_algorithms.h: the signature of each collective's algorithms and the prototype of every
 * algorithm of the registry (coll_algorithms.def), MPI's own collectives among them (native.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * An algorithm has the arguments of its collective plus one `const struct aot_coll_ctx *ctx`
 * (coll_ctx.h).  It runs on ctx->comm only, so its messages never meet the program's own.  It
 * calls PMPI_* only, returns an MPI error code, and never sees MPI_IN_PLACE for allgather,
 * allgatherv, alltoall and alltoallv (the runner turns it into an explicit send buffer; see
 * coll_run.c).  Allreduce and reduce algorithms do handle MPI_IN_PLACE.  The files: one per
 * algorithm in algorithms/, the natives together in native.c (docs/collectives.md, "Layout").
 */
#ifndef AOT_COLL_ALGORITHMS_H_INCLUDED
#define AOT_COLL_ALGORITHMS_H_INCLUDED

#include <mpi.h>

#include "aot_config.h"   /* AOT_COLLECTIVES */

struct aot_coll_ctx;

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

/* MPI's own reduce and allgatherv on any communicator, with autoopt's workarounds of MPICH
 * bugs (native.c); the runner calls them on the user's communicator. */
int aot_reduce_pmpi(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    int root, MPI_Comm comm);
int aot_allgatherv_pmpi(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                        const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm);

#endif /* AOT_COLL_ALGORITHMS_H_INCLUDED */
