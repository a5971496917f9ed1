/*
 * tools.c: the set-up of an offline tool that runs the collectives without libautoopt.so's
 * MPI_Init, and a communicator to run the repository's algorithms on (aot_tools.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>
#include <stdlib.h>

#include "aot_state.h"
#include "aot_tools.h"
#include "coll_algorithms.h"
#include "coll_bytes.h"
#include "coll_ctx.h"
#include "coll_registry.h"
#include "coll_run.h"
#include "coll_select.h"
#include "coll_switches.h"
#include "coll_util.h"

int aot_tools_setup(const char *topology, char *err, size_t errlen)
{
    if (!topology || !*topology)
        return 0;
    /* what MPI_Init's wrapper sets in the library */
    PMPI_Comm_rank(MPI_COMM_WORLD, &aot_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &aot_world_size);
    return aot_coll_topo_init(topology, err, errlen);
}

struct aot_tools_comm {
    MPI_Comm comm;              /* the caller's: natives run here */
    MPI_Comm pcomm;             /* the private duplicate the algorithms run on */
    struct aot_coll_ctx ctx;    /* the algorithms' context on pcomm */
};

int aot_tools_comm_open(MPI_Comm comm, struct aot_tools_comm **out)
{
    struct aot_tools_comm *tc = calloc(1, sizeof(*tc));
    int rc;

    *out = NULL;
    if (!tc)
        return MPI_ERR_NO_MEM;
    tc->comm = comm;
    rc = PMPI_Comm_dup(comm, &tc->pcomm);
    if (rc == MPI_SUCCESS) {
        rc = aot_coll_ctx_init(&tc->ctx, tc->pcomm);
        if (rc != MPI_SUCCESS)
            PMPI_Comm_free(&tc->pcomm);
    }
    if (rc != MPI_SUCCESS) {
        free(tc);
        return rc;
    }
    *out = tc;
    return MPI_SUCCESS;
}

void aot_tools_comm_close(struct aot_tools_comm *tc)
{
    if (!tc)
        return;
    aot_coll_ctx_destroy(&tc->ctx);
    PMPI_Comm_free(&tc->pcomm);
    free(tc);
}

int aot_tools_comm_shape(const struct aot_tools_comm *tc, struct aot_tools_shape *sh)
{
    struct aot_coll_shape s = {sh->size, sh->nhosts, sh->ppn};
    int rc = aot_coll_shape_of(&tc->ctx, &s);

    *sh = (struct aot_tools_shape){s.size, s.nhosts, s.ppn};
    return rc;
}

int aot_tools_run(const struct aot_tools_comm *tc, int alg, long param, uint64_t bytes,
                  const struct aot_tools_bufs *b)
{
    const enum aot_coll_kind kind = aot_coll_algs[alg].kind;
    const union aot_coll_fn fn = aot_coll_algs[alg].fn;
    const int native = alg == (int) kind, n = aot_coll_bench_count(kind, bytes);
    const int p = tc->ctx.size;
    const MPI_Comm comm = tc->comm;
    const struct aot_coll_ctx x = aot_coll_ctx_with(&tc->ctx, param);

    switch (kind) {
    case AOT_COLL_ALLREDUCE:
        return native ? PMPI_Allreduce(b->s, b->r, n, MPI_FLOAT, MPI_SUM, comm)
                      : fn.allreduce(b->s, b->r, n, MPI_FLOAT, MPI_SUM, &x);
    case AOT_COLL_REDUCE:
        return native ? PMPI_Reduce(b->s, b->r, n, MPI_FLOAT, MPI_SUM, 0, comm)
                      : fn.reduce(b->s, b->r, n, MPI_FLOAT, MPI_SUM, 0, &x);
    case AOT_COLL_BCAST:
        return native ? PMPI_Bcast(b->s, n, MPI_CHAR, 0, comm)
                      : fn.bcast(b->s, n, MPI_CHAR, 0, &x);
    case AOT_COLL_ALLGATHER:
        return native ? PMPI_Allgather(b->s, n, MPI_CHAR, b->r, n, MPI_CHAR, comm)
                      : fn.allgather(b->s, n, MPI_CHAR, b->r, n, MPI_CHAR, &x);
    case AOT_COLL_ALLTOALL:
        return native ? PMPI_Alltoall(b->s, n, MPI_CHAR, b->r, n, MPI_CHAR, comm)
                      : fn.alltoall(b->s, n, MPI_CHAR, b->r, n, MPI_CHAR, &x);
    case AOT_COLL_ALLGATHERV:
        for (int i = 0; i < p; i++)
            b->counts[i] = n, b->displs[i] = i * n;
        return native ? PMPI_Allgatherv(b->s, n, MPI_CHAR, b->r, b->counts, b->displs,
                                        MPI_CHAR, comm)
                      : fn.allgatherv(b->s, n, MPI_CHAR, b->r, b->counts, b->displs, MPI_CHAR,
                                      &x);
    case AOT_COLL_ALLTOALLV:
        for (int i = 0; i < p; i++)
            b->counts[i] = n, b->displs[i] = i * n;
        return native ? PMPI_Alltoallv(b->s, b->counts, b->displs, MPI_CHAR, b->r, b->counts,
                                       b->displs, MPI_CHAR, comm)
                      : fn.alltoallv(b->s, b->counts, b->displs, MPI_CHAR, b->r, b->counts,
                                     b->displs, MPI_CHAR, &x);
    default:
        return native ? PMPI_Barrier(comm) : fn.barrier(&x);
    }
}

void aot_tools_set_tuning(const struct aot_tuning *t)
{
    aot_coll_set_tuning(t);
}

int aot_tools_mpi_version(char *buf, int len)
{
    return aot_coll_mpi_version(buf, len);
}
