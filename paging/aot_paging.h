/*
 * aot_paging.h: asynchronous conversion of blocking point-to-point calls (paging/).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A blocking send or receive starts as a nonblocking request and returns at once; the bytes its
 * datatype touches are guarded (a send buffer read-only, a receive buffer no-access) until the
 * request completes.  A touch of guarded bytes waits for exactly the requests that own them.
 * See docs/paging.md for the design, the costs and the limits.
 *
 * What intercept/ calls: init/finalize, the enter/leave hooks, the converting calls below.
 * Every one of those returns an MPI error code.  When paging decides not to convert a call it
 * calls the PMPI_ function itself and counts the pass-through reason (aot_stats_pass).
 *
 * What chains/ calls: aot_guarded_start for the members of a safe chain, the size questions,
 * the request interface at the end, and nothing else of paging (DESIGN.md: chains and paging
 * meet at one small interface; paging.h is paging's own).  The entry points above decide by
 * their call site's governor (paging/sites.c, through src/p2p_run.c); aot_guarded_start decides
 * nothing: the chain chose.
 */
#ifndef AOT_PAGING_H_INCLUDED
#define AOT_PAGING_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

#define AOT_ARM_PAGING 1

int  aot_paging_init(char *err, size_t errlen);   /* after PMPI_Init, only when aot_cfg.convert && thread level SINGLE; install handlers; 0 ok / -1 + one-line msg */
void aot_paging_finalize(void);                   /* before PMPI_Finalize: complete everything, restore protections, uninstall */
void aot_paging_enter(int fn);                    /* before a progress-capable PMPI call while pending (lift guards or shadow) */
void aot_paging_leave(int fn);                    /* after it: Testsome, retire completed, re-guard */
int  aot_paging_send(int fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, const void *site); /* fn = AOT_FN_MPI_Send/Ssend/Rsend; site = call-site key */
int  aot_paging_recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status *status, const void *site);
int  aot_paging_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dest, int stag, void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag, MPI_Comm comm, MPI_Status *status, const void *site);
int  aot_paging_sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int source, int rtag, MPI_Comm comm, MPI_Status *status, const void *site);
int  aot_paging_get_count(const MPI_Status *status, MPI_Datatype dt, int *count);     /* also used for MPI_Get_elements: */
int  aot_paging_get_elements(const MPI_Status *status, MPI_Datatype dt, int *count);
int  aot_paging_get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count);
int  aot_paging_get_count_c(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count);
/* Chains' safe chain mode: a member of a safe chain whose chain runs guarded starts as paging's
 * guarded request(s) whatever its size (AUTOOPT_CONVERT_MIN does not apply; every other check
 * of the entry points above does, in their order), also when AUTOOPT_CONVERT=0 (paging is then
 * started for chains alone).  fn: AOT_FN_MPI_Send, _Ssend, _Recv or _Sendrecv (the side fn
 * lacks is ignored); the status is ignored; site: the call site, whose guard note the requests
 * write and which is not converted once it touches at once.  how: AOT_GUARDED_PENDING, or
 * AOT_GUARDED_WAITED when the caller completes the call's requests before it returns to the
 * program (aot_paging_complete on its bytes): they are posted without a guard (so even while
 * the program blocks SIGSEGV or SIGTRAP).  Returns 0 with *rc the call's MPI code, or the
 * AOT_PASS_* reason it could not convert: the call then ran natively, through MPI (counted
 * with aot_stats_pass, *rc its code), as the entry points pass a call. */
enum { AOT_GUARDED_PENDING = 1, AOT_GUARDED_WAITED = 2 };
int aot_guarded_start(int fn, const void *sbuf, int scount, MPI_Datatype sdt, int dest,
                      int stag, void *rbuf, int rcount, MPI_Datatype rdt, int source, int rtag,
                      MPI_Comm comm, int how, const void *site, int *rc);
/* A point-to-point call goes to MPI without paging (AUTOOPT_CONVERT=0, paging started for
 * chains): everything pending completes first, since the call's buffers may share bytes or
 * pages with guarded ones. */
void aot_paging_settle(void);
/* The reason paging passes a call with these arguments straight to MPI whatever its state (the
 * AOT_PASS_* value it would count: switched off, MPI_PROC_NULL, wildcard with status, datatype,
 * below AUTOOPT_CONVERT_MIN), or 0 when it might convert it.  fn: AOT_FN_MPI_Send, _Ssend, _Recv
 * or _Sendrecv; the side of a send or a receive that fn lacks is ignored.  Chains use it to send
 * such calls to MPI from the wrappers' fast path (a call's signature fixes these arguments). */
int aot_paging_pass_reason(int fn, int scount, MPI_Datatype sdt, int dest, int rcount,
                           MPI_Datatype rdt, int source, int rtag, int status_ignore);

/* ---------------------------------------------------------------- chains' request interface */

/* Requests paging holds now (0 when it is off or idle).  Inline, one load: chains test it on
 * their per-call path before asking anything else. */
extern volatile int aot_pg_npending;
static inline int aot_paging_pending(void)
{
    return aot_pg_npending;
}
/* Whether paging is started and converting (for chains' safe mode: AUTOOPT_CONVERT=1, or
 * started for chains alone). */
int aot_paging_started(void);
/* Whether paging takes a point-to-point call of this size: AUTOOPT_CONVERT=1 and the larger of
 * its sides (count elements of the datatype; a side the call does not have: count 0) holds at
 * least AUTOOPT_CONVERT_MIN bytes.  What paging converts stays paging's: chains never make such
 * a call a chain member.  Only the size is asked: a call that paging then declines for another
 * reason (peer, status, communicator, mapping) goes to MPI as it would without chains.  May call
 * PMPI_Type_size_x. */
int aot_paging_would_convert(int scount, MPI_Datatype sdt, int rcount, MPI_Datatype rdt);
/* MPI is about to get [lo, hi) itself (write: it may write there): the pending requests whose
 * bytes meet it in a conflicting way complete (a receive conflicts with any access, a send with
 * a write), and so do those with bytes on any page of it: MPI and the kernel reach a buffer by
 * pages (a peer's process_vm_readv fails on a no-access page).  Nothing when nothing is
 * pending.  Calls MPI. */
void aot_paging_complete(intptr_t lo, intptr_t hi, int write);
/* Whether paging guards any page of [lo, hi) now (such a page must not be protected by anyone
 * else).  0 when nothing is pending.  Signal-safe. */
int aot_paging_guards(intptr_t lo, intptr_t hi);

#endif /* AOT_PAGING_H_INCLUDED */
