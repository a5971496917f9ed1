/*
 * tune_export.h: the subcommands of autoopt-tune that need no MPI job: "autoopt-tune export"
 * (export.c) and "autoopt-tune encode" (encode.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_TUNE_EXPORT_H_INCLUDED
#define AOT_TUNE_EXPORT_H_INCLUDED

/* argv[0] is "export"; returns the exit status.  Needs no MPI_Init. */
int aot_tune_export(int argc, char **argv);

/* argv[0] is "encode"; returns the exit status (0; 1 bad input; 2 bad command line).  Needs
 * no MPI_Init. */
int aot_tune_encode(int argc, char **argv);

#endif /* AOT_TUNE_EXPORT_H_INCLUDED */
