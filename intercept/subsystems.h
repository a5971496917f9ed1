/*
 * subsystems.h: the entry points of the subsystems that are built (AOT_HAVE_<SUBSYSTEM>), for
 * the files of intercept/, the one folder that knows them all (docs/design.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_INTERCEPT_SUBSYSTEMS_H_INCLUDED
#define AOT_INTERCEPT_SUBSYSTEMS_H_INCLUDED

#include "aot.h"
#ifdef AOT_HAVE_PAGING
#include "aot_paging.h"
#endif
#ifdef AOT_HAVE_CHAINS
#include "aot_chains.h"
#endif
#ifdef AOT_HAVE_COLLECTIVES
#include "aot_coll.h"
#endif

#endif /* AOT_INTERCEPT_SUBSYSTEMS_H_INCLUDED */
