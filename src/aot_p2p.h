/*
 * aot_p2p.h: the modes a governed point-to-point call runs in, one list for safe chains
 * (chains/) and converting call sites (paging/sites.c), and the mode AUTOOPT_P2P_MODE forces.
 *
 * A safe chain's occurrence and a converting call site's call each run in one of these modes,
 * chosen by its benefit governor (aot_govern.h, docs/govern.md), which numbers its candidates
 * the same way: native first, the reference every other mode is measured against.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_P2P_H
#define AOT_P2P_H

#include "aot_config.h"

enum aot_p2p_mode {
    AOT_MODE_NATIVE,     /* the calls as the program made them */
    AOT_MODE_COPY,       /* sends from a copy of the buffer, receives as made */
    AOT_MODE_GUARDED,    /* nonblocking requests whose buffers are guarded (paging) */
    AOT_MODE_N
};

/* "native", "copied", "guarded": the statistics, the logs and the governor's reasons. */
extern const char *const aot_p2p_mode_names[AOT_MODE_N];

/* The mode AUTOOPT_P2P_MODE (aot_cfg.p2p_mode) forces, or -1 when the governor chooses. */
static inline int aot_p2p_forced_mode(int p2p_mode)
{
    switch (p2p_mode) {
    case AOT_P2P_NATIVE:
        return AOT_MODE_NATIVE;
    case AOT_P2P_COPY:
        return AOT_MODE_COPY;
    case AOT_P2P_GUARDED:
        return AOT_MODE_GUARDED;
    default:
        return -1;
    }
}

/*
 * What the guarded mechanism (paging/) saw the program do with one call site's converted
 * buffers.  The site's policy (paging/sites.c) owns it and hands it down with each call of the
 * site it converts (NULL: a call with no site); the request table and the fault handler write
 * it, with plain stores only (the handler's writes run in signal context), and never read
 * anything else of the site.  The policy reads it at the site's next call: what it learns
 * from it (AUTOOPT_LEARN_TOUCH: the site touches at once) is its own.
 */
struct aot_guard_note {
    int streak;       /* conversions in a row whose buffer the program touched before it made
                       * another MPI call; 0 after one it touched only later, or that completed
                       * untouched in a later MPI call */
    int peak;         /* the longest streak so far */
};

#endif
