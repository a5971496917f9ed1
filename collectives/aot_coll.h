/*
 * aot_coll.h: the entry points of the collective-algorithm repository, called by intercept/.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * intercept/ calls aot_coll_<collective>() from inside the MPI_<Collective> wrapper when
 * AUTOOPT_COLLECTIVES is on, with autoopt's re-entry guard held.  Each entry point picks one
 * algorithm (forced by AUTOOPT_<COLL>, else the tuning file, else MPI's own collective), runs it
 * on a private duplicate of the communicator with PMPI point-to-point calls, and returns an MPI
 * error code.  Intercommunicators always go to PMPI_<Collective>.
 *
 * The repository itself (one file per algorithm, the registry, the decision and the tuning
 * file) is described in docs/collectives.md; the tuning-file format in docs/tuning-format.md.
 */
#ifndef AOT_COLL_H_INCLUDED
#define AOT_COLL_H_INCLUDED

#include <stddef.h>
#include <mpi.h>

/* After PMPI_Init, on every rank (it broadcasts the tuning file from rank 0 of
 * MPI_COMM_WORLD): registers the statistics counters, parses AUTOOPT_<COLL> and reads
 * AUTOOPT_TUNING.  Returns 0, or -1 with a one-line message in err (no "autoopt: " prefix),
 * e.g. "AUTOOPT_ALLREDUCE=foo: unknown algorithm (known: native, ring, ...)". */
int aot_coll_init(char *err, size_t errlen);

/* At MPI_Finalize before the statistics report, on every rank (collective over
 * MPI_COMM_WORLD): online tuning's report and AUTOOPT_TUNE_SAVE. */
void aot_coll_finish(void);

/* Before PMPI_Finalize, on every rank: frees the private communicators of MPI_COMM_WORLD and
 * MPI_COMM_SELF, the keyval and the tuning table. */
void aot_coll_finalize(void);

int aot_coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                       MPI_Comm comm);
int aot_coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int aot_coll_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    int root, MPI_Comm comm);
int aot_coll_allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                       MPI_Datatype rdt, MPI_Comm comm);
int aot_coll_allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                        const int *rcounts, const int *displs, MPI_Datatype rdt, MPI_Comm comm);
int aot_coll_alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                      MPI_Datatype rdt, MPI_Comm comm);
int aot_coll_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                       MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                       MPI_Datatype rdt, MPI_Comm comm);
int aot_coll_barrier(MPI_Comm comm);

#endif /* AOT_COLL_H_INCLUDED */
