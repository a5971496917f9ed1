/*
 * hooks.c: the enter and leave hooks around the MPI calls paging does not convert.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * What MPI may touch: the routed calls (send, receive, sendrecv) know their buffers and wait
 * only for pending requests whose bytes they overlap.  For any other progress-capable call the
 * buffers are unknown: calls that take no buffer (waits, tests, probes, barriers, communicator
 * management) change nothing; calls that only read buffers (sends of all kinds, MPI_Pack) first
 * complete the pending receives; every other call first completes everything.  Waiting later
 * than the original program would have blocked never deadlocks: every pending request comes
 * from a call the original program had already completed at that point.
 *
 * Which call is which is intercept/wrappers.spec's (classes convert, nobuf, reads), in the
 * generated table aot_function_classes.
 */
#include "paging.h"

uint64_t aot_pg_epoch;

void aot_paging_enter(int fn)
{
    int cls;

    if (!aot_pg_on)
        return;
    aot_pg_mpi_window = 1;
    aot_pg_epoch++;
    if (!aot_pg_npending || fn < 0 || fn >= AOT_FN_COUNT)
        return;
    cls = aot_function_classes[fn];
    if (!(cls & (AOT_FC_CONVERT | AOT_FC_NOBUF))) {
        int reads = cls & AOT_FC_READS, n = 0;
        for (int i = 0; i < aot_pg_nslots; i++)
            if (aot_pg_reqs[i].state && (!reads || aot_pg_reqs[i].kind == AOT_PG_RECV)) {
                aot_pg_wait_one(i);
                n++;
            }
        if (n)
            AOT_PG_COUNT(enter_waits, n);
    }
}

void aot_paging_leave(int fn)
{
    (void) fn;
    if (!aot_pg_on)
        return;
    aot_pg_progress();
    aot_pg_lifted_restore();
    aot_pg_mpi_window = 0;
    aot_pg_disarm_if_idle();
}
