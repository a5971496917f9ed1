/*
 * syscall_paths: a just-received buffer handed to system calls that take a path or a structure
 * (issue 55, item 4).  Rank 0 sends 1 MiB whose start is a path (or a socket address, or an
 * option value); rank 1 receives it and passes it at once to one call, a new message per call.
 * Each call must return what it returns natively (the expectations below hold in the native
 * run too).  Before 2026-12 (autoopt 99c5d71, guarded mode) every one returned EFAULT: the
 * receive's guard was still no-access when the kernel read the path.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "syscall_test.h"

#define BYTES (1 << 20)

enum { C_OPEN, C_OPENAT, C_STAT, C_LSTAT, C_ACCESS, C_TRUNCATE, C_CHMOD, C_UTIMENSAT, C_RENAME,
       C_UNLINK, C_MKDIR, C_RMDIR, C_CONNECT, C_SETSOCKOPT, C_BIND, NCASES };
static const char *const names[NCASES] = {
    "open", "openat", "stat", "lstat", "access", "truncate", "chmod", "utimensat", "rename",
    "unlink", "mkdir", "rmdir", "connect", "setsockopt", "bind",
};

struct env {
    char *buf;
    const char *file, *other;
};

/* What case c sends at the start of the message. */
static void payload(int c, void *ctx)
{
    const struct env *e = ctx;
    char *buf = e->buf;
    const char *file = e->file, *other = e->other;

    memset(buf, 0, BYTES);
    if (c == C_CONNECT || c == C_BIND) {
        struct sockaddr_un *a = (struct sockaddr_un *) (void *) buf;
        a->sun_family = AF_UNIX;
        snprintf(a->sun_path, sizeof(a->sun_path), "%.60s.sock", file);
    } else if (c == C_SETSOCKOPT) {
        int v = 65536;
        memcpy(buf, &v, sizeof v);
    } else {
        snprintf(buf, 4096, "%s", c == C_RENAME ? file : c == C_MKDIR || c == C_RMDIR ? other : file);
    }
}

static void call(int c, void *ctx)
{
    const struct env *e = ctx;
    char *buf = e->buf;
    const char *file = e->file;
    struct stat st;
    char moved[96];
    long r;
    int s;

    errno = 0;
    switch (c) {
    case C_OPEN:
    case C_OPENAT:
        r = c == C_OPEN ? open(buf, O_CREAT | O_WRONLY | O_TRUNC, 0600)
                        : openat(AT_FDCWD, buf, O_WRONLY | O_APPEND);
        CHECK(r >= 0, "%s(received path): %ld, errno %d", names[c], r, errno);
        if (r >= 0) {
            CHECK(write((int) r, "abc", 3) == 3, "%s: write", names[c]);
            close((int) r);
        }
        break;
    case C_STAT:
    case C_LSTAT:
        r = c == C_STAT ? stat(buf, &st) : lstat(buf, &st);
        CHECK(r == 0 && st.st_size == 6, "%s(received path): %ld, errno %d, size %ld", names[c], r,
              errno, (long) st.st_size);
        break;
    case C_ACCESS:
        r = access(buf, R_OK | W_OK);
        CHECK(r == 0, "access(received path): %ld, errno %d", r, errno);
        break;
    case C_TRUNCATE:
        r = truncate(buf, 2);
        CHECK(r == 0 && stat(file, &st) == 0 && st.st_size == 2, "truncate: %ld, errno %d", r, errno);
        break;
    case C_CHMOD:
        r = chmod(buf, 0640);
        CHECK(r == 0 && stat(file, &st) == 0 && (st.st_mode & 0777) == 0640, "chmod: %ld, errno %d",
              r, errno);
        break;
    case C_UTIMENSAT:
        r = utimensat(AT_FDCWD, buf, NULL, 0);
        CHECK(r == 0, "utimensat(received path): %ld, errno %d", r, errno);
        break;
    case C_RENAME:
        snprintf(moved, sizeof moved, "%s.moved", file);
        r = rename(buf, moved);
        CHECK(r == 0, "rename(received path): %ld, errno %d", r, errno);
        if (r == 0)
            CHECK(rename(moved, file) == 0, "rename back: errno %d", errno);
        break;
    case C_UNLINK:
        r = unlink(buf);
        CHECK(r == 0 && access(file, F_OK) != 0, "unlink(received path): %ld, errno %d", r, errno);
        break;
    case C_MKDIR:
        r = mkdir(buf, 0700);
        CHECK(r == 0, "mkdir(received path): %ld, errno %d", r, errno);
        break;
    case C_RMDIR:
        r = rmdir(buf);
        CHECK(r == 0, "rmdir(received path): %ld, errno %d", r, errno);
        break;
    case C_CONNECT:
    case C_BIND:
        s = socket(AF_UNIX, SOCK_STREAM, 0);
        r = c == C_CONNECT ? connect(s, (struct sockaddr *) (void *) buf, sizeof(struct sockaddr_un))
                           : bind(s, (struct sockaddr *) (void *) buf, sizeof(struct sockaddr_un));
        /* connect: nobody listens there (natively ENOENT); bind: made, then removed */
        if (c == C_CONNECT)
            CHECK(r == -1 && errno == ENOENT, "connect(received address): %ld, errno %d", r, errno);
        else
            CHECK(r == 0, "bind(received address): %ld, errno %d", r, errno);
        close(s);
        if (c == C_BIND) {
            snprintf(moved, sizeof moved, "%s.sock", file);
            unlink(moved);
        }
        break;
    case C_SETSOCKOPT:
        s = socket(AF_UNIX, SOCK_STREAM, 0);
        r = setsockopt(s, SOL_SOCKET, SO_RCVBUF, buf, sizeof(int));
        CHECK(r == 0, "setsockopt(received value): %ld, errno %d", r, errno);
        close(s);
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    char file[64], other[64];
    struct env e = { malloc(BYTES), file, other };
    int pid0;

    if (!pt_syscall_start(&argc, &argv, &pid0))
        return aot_test_finish();
    snprintf(file, sizeof file, "/tmp/aot-syscall-paths-%d", pid0);
    snprintf(other, sizeof other, "/tmp/aot-syscall-paths-%d.d", pid0);
    pt_syscall_cases(e.buf, BYTES, NCASES, payload, NULL, call, &e);
    if (pt_rank == 1) {
        unlink(file);
        rmdir(other);
    }
    free(e.buf);
    return aot_test_finish();
}
