/*
 * init.c: the hand-written wrappers of MPI_Init, MPI_Init_thread and MPI_Finalize.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Everything else in intercept/ is generated (gen_wrappers.py); these three differ because they
 * start and stop autoopt itself.
 */
#include "aot.h"

#pragma GCC visibility push(default)

int MPI_Init(int *argc, char ***argv)
{
    int rc, provided = MPI_THREAD_SINGLE;

    aot_tls.depth = 1;
    rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        PMPI_Query_thread(&provided);
        rc = aot_runtime_start(provided);
    }
    aot_tls.depth = 0;
    if (aot_active)
        aot_count_call(AOT_FN_MPI_Init);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc;

    aot_tls.depth = 1;
    rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        rc = aot_runtime_start(*provided);
    aot_tls.depth = 0;
    if (aot_active)
        aot_count_call(AOT_FN_MPI_Init_thread);
    return rc;
}

int MPI_Finalize(void)
{
    if (aot_active && aot_tls.depth == 0) {
        aot_count_call(AOT_FN_MPI_Finalize);
        aot_runtime_finish();    /* completes every pending request, prints statistics */
    }
    return PMPI_Finalize();
}

#pragma GCC visibility pop
