/*
 * tune_export.h: "autoopt-tune export" (export.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_TUNE_EXPORT_H_INCLUDED
#define AOT_TUNE_EXPORT_H_INCLUDED

/* argv[0] is "export"; returns the exit status.  Needs no MPI_Init. */
int aot_tune_export(int argc, char **argv);

#endif /* AOT_TUNE_EXPORT_H_INCLUDED */
