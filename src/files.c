/*
 * files.c: the files autoopt writes (traces, the statistics JSON), created so that nobody else
 * can redirect them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A trace directory such as /tmp/trace may have been made by another local user before the
 * run, with a symbolic link inside it named like our file and pointing at a file of ours.
 * Opening DIR/rank-00000.aottrace with O_CREAT|O_TRUNC would then truncate that file.  So:
 *   - directories autoopt creates are 0700;
 *   - the directory must be ours (or root's), and if others may write into it, it must be
 *     sticky (as /tmp is), so that nobody else can replace a file of ours there;
 *   - a file is opened relative to the directory's descriptor with O_NOFOLLOW and without
 *     O_TRUNC, and truncated only after fstat shows a regular file of ours with one link;
 *   - a file that must appear whole (statistics) is written to a new temporary file in the
 *     same directory (mkstemp: O_EXCL, 0600) and renamed over the name, which replaces a
 *     symbolic link there instead of following it.
 * aot_file_slurp reads a whole input file (tuning files, the tuner's raw file) with a cap; it
 * refuses anything but a regular file before opening it (a FIFO would block the open).
 * Errors are one line, "PATH: reason", for the caller to prefix with its variable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aot_files.h"

/* Creates the missing directories of path (mode 0700), like mkdir -p. */
static int aot_mkdirs(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);

    if (n == 0 || n >= sizeof(path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] == '/' || path[i] == '\0') {
            char c = path[i];
            path[i] = '\0';
            if (mkdir(path, 0700) != 0 && errno != EEXIST)
                return -1;
            path[i] = c;
        }
    }
    return 0;
}

/* Whether a directory may hold our files: ours or root's, and not writable by others unless
 * sticky.  Returns NULL, or why not. */
static const char *aot_dir_unsafe(const struct stat *st)
{
    if (st->st_uid != geteuid() && st->st_uid != 0)
        return "the directory belongs to another user";
    if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
        return "others may write into the directory and it is not sticky (chmod go-w, or +t)";
    return NULL;
}

int aot_dir_open(const char *dir, int create, char *err, size_t errlen)
{
    struct stat st;
    const char *why;
    int fd;

    if (create && aot_mkdirs(dir) != 0) {
        snprintf(err, errlen, "%s: cannot create the directory: %s", dir, strerror(errno));
        return -1;
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", dir,
                 errno == ELOOP ? "is a symbolic link (name the directory itself)"
                                : strerror(errno));
        return -1;
    }
    why = fstat(fd, &st) != 0 ? strerror(errno) : aot_dir_unsafe(&st);
    if (why) {
        snprintf(err, errlen, "%s: refused: %s", dir, why);
        close(fd);
        return -1;
    }
    return fd;
}

int aot_file_create(int dirfd, const char *dir, const char *name, char *err, size_t errlen)
{
    struct stat st;
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);

    if (fd < 0) {
        snprintf(err, errlen, "%s/%s: %s", dir, name,
                 errno == ELOOP ? "refused: it is a symbolic link" : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        st.st_nlink != 1) {
        snprintf(err, errlen, "%s/%s: refused: not a regular file of ours with one link", dir,
                 name);
        close(fd);
        return -1;
    }
    if (ftruncate(fd, 0) != 0) {
        snprintf(err, errlen, "%s/%s: %s", dir, name, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

struct aot_text {
    const char *text;
    size_t len;
};

static void emit_text(FILE *f, void *arg)
{
    const struct aot_text *t = arg;
    fwrite(t->text, 1, t->len, f);
}

int aot_file_replace_text(const char *path, const char *text, size_t len, char *err,
                          size_t errlen)
{
    struct aot_text t = {text, len};
    return aot_file_replace(path, emit_text, &t, err, errlen);
}

int aot_file_replace(const char *path, void (*emit)(FILE *f, void *arg), void *arg, char *err,
                     size_t errlen)
{
    char tmp[4200];
    const char *slash = strrchr(path, '/');
    mode_t mask;
    FILE *f;
    int fd, bad;

    if (slash) {
        char dir[4096];
        size_t n = slash == path ? 1 : (size_t) (slash - path);
        int dfd;
        if (n >= sizeof(dir)) {
            snprintf(err, errlen, "%s: name too long", path);
            return -1;
        }
        memcpy(dir, path, n);
        dir[n] = '\0';
        dfd = aot_dir_open(dir, 0, err, errlen);
        if (dfd < 0)
            return -1;
        close(dfd);
    }
    if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int) sizeof(tmp)) {
        snprintf(err, errlen, "%s: name too long", path);
        return -1;
    }
    fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create a temporary file: %s", path, strerror(errno));
        return -1;
    }
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(f = fdopen(fd, "w"))) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    emit(f, arg);
    bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        snprintf(err, errlen, "%s: writing failed", path);
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* What a file that is not a regular file is, for the refusal. */
static const char *aot_file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    return "of an unknown kind";
}

int aot_file_slurp(const char *path, const char *what, size_t max, char **text, size_t *len,
                   char *err, size_t errlen)
{
    size_t cap = 4096, n = 0;
    struct stat st;
    char *buf;
    FILE *f;
    int fd;

    /* Only a regular file, checked before opening: opening a FIFO blocks until a writer
     * appears, and /dev/zero or a pipe would be read until memory runs out.  O_NONBLOCK in
     * case the name is replaced in between (it changes nothing for a regular file); fstat
     * then checks what was opened. */
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: cannot open the %s: %s", path, what, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", path, aot_file_kind(st.st_mode));
        return -1;
    }
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open the %s: %s", path, what, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot open the %s: %s", path, what, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (%s)", path, aot_file_kind(st.st_mode));
        close(fd);
        return -1;
    }
    f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the %s: %s", path, what, strerror(errno));
        close(fd);
        return -1;
    }
    if ((uint64_t) st.st_size > max) {
        snprintf(err, errlen, "%s: %lld bytes, more than a %s may hold (%zu MiB)", path,
                 (long long) st.st_size, what, max >> 20);
        fclose(f);
        return -1;
    }
    buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n + 1 < cap)
            break;
        if (n > max) {                          /* it grew while being read */
            snprintf(err, errlen, "%s: more than a %s may hold (%zu MiB)", path, what,
                     max >> 20);
            free(buf);
            fclose(f);
            return -1;
        }
        cap *= 2;
        char *nb = realloc(buf, cap);
        if (!nb) {
            free(buf);
            buf = NULL;
        } else {
            buf = nb;
        }
    }
    if (!buf || ferror(f)) {
        snprintf(err, errlen, "%s: cannot read the %s", path, what);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
