/*
 * coll_run.h: what the runner (coll_run.c) offers the rest of the folder: the nested
 * selection an algorithm makes for a collective inside it, and the tuner's tuning table.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_COLL_RUN_H_INCLUDED
#define AOT_COLL_RUN_H_INCLUDED

#include <mpi.h>

struct aot_coll_ctx;
struct aot_tuning;

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

#endif /* AOT_COLL_RUN_H_INCLUDED */
