/*
 * aot_mech.h: the mechanisms of point-to-point calls, below the policy (mech/, issue 57).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A mechanism carries out a call in one mode once the policy (today chains/) has chosen the
 * mode; it never decides and never calls the policy.  Each module has a start and a complete:
 *   native.c   the call as the program made it, or its requests posted on the program's own
 *              buffers without a guard (unguarded chain mode); the table of those requests.
 *              Its fast-path half is static inline in native_inline.h.
 *   copy.c     a send started from a private copy of its bytes (copied mode), the copy
 *              reusable once its request completed.
 * What a module needs from the policy comes in as an argument (the call, its spans, the pass
 * reason) or once at start-up (the ids of the statistics counters, which the policy registers
 * in its own section and order).  mech/ includes only src/ and its own headers
 * (tests/include_graph.py).  The guarded mechanism (paging/) is not reached from here yet:
 * the caller completes paging's requests on the bytes it hands over (aot_mech_resolve_fn).
 */
#ifndef AOT_MECH_H_INCLUDED
#define AOT_MECH_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

/* One intercepted point-to-point call as the program made it: MPI_Send, MPI_Ssend, MPI_Recv or
 * MPI_Sendrecv (fn: AOT_FN_MPI_*), with the sides it has (has_s, has_r). */
struct aot_mech_call {
    int fn;
    const void *sbuf;
    int scount, dest, stag;
    MPI_Datatype sdt;
    void *rbuf;
    int rcount, source, rtag;
    MPI_Datatype rdt;
    MPI_Comm comm;
    MPI_Status *status;
    int has_s, has_r;
};

/* The bytes a call's buffers may touch (true extent, count times); lo == hi: none. */
struct aot_mech_span {
    intptr_t slo, shi, rlo, rhi;
};

/* Completes the requests of other mechanisms on [lo, hi) before MPI gets those bytes itself
 * (write: MPI may write there).  Supplied by the caller, which today is the one that sees
 * paging. */
typedef void aot_mech_resolve_fn(intptr_t lo, intptr_t hi, int write);

/* ---------------------------------------------------------------- native.c */

/* The counters native posts count into (aot_stats_register ids of the policy's section). */
void aot_native_init(int unguarded_requests, int status_waits);
/* Completes every request of the table (and releases what they held: aot_native_hold). */
void aot_native_complete(void);

/* ---------------------------------------------------------------- copy.c */

/* The private copy of one call's send side.  ok: the policy allows copying it (the span is
 * dense enough); busy: a pending request reads data (cleared by aot_native_complete); sent and
 * late: copied sends started, and those MPI had not completed when their call returned.
 * Zeroed at first; owned by the policy's record of the call, opaque to it but for ok, sent and
 * late. */
struct aot_copy_buf {
    int ok;
    int busy;
    void *data;
    size_t cap;
    uint32_t sent, late;
};

/* The counters copied sends count into. */
void aot_copy_init(int copied_sends, int copied_late);
/* Copied mode: the send side (go & 1) goes from b's copy with MPI_Isend, completed with the
 * native table's requests; the receive side (go & 2, or a status read from MPI_PROC_NULL)
 * runs blocking once the send is under way.  Returns the MPI code, or -1 having sent nothing
 * when the send cannot be copied (no send side, !b->ok, MPI_Ssend, no memory): the caller then
 * runs the call natively.  resolve: see aot_mech_resolve_fn. */
int aot_copy_start(const struct aot_mech_call *c, int go, struct aot_copy_buf *b,
                   const struct aot_mech_span *sp, aot_mech_resolve_fn *resolve);

#endif /* AOT_MECH_H_INCLUDED */
