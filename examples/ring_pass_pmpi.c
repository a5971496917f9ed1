/*
 * ring: one pass through MPI's profiling entry points (ring -m MODE@pmpi), which a tool that
 * intercepts MPI_* does not see.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define EX_PMPI 1
#include "ring_pass.c"
