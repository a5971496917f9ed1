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

#endif
