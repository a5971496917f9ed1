/*
 * hooks.c: the enter and leave hooks around the MPI calls paging does not convert, and the
 * classification of MPI functions they use.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * What MPI may touch: the routed calls (send, receive, sendrecv) know their buffers and wait
 * only for pending requests whose bytes they overlap.  For any other progress-capable call the
 * buffers are unknown: calls that take no buffer (waits, tests, probes, barriers, communicator
 * management) change nothing; calls that only read buffers (sends of all kinds, MPI_Pack) first
 * complete the pending receives; every other call first completes everything.  Waiting later
 * than the original program would have blocked never deadlocks: every pending request comes
 * from a call the original program had already completed at that point.
 */
#include <string.h>

#include "paging.h"

uint64_t aot_pg_epoch;

/* ---------------------------------------------------------------- classification of calls */

enum { AOT_PG_CLS_ALL = 0, AOT_PG_CLS_NONE, AOT_PG_CLS_READS, AOT_PG_CLS_OURS };
static unsigned char aot_pg_fn_class[AOT_FN_COUNT];

static int aot_pg_name_in(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(name, *list) == 0)
            return 1;
    return 0;
}

void aot_pg_classify_functions(void)
{
    static const char *const ours[] = {
        "MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Recv", "MPI_Sendrecv",
        "MPI_Sendrecv_replace", NULL };
    /* no buffer of the program is read or written by these */
    static const char *const none[] = {
        "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Test", "MPI_Testall",
        "MPI_Testany", "MPI_Testsome", "MPI_Barrier", "MPI_Ibarrier", "MPI_Probe", "MPI_Iprobe",
        "MPI_Improbe", "MPI_Mprobe", "MPI_Cancel", "MPI_Request_free", "MPI_Request_get_status",
        "MPI_Get_count", "MPI_Get_elements", "MPI_Get_elements_x", "MPI_Get_count_c",
        "MPI_Get_elements_c", "MPI_Status_set_elements", "MPI_Status_set_elements_x",
        "MPI_Status_set_cancelled", "MPI_Test_cancelled", "MPI_Comm_dup", "MPI_Comm_idup",
        "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type", "MPI_Comm_create",
        "MPI_Comm_create_group", "MPI_Comm_free", "MPI_Cart_create", "MPI_Cart_sub",
        "MPI_Graph_create", "MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent",
        "MPI_Intercomm_create", "MPI_Intercomm_merge", "MPI_Comm_disconnect", "MPI_Abort",
        "MPI_Pack_size", "MPI_Pack_external_size", "MPI_Buffer_attach", "MPI_Start",
        NULL };
    for (int fn = 0; fn < AOT_FN_COUNT; fn++) {
        const char *name = aot_function_names[fn];
        unsigned char c = AOT_PG_CLS_ALL;
        if (aot_pg_name_in(name, ours))
            c = AOT_PG_CLS_OURS;
        else if (aot_pg_name_in(name, none))
            c = AOT_PG_CLS_NONE;
        else if ((strstr(name, "send") || strstr(name, "Send") || strncmp(name, "MPI_Pack", 8) == 0)
                 && !strstr(name, "recv") && !strstr(name, "_init"))
            c = AOT_PG_CLS_READS;
        aot_pg_fn_class[fn] = c;
    }
    /* MPI_Start(all) of a persistent receive writes, of a persistent send reads: unknown */
    for (int fn = 0; fn < AOT_FN_COUNT; fn++)
        if (strncmp(aot_function_names[fn], "MPI_Start", 9) == 0)
            aot_pg_fn_class[fn] = AOT_PG_CLS_ALL;
}

/* ---------------------------------------------------------------- enter / leave */

void aot_paging_enter(int fn)
{
    int cls;

    if (!aot_pg_on)
        return;
    aot_pg_mpi_window = 1;
    aot_pg_epoch++;
    if (!aot_pg_npending || fn < 0 || fn >= AOT_FN_COUNT)
        return;
    cls = aot_pg_fn_class[fn];
    if (cls == AOT_PG_CLS_ALL || cls == AOT_PG_CLS_READS) {
        int n = 0;
        for (int i = 0; i < aot_pg_nslots; i++)
            if (aot_pg_reqs[i].state && (cls == AOT_PG_CLS_ALL || aot_pg_reqs[i].kind == AOT_PG_RECV)) {
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
