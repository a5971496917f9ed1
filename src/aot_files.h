/*
 * aot_files.h: the files autoopt reads and writes (src/files.c): its directory, files
 * created without following links, whole-file replacement and reading.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef AOT_FILES_H_INCLUDED
#define AOT_FILES_H_INCLUDED

#include <stddef.h>
#include <stdio.h>

/* The directory autoopt writes into: created (0700, with its parents) when create is set,
 * opened without following a symbolic link, and refused when it belongs to another user or
 * others may write into it without the sticky bit.  Returns a descriptor, or -1 with
 * "DIR: reason" in err. */
int aot_dir_open(const char *dir, int create, char *err, size_t errlen);
/* DIR/NAME opened for writing relative to dirfd, never through a symbolic link, and emptied
 * only once it is known to be a regular file of ours with one link.  -1 with a reason. */
int aot_file_create(int dirfd, const char *dir, const char *name, char *err, size_t errlen);
/* Writes path whole or not at all: emit() fills a new temporary file beside it, which is then
 * renamed over path (a symbolic link there is replaced, not followed).  -1 with a reason. */
int aot_file_replace(const char *path, void (*emit)(FILE *f, void *arg), void *arg, char *err,
                     size_t errlen);
/* The same with the len bytes of text as the new contents. */
int aot_file_replace_text(const char *path, const char *text, size_t len, char *err,
                          size_t errlen);
/* Reads a whole regular file of at most max bytes into a malloc'ed, NUL-terminated buffer (a
 * pipe or /dev/zero is refused, not read until memory runs out).  -1 with "PATH: reason" in
 * err, naming the file as `what` ("cannot open the tuning file: ..."). */
int aot_file_slurp(const char *path, const char *what, size_t max, char **text, size_t *len,
                   char *err, size_t errlen);

#endif /* AOT_FILES_H_INCLUDED */
