/*
 * fft: the transposes through MPI's profiling entry points (fft -m MODE@pmpi), which a tool
 * that intercepts MPI_* does not see.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define EX_PMPI 1
#include "fft_exchange.c"
