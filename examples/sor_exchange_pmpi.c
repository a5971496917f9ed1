/*
 * sor: the border exchanges through MPI's profiling entry points (sor -m MODE@pmpi).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A tool that intercepts MPI_* (autoopt, by LD_PRELOAD or by its compile-time mpi.h) does not
 * see PMPI_* calls, so one sor job can run the same exchange through the tool and, in turns,
 * through plain MPI, and compare the two on the same ranks at the same moment (-m with a list).
 */
#define EX_PMPI 1
#include "sor_exchange.c"
