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
/* Whether the writers below may write path: 0 when it is absent (in an existing directory), a
 * regular file, or a symbolic link (chain) of ours or root's that leads to one of those; -1
 * with "PATH: reason" for a device, FIFO, socket, directory, a link of another user, a file of
 * another user (unless root) or a directory aot_dir_open refuses.  Changes nothing: callers
 * check their output paths with it before any work. */
int aot_file_check_writable(const char *path, char *err, size_t errlen);
/* Writes path whole or not at all, after aot_file_check_writable's checks: emit() fills a new
 * temporary file beside the name that is written, which is then renamed over it.  A symbolic
 * link is followed (its target gets the contents, the link stays); an existing file keeps its
 * mode, owner and group.  -1 with a reason, and nothing changed. */
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
