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
 *   - a file that must appear whole (statistics, tuning files, the tools' outputs) is written
 *     to a new temporary file in the same directory (mkstemp: O_EXCL, 0600) and renamed over
 *     the name; an existing file keeps its mode, owner and group;
 *   - a symbolic link is followed to its target (the link stays a link) when it is ours or
 *     root's, as the kernel's protected_symlinks does in a sticky directory; one of another
 *     user is refused;
 *   - a device, FIFO, socket or directory is refused before anything is written (a FIFO would
 *     block open(), a device would be written or replaced): aot_file_check_writable says so
 *     at MPI_Init and while a tool reads its options, before any work (docs/limits.md).
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
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "of an unknown kind";
}

static int aot_file_target(const char *path, char *target, size_t tlen, struct stat *st,
                           int *exists, char *err, size_t errlen);

int aot_file_create(int dirfd, const char *dir, const char *name, char *err, size_t errlen)
{
    char shown[4200];
    struct stat st;
    int fd, own = -1;

    snprintf(shown, sizeof(shown), "%s/%s", dir, name);

    /* Looked at before opening: a FIFO would block open(), a device would be opened. */
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
        char target[4096];
        const char *slash;
        int exists;
        if (!S_ISLNK(st.st_mode)) {
            snprintf(err, errlen, "%s: refused: it is %s (only a regular file, a new name or "
                     "a symbolic link to one is written)", shown, aot_file_kind(st.st_mode));
            return -1;
        }
        /* A link of ours or root's is followed, as by every writer (aot_file_target). */
        if (aot_file_target(shown, target, sizeof(target), &st, &exists, err, errlen) != 0)
            return -1;
        slash = strrchr(target, '/');
        if (slash) {
            char tdir[4096];
            size_t n = slash == target ? 1 : (size_t) (slash - target);
            memcpy(tdir, target, n);
            tdir[n] = '\0';
            own = aot_dir_open(tdir, 0, err, errlen);
            if (own < 0)
                return -1;
            dirfd = own;
            name = slash + 1;
        } else {
            name = target;
            dirfd = AT_FDCWD;
        }
    }
    fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (own >= 0)
        close(own);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", shown,
                 errno == ELOOP ? "refused: it is a symbolic link" : strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        st.st_nlink != 1) {
        snprintf(err, errlen, "%s: refused: not a regular file of ours with one link",
                 shown);
        close(fd);
        return -1;
    }
    if (ftruncate(fd, 0) != 0 || fcntl(fd, F_SETFL, 0) != 0) {
        snprintf(err, errlen, "%s: %s", shown, strerror(errno));
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

/* Where a writer puts path's contents: path itself, or, when path is a symbolic link (chain) of
 * ours or root's, the name it leads to.  Sets target, and *st with *exists when that name holds
 * a regular file.  Refuses (-1, "PATH: reason") a device, FIFO, socket or directory anywhere the
 * chain ends, a link of another user (the attack a sticky /tmp allows: files.c's header), a
 * chain of more than 40 links, and an absent name whose directory does not exist. */
static int aot_file_target(const char *path, char *target, size_t tlen, struct stat *st,
                           int *exists, char *err, size_t errlen)
{
    char cur[4096], link[4096];
    int hops = 0;

    *exists = 0;
    if (snprintf(cur, sizeof(cur), "%s", path) >= (int) sizeof(cur)) {
        snprintf(err, errlen, "%s: name too long", path);
        return -1;
    }
    for (;;) {
        const char *via = hops ? " (where its symbolic link leads)" : "";
        if (lstat(cur, st) != 0) {
            char dir[4096];
            const char *slash = strrchr(cur, '/');
            struct stat ds;
            if (errno != ENOENT) {
                if (hops)
                    snprintf(err, errlen, "%s: %s (where its symbolic link leads): %s", path,
                             cur, strerror(errno));
                else
                    snprintf(err, errlen, "%s: %s", path, strerror(errno));
                return -1;
            }
            if (!slash) {
                snprintf(dir, sizeof(dir), ".");
            } else {
                size_t n = slash == cur ? 1 : (size_t) (slash - cur);
                memcpy(dir, cur, n);
                dir[n] = '\0';
            }
            if (stat(dir, &ds) != 0 || !S_ISDIR(ds.st_mode)) {
                snprintf(err, errlen, "%s: the directory %s%s does not exist", path, dir, via);
                return -1;
            }
            break;
        }
        if (S_ISREG(st->st_mode)) {
            *exists = 1;
            break;
        }
        if (!S_ISLNK(st->st_mode)) {
            snprintf(err, errlen, "%s: refused: %s%s is %s (only a regular file, a new name or "
                     "a symbolic link to one is written)", path, hops ? cur : "it",
                     hops ? ", where its symbolic link leads," : "", aot_file_kind(st->st_mode));
            return -1;
        }
        if (st->st_uid != geteuid() && st->st_uid != 0) {
            snprintf(err, errlen, "%s: refused: %s is a symbolic link of another user (uid %u), "
                     "not followed", path, hops ? cur : "it", (unsigned) st->st_uid);
            return -1;
        }
        if (++hops > 40) {
            snprintf(err, errlen, "%s: refused: more than 40 symbolic links in a row", path);
            return -1;
        }
        ssize_t n = readlink(cur, link, sizeof(link) - 1);
        if (n < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return -1;
        }
        link[n] = '\0';
        if (link[0] != '/') {                   /* relative to the link's directory */
            char *slash = strrchr(cur, '/');
            if (slash) {
                slash[1] = '\0';
                if (strlen(cur) + (size_t) n >= sizeof(cur)) {
                    snprintf(err, errlen, "%s: name too long", path);
                    return -1;
                }
                strcat(cur, link);
                continue;
            }
        }
        memcpy(cur, link, (size_t) n + 1);
    }
    if (snprintf(target, tlen, "%s", cur) >= (int) tlen) {
        snprintf(err, errlen, "%s: name too long", path);
        return -1;
    }
    return 0;
}

/* The target's directory must be one autoopt may write into (aot_dir_open's rule). */
static int aot_file_dir_ok(const char *target, const char *path, char *err, size_t errlen)
{
    const char *slash = strrchr(target, '/');
    char dir[4096], why[4400];
    size_t n;
    int dfd;

    if (!slash)
        return 0;
    n = slash == target ? 1 : (size_t) (slash - target);
    if (n >= sizeof(dir)) {
        snprintf(err, errlen, "%s: name too long", path);
        return -1;
    }
    memcpy(dir, target, n);
    dir[n] = '\0';
    dfd = aot_dir_open(dir, 0, why, sizeof(why));
    if (dfd < 0) {
        if (strcmp(target, path) == 0)
            snprintf(err, errlen, "%s", why);
        else
            snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    close(dfd);
    return 0;
}

/* A regular file of another user is replaced only by root, who can give the new file its
 * owner; anyone else would silently turn it into a file of their own. */
static int aot_file_owner_ok(const struct stat *st, const char *path, char *err, size_t errlen)
{
    if (st->st_uid == geteuid() || geteuid() == 0)
        return 0;
    snprintf(err, errlen, "%s: refused: the file belongs to another user (uid %u); remove it "
             "or name another file", path, (unsigned) st->st_uid);
    return -1;
}

int aot_file_check_writable(const char *path, char *err, size_t errlen)
{
    char target[4096];
    struct stat st;
    int exists;

    if (aot_file_target(path, target, sizeof(target), &st, &exists, err, errlen) != 0)
        return -1;
    if (exists && aot_file_owner_ok(&st, path, err, errlen) != 0)
        return -1;
    return aot_file_dir_ok(target, path, err, errlen);
}

int aot_file_replace(const char *path, void (*emit)(FILE *f, void *arg), void *arg, char *err,
                     size_t errlen)
{
    char tmp[4200], target[4096];
    struct stat st, now;
    mode_t mask, mode;
    FILE *f;
    int fd, bad, exists;

    if (aot_file_target(path, target, sizeof(target), &st, &exists, err, errlen) != 0)
        return -1;
    if (exists && aot_file_owner_ok(&st, path, err, errlen) != 0)
        return -1;
    if (aot_file_dir_ok(target, path, err, errlen) != 0)
        return -1;
    if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", target) >= (int) sizeof(tmp)) {
        snprintf(err, errlen, "%s: name too long", path);
        return -1;
    }
    fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create a temporary file: %s", path, strerror(errno));
        return -1;
    }
    /* An existing file keeps its mode, owner and group; a new one gets 0666 less the umask. */
    mask = umask(0);
    umask(mask);
    mode = exists ? (st.st_mode & 07777) : (0666 & ~mask);
    if ((exists && (st.st_uid != geteuid() || st.st_gid != getegid()) &&
         fchown(fd, st.st_uid, st.st_gid) != 0 && st.st_uid != geteuid()) ||
        fchmod(fd, mode) != 0 || !(f = fdopen(fd, "w"))) {
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
    /* The name may have changed while the contents were written: still absent or regular? */
    if (lstat(target, &now) == 0 && !S_ISREG(now.st_mode)) {
        snprintf(err, errlen, "%s: refused: %s became %s while it was written", path, target,
                 aot_file_kind(now.st_mode));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, target) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
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
