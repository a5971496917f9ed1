/*
 * aot_log.h: one-line messages to stderr, "autoopt[rank]: ...", by verbosity.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_LOG_H_INCLUDED
#define AOT_LOG_H_INCLUDED

#include "aot_state.h"   /* aot_cfg.verbose */

/* aot_log(level, fmt, ...): one line to stderr, "autoopt[rank]: ...", when
 * AUTOOPT_VERBOSE >= level.  Level 0 is always printed (errors). */
void aot_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define AOT_LOG(level, ...) \
    do { if (__builtin_expect(aot_cfg.verbose >= (level), 0)) aot_log((level), __VA_ARGS__); } while (0)

#endif /* AOT_LOG_H_INCLUDED */
