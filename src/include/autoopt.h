/*
 * autoopt.h: the public API of libautoopt.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Programs never need this header: autoopt works on unchanged programs, through LD_PRELOAD or
 * autoopt-mpicc.  It exists for programs and tools that want to know whether autoopt is there.
 */
#ifndef AUTOOPT_H_INCLUDED
#define AUTOOPT_H_INCLUDED

#define AUTOOPT_VERSION_MAJOR 0
#define AUTOOPT_VERSION_MINOR 1
#define AUTOOPT_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string, e.g. "0.1.0". */
const char *autoopt_version(void);

/* 1 after MPI_Init when autoopt is active (AUTOOPT_DISABLE unset), else 0. */
int autoopt_active(void);

#ifdef __cplusplus
}
#endif
#endif /* AUTOOPT_H_INCLUDED */
