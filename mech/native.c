/*
 * native.c: the native mechanism: the table of requests started without a guard (mech/).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Contract: aot_native_post (native_inline.h) and copy.c add requests to the table, and flags
 * those requests hold; aot_native_complete waits for every request of the table and clears the
 * flags.  Nothing else completes them, and nothing here decides: the policy says when (the end
 * of a chain, a break, MPI_Finalize).  The calls run as the program made them
 * (aot_native_pmpi) need no state and live in native_inline.h with the post.
 */
#include "aot_pmpi.h"
#include "aot_trace.h"
#include "native_inline.h"

MPI_Request aot_native_reqs[AOT_NATIVE_MAX_REQS];
int aot_native_nreqs;
int *aot_native_held[AOT_NATIVE_MAX_REQS];
int aot_native_nheld;
struct aot_native_counters aot_native_ctr;

void aot_native_init(int unguarded_requests, int status_waits)
{
    aot_native_ctr.unguarded_requests = unguarded_requests;
    aot_native_ctr.status_waits = status_waits;
}

void aot_native_complete(void)
{
    if (!aot_native_nreqs)
        return;
    aot_trace(AOT_TR_WAIT, -1, (uint64_t) aot_native_nreqs, 1, "chain");
    aot_waitall_ignore(aot_native_nreqs, aot_native_reqs);
    aot_native_nreqs = 0;
    for (int i = 0; i < aot_native_nheld; i++)
        *aot_native_held[i] = 0;
    aot_native_nheld = 0;
}
