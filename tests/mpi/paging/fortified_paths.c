/*
 * fortified_paths: a just-received buffer handed to system calls by a program built with
 * -O2 -D_FORTIFY_SOURCE=2 (Debian's dpkg-buildflags for packages, Ubuntu's compiler default;
 * issue 55, item 4).  Where the compiler knows the buffer's size it calls glibc's fortified
 * entry points instead of the functions the program names: open -> __open_2 (flags not known at
 * compile time), openat -> __openat_2, mq_open -> __mq_open_2, readlink -> __readlink_chk,
 * getcwd -> __getcwd_chk, poll -> __poll_chk, getgroups -> __getgroups_chk, read ->
 * __read_chk, recv -> __recv_chk ...  (test paging.fortified_paths.symbols checks with nm that
 * the binary imports each of them).  Rank 0 sends 1 MiB whose start is a path, a pollfd array
 * or nothing in particular; rank 1 receives it into a static buffer (its size known to the
 * compiler) and passes it at once to one call, a new message per call.  Each call must return
 * what it returns natively, the bytes the kernel wrote must be there, and the rest of the
 * message must be the message.  Under autoopt 99c5d71 (guarded mode) the receive's guard was
 * still no-access when the kernel used the buffer: EFAULT.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <mqueue.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "syscall_test.h"

#if !defined(__OPTIMIZE__) || !defined(_FORTIFY_SOURCE) || _FORTIFY_SOURCE < 2
#error "fortified_paths.c must be built with -O2 -D_FORTIFY_SOURCE=2"
#endif

#define BYTES (1 << 20)
#define POLL_FD 100        /* rank 1's pipe, at the same number in rank 0's payload */

enum { C_OPEN, C_OPEN64, C_OPENAT, C_OPENAT64, C_MQ_OPEN, C_READLINK, C_READLINKAT, C_GETCWD,
       C_POLL, C_PPOLL, C_GETGROUPS, C_READ, C_PREAD, C_RECV, NCASES };
static const char *const names[NCASES] = {
    "open (__open_2)", "open64 (__open64_2)", "openat (__openat_2)", "openat64 (__openat64_2)",
    "mq_open (__mq_open_2)", "readlink (__readlink_chk)", "readlinkat (__readlinkat_chk)",
    "getcwd (__getcwd_chk)", "poll (__poll_chk)", "ppoll (__ppoll_chk)",
    "getgroups (__getgroups_chk)", "read (__read_chk)", "pread (__pread_chk)",
    "recv (__recv_chk)",
};

static char buf[BYTES] __attribute__((aligned(4096)));
/* Not known at compile time, so that glibc's checking forms are called */
static volatile int rdonly = O_RDONLY;
static volatile size_t room = 4096, nfds = 1;
static volatile int ngroups = 1024;

/* The message's byte at offset o (past the payload). */
static char filler(int c, size_t o)
{
    return (char) ('A' + (o * 7 + (size_t) c) % 26);
}

struct env {
    const char *file, *link, *target, *cwd, *queue;
    int pipe_w, sock[2];
};

static void payload(int c, void *ctx)
{
    const struct env *e = ctx;

    for (size_t o = 0; o < BYTES; o++)
        buf[o] = filler(c, o);
    if (c == C_POLL || c == C_PPOLL) {
        struct pollfd p = { .fd = POLL_FD, .events = POLLIN, .revents = 0 };
        memcpy(buf, &p, sizeof p);
    } else if (c <= C_MQ_OPEN) {
        snprintf(buf, 4096, "%s", c == C_MQ_OPEN ? e->queue : e->file);
    }
}

/* The bytes of the message from offset o on are case c's. */
static void check_rest(int c, size_t o)
{
    for (; o < BYTES; o++)
        if (buf[o] != filler(c, o)) {
            CHECK(0, "%s: byte %zu of the message is %d, expected %d", names[c], o, buf[o],
                  filler(c, o));
            return;
        }
}

/* A call that wrote a string of n bytes (its NUL included) at the start: it is want, and the
 * message follows. */
static void check_string(int c, long r, const char *want, size_t n)
{
    CHECK(r >= 0 && memcmp(buf, want, n) == 0, "%s: returned %ld, errno %d, wrote '%.40s'",
          names[c], r, errno, r >= 0 ? buf : "");
    check_rest(c, n);
}

/* Before case c's receive: the read case takes out the byte the poll cases needed, so that it
 * reads back only what it writes itself. */
static void before(int c, void *ctx)
{
    char x;

    (void) ctx;
    if (c == C_READ)
        CHECK(read(POLL_FD, &x, 1) == 1, "draining the pipe: errno %d", errno);
}

