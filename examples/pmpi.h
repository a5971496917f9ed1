/*
 * For the exchange files that are compiled a second time with EX_PMPI defined
 * (sor_exchange_pmpi.c, cg_exchange_pmpi.c, multigrid_exchange_pmpi.c, ring_pass_pmpi.c,
 * fft_exchange_pmpi.c):
 * their MPI calls become
 * calls of MPI's profiling entry points, which a tool that intercepts MPI_* (autoopt, by
 * LD_PRELOAD or by its compile-time mpi.h) does not see.  In MPICH MPI_Isend is a weak alias
 * of PMPI_Isend, so that is native MPI even with autoopt loaded.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Include it after <mpi.h> (the compile-time mpi.h defines these names as macros).
 */
#ifndef EXAMPLES_PMPI_H
#define EXAMPLES_PMPI_H

#ifdef EX_PMPI
#include <mpi.h>

#undef MPI_Sendrecv
#undef MPI_Irecv
#undef MPI_Isend
#undef MPI_Send
#undef MPI_Recv
#undef MPI_Wait
#undef MPI_Waitall
#undef MPI_Allreduce
#undef MPI_Alltoall
#define MPI_Sendrecv PMPI_Sendrecv
#define MPI_Irecv PMPI_Irecv
#define MPI_Isend PMPI_Isend
#define MPI_Send PMPI_Send
#define MPI_Recv PMPI_Recv
#define MPI_Wait PMPI_Wait
#define MPI_Waitall PMPI_Waitall
#define MPI_Allreduce PMPI_Allreduce
#define MPI_Alltoall PMPI_Alltoall
#endif

#endif /* EXAMPLES_PMPI_H */
