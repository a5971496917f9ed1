/*
 * aot_chains.h: call signatures, chain detection and chain mode (chains/).  See docs/chains.md.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * What intercept/ calls (subsystems.c starts and stops chains and runs the hooks, route.c
 * routes point-to-point calls):
 *   aot_chains_init / aot_chains_finalize the learner and chain mode (AUTOOPT_CHAINS=1)
 *   aot_chains_trace                      with AUTOOPT_TRACE (whether or not chains are on):
 *                                         chains name the trace's calls, through the namer of
 *                                         the trace writer (src/trace.c, docs/trace-format.md)
 *   aot_chains_enter                      run from aot_enter_slow before every hooked MPI call
 *                                         while AOT_ARM_CHAINS is set
 *   aot_chains_<p2p>                      from intercept/route.c, before paging: a chain member,
 *                                         a call being learned, or AOT_CHAINS_DECLINED (the call
 *                                         is not for chains: route it on as before)
 * Chains use paging only through paging's public request interface (aot_paging.h).
 */
#ifndef AOT_CHAINS_H_INCLUDED
#define AOT_CHAINS_H_INCLUDED

#include <stddef.h>
#include <mpi.h>

/* Bit of aot_hooks_armed: chains want every hooked call (aot_ch_arm_sync, chains.c). */
#define AOT_ARM_CHAINS AOT_ARM_FASTPASS

/* Returned by the aot_chains_<p2p> entry points when chains do not take the call. */
#define AOT_CHAINS_DECLINED (-1)

int  aot_chains_init(char *err, size_t errlen);
void aot_chains_finalize(void);                   /* completes every outstanding chain request */
void aot_chains_trace(void);                      /* after aot_trace_init, when aot_trace_on */

void aot_chains_enter(int fn);

int aot_chains_send(int fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm);
int aot_chains_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                    MPI_Status *status);
int aot_chains_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                        void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                        MPI_Comm comm, MPI_Status *status);

/* The fast path (intercept/wrappers.spec, "fast"): the expected next member of a running chain,
 * called by its wrapper before any hook while aot_fast_armed is set.  AOT_FAST_DECLINED (the
 * same value as AOT_CHAINS_DECLINED), having changed nothing, for every other call. */
int aot_chains_fast_send(int fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                         MPI_Comm comm);
int aot_chains_fast_recv(void *buf, int count, MPI_Datatype dt, int source, int tag,
                         MPI_Comm comm, MPI_Status *status);
int aot_chains_fast_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag,
                             void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                             MPI_Comm comm, MPI_Status *status);

#endif /* AOT_CHAINS_H_INCLUDED */
