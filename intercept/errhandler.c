/*
 * errhandler.c: the hand-written wrappers of MPI_{Comm,Win,File,Session}_create_errhandler.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * MPI calls the program's error handler from inside the failing call, where autoopt's call
 * depth is raised.  A handler may leave with longjmp/siglongjmp, and the depth must not stay
 * raised then (every later call of the program would pass for autoopt's own: guards touched
 * "inside MPI", nothing completed at MPI_Finalize).  So the program's function is registered
 * through a trampoline that lowers the depth to the program's 0 before calling it and restores
 * it if the function returns.  The trampolines are a fixed table, one slot per distinct
 * function; once a kind's table is full the program's function is registered as it is (the
 * behaviour before).
 */
#include "aot.h"

#define AOT_EH_SLOTS 16

#pragma GCC visibility push(default)

/* One table of slots and trampolines per kind of handle (MPI_Comm, MPI_Win, ...). */
#define AOT_EH_KIND(kind, htype, ftype)                                                        \
    static ftype *_Atomic aot_eh_##kind##_fn[AOT_EH_SLOTS];                                    \
    static void aot_eh_##kind##_call(int slot, htype *h, int *code)                            \
    {                                                                                          \
        int depth = aot_tls.depth;                                                             \
        aot_tls.depth = 0;                                                                     \
        aot_eh_##kind##_fn[slot](h, code);                                                     \
        aot_tls.depth = depth;                                                                 \
    }                                                                                          \
    AOT_EH_TRAMPOLINES(kind, htype)                                                            \
    static ftype *const aot_eh_##kind##_tramp[AOT_EH_SLOTS] = {                                \
        aot_eh_##kind##_t0, aot_eh_##kind##_t1, aot_eh_##kind##_t2, aot_eh_##kind##_t3,        \
        aot_eh_##kind##_t4, aot_eh_##kind##_t5, aot_eh_##kind##_t6, aot_eh_##kind##_t7,        \
        aot_eh_##kind##_t8, aot_eh_##kind##_t9, aot_eh_##kind##_t10, aot_eh_##kind##_t11,      \
        aot_eh_##kind##_t12, aot_eh_##kind##_t13, aot_eh_##kind##_t14, aot_eh_##kind##_t15};   \
    /* The trampoline for fn: its slot, a free one claimed, or fn itself when all are taken. */ \
    static ftype *aot_eh_##kind##_wrap(ftype *fn)                                              \
    {                                                                                          \
        if (fn == NULL)                                                                        \
            return fn;                                                                         \
        for (int i = 0; i < AOT_EH_SLOTS; i++) {                                               \
            ftype *cur = aot_eh_##kind##_fn[i];                                                \
            if (cur == NULL) {                                                                 \
                ftype *expected = NULL;                                                        \
                if (__atomic_compare_exchange_n(&aot_eh_##kind##_fn[i], &expected, fn, 0,      \
                                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))           \
                    return aot_eh_##kind##_tramp[i];                                           \
                cur = expected;                                                                \
            }                                                                                  \
            if (cur == fn)                                                                     \
                return aot_eh_##kind##_tramp[i];                                               \
        }                                                                                      \
        return fn;                                                                             \
    }

#define AOT_EH_T(kind, htype, n)                                                               \
    static void aot_eh_##kind##_t##n(htype *h, int *code, ...) { aot_eh_##kind##_call(n, h, code); }
#define AOT_EH_TRAMPOLINES(kind, htype)                                                        \
    AOT_EH_T(kind, htype, 0) AOT_EH_T(kind, htype, 1) AOT_EH_T(kind, htype, 2)                 \
    AOT_EH_T(kind, htype, 3) AOT_EH_T(kind, htype, 4) AOT_EH_T(kind, htype, 5)                 \
    AOT_EH_T(kind, htype, 6) AOT_EH_T(kind, htype, 7) AOT_EH_T(kind, htype, 8)                 \
    AOT_EH_T(kind, htype, 9) AOT_EH_T(kind, htype, 10) AOT_EH_T(kind, htype, 11)               \
    AOT_EH_T(kind, htype, 12) AOT_EH_T(kind, htype, 13) AOT_EH_T(kind, htype, 14)              \
    AOT_EH_T(kind, htype, 15)

AOT_EH_KIND(comm, MPI_Comm, MPI_Comm_errhandler_function)
AOT_EH_KIND(win, MPI_Win, MPI_Win_errhandler_function)
AOT_EH_KIND(file, MPI_File, MPI_File_errhandler_function)
AOT_EH_KIND(session, MPI_Session, MPI_Session_errhandler_function)

#define AOT_EH_WRAPPER(Kind, kind, ftype)                                                      \
    int MPI_##Kind##_create_errhandler(ftype *fn, MPI_Errhandler *errhandler)                  \
    {                                                                                          \
        if (aot_active && aot_tls.depth == 0)                                                  \
            aot_count_call(AOT_FN_MPI_##Kind##_create_errhandler);                             \
        return PMPI_##Kind##_create_errhandler(aot_eh_##kind##_wrap(fn), errhandler);          \
    }

AOT_EH_WRAPPER(Comm, comm, MPI_Comm_errhandler_function)
AOT_EH_WRAPPER(Win, win, MPI_Win_errhandler_function)
AOT_EH_WRAPPER(File, file, MPI_File_errhandler_function)
AOT_EH_WRAPPER(Session, session, MPI_Session_errhandler_function)