static void call(int c, void *ctx)
{
    const struct env *e = ctx;
    char fill[128];
    gid_t groups[1024];
    struct timespec zero = { 0, 0 };
    long r;
    int n;

    errno = 0;
    switch (c) {
    case C_OPEN:
    case C_OPEN64:
    case C_OPENAT:
    case C_OPENAT64:
        r = c == C_OPEN     ? open(buf, rdonly)
            : c == C_OPEN64 ? open64(buf, rdonly)
            : c == C_OPENAT ? openat(AT_FDCWD, buf, rdonly)
                            : openat64(AT_FDCWD, buf, rdonly);
        CHECK(r >= 0, "%s(received path): %ld, errno %d", names[c], r, errno);
        if (r >= 0)
            close((int) r);
        check_rest(c, strlen(e->file) + 1);
        break;
    case C_MQ_OPEN:
        /* no such queue: natively ENOENT */
        r = (long) mq_open(buf, rdonly);
        CHECK(r == -1 && errno == ENOENT, "%s(received name): %ld, errno %d", names[c], r, errno);
        break;
    case C_READLINK:
    case C_READLINKAT:
        r = c == C_READLINK ? readlink(e->link, buf, room)
                            : readlinkat(AT_FDCWD, e->link, buf, room);
        CHECK(r == (long) strlen(e->target), "%s: returned %ld, errno %d", names[c], r, errno);
        check_string(c, r, e->target, strlen(e->target));
        break;
    case C_GETCWD:
        r = getcwd(buf, room) == buf ? 0 : -1;
        check_string(c, r, e->cwd, strlen(e->cwd) + 1);
        break;
    case C_POLL:
    case C_PPOLL: {
        struct pollfd p;
        r = c == C_POLL ? poll((struct pollfd *) (void *) buf, nfds, 0)
                        : ppoll((struct pollfd *) (void *) buf, nfds, &zero, NULL);
        memcpy(&p, buf, sizeof p);
        CHECK(r == 1 && p.fd == POLL_FD && p.revents == POLLIN,
              "%s(received array): %ld, errno %d, revents %#x", names[c], r, errno, p.revents);
        check_rest(c, sizeof p);
        break;
    }
    case C_GETGROUPS:
        n = getgroups(1024, groups);
        r = getgroups(ngroups, (gid_t *) (void *) buf);
        CHECK(r == n && n >= 0 && memcmp(buf, groups, (size_t) n * sizeof(gid_t)) == 0,
              "%s: returned %ld (natively %d), errno %d", names[c], r, n, errno);
        check_rest(c, (size_t) (n > 0 ? n : 0) * sizeof(gid_t));
        break;
    case C_READ:
    case C_PREAD:
    case C_RECV:
        for (size_t o = 0; o < sizeof fill; o++)
            fill[o] = (char) ('a' + o % 26);
        if (c == C_RECV) {
            CHECK(send(e->sock[1], fill, sizeof fill, 0) == (long) sizeof fill, "send: %d", errno);
            r = recv(e->sock[0], buf, room, 0);
        } else if (c == C_READ) {
            CHECK(write(e->pipe_w, fill, sizeof fill) == (long) sizeof fill, "write: %d", errno);
            r = read(POLL_FD, buf, room);
        } else {
            r = pread(POLL_FD + 1, buf, room, 0);
        }
        CHECK(r == (long) sizeof fill || (c == C_PREAD && r >= 0),
              "%s: returned %ld, errno %d", names[c], r, errno);
        if (c != C_PREAD) {
            check_string(c, r, fill, sizeof fill);
        } else if (r > 0) {
            char want[4096];
            CHECK(pread(POLL_FD + 1, want, (size_t) r, 0) == r && memcmp(buf, want, (size_t) r) == 0,
                  "%s: other bytes than the file's", names[c]);
            check_rest(c, (size_t) r);
        }
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    char file[64], link[64], queue[64], cwd[4096];
    struct env e = { file, link, "fortified-paths-target", cwd, queue, -1, { -1, -1 } };
    int pid0, p[2];

    if (!pt_syscall_start(&argc, &argv, &pid0))
        return aot_test_finish();
    snprintf(file, sizeof file, "/tmp/aot-fortified-paths-%d", pid0);
    snprintf(link, sizeof link, "/tmp/aot-fortified-paths-%d.link", pid0);
    snprintf(queue, sizeof queue, "/aot-fortified-paths-%d", pid0);
    if (pt_rank == 1) {
        int fd = open(file, O_CREAT | O_WRONLY | O_TRUNC, 0600);
        CHECK(fd >= 0 && write(fd, "fortified\n", 10) == 10, "cannot write %s: errno %d", file,
              errno);
        if (fd >= 0) {
            close(fd);
            CHECK(dup2(open(file, O_RDONLY), POLL_FD + 1) == POLL_FD + 1, "dup2: errno %d", errno);
        }
        CHECK(symlink(e.target, link) == 0, "symlink %s: errno %d", link, errno);
        CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd: errno %d", errno);
        CHECK(pipe(p) == 0 && dup2(p[0], POLL_FD) == POLL_FD, "pipe: errno %d", errno);
        e.pipe_w = p[1];
        /* the pipe holds a byte until the poll cases are done */
        CHECK(write(e.pipe_w, "x", 1) == 1, "write: errno %d", errno);
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, e.sock) == 0, "socketpair: errno %d", errno);
    }
    pt_syscall_cases(buf, BYTES, NCASES, payload, before, call, &e);
    if (pt_rank == 1) {
        unlink(file);
        unlink(link);
    }
    return aot_test_finish();
}
