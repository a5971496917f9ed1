/*
 * io_bypass: a converted receive buffer handed to the kernel without the named libc wrappers
 * (issue 15, finding 5): syscall(SYS_write, ...), then POSIX aio_write.  Before 2026-11-24 both
 * returned -14 (EFAULT) under autoopt and left an empty file.  The file must hold exactly the
 * received data.  Default configuration: 1 MiB messages are converted, and the sender waits
 * 200 ms so that the receive is still pending when the program writes it out.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "paging_test.h"

#define N (1L << 17)                  /* doubles: 1 MiB */

/* Reads the file back and compares it with message m. */
static void check_file(int fd, int m, const char *how)
{
    double *back = malloc(N * sizeof(double));
    ssize_t got = pread(fd, back, N * sizeof(double), 0);
    CHECK(got == (ssize_t) (N * sizeof(double)), "%s: file holds %zd bytes", how, got);
    if (got == (ssize_t) (N * sizeof(double)))
        pt_check(back, N, m, how);
    free(back);
}

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double));
    char path[64];

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    for (int m = 1; m <= 2; m++) {
        if (pt_rank == 0) {
            struct timespec ts = { 0, 200 * 1000 * 1000 };
            nanosleep(&ts, NULL);             /* rank 1's receive is still pending at its write */
            pt_fill(a, N, m);
            MPI_Send(a, (int) N, MPI_DOUBLE, 1, m, MPI_COMM_WORLD);
        } else if (pt_rank == 1) {
            int fd;
            snprintf(path, sizeof(path), "/tmp/aot-io-bypass-%d-%d", (int) getpid(), m);
            fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
            CHECK(fd >= 0, "open %s", path);
            MPI_Recv(a, (int) N, MPI_DOUBLE, 0, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (m == 1) {
                long r = syscall(SYS_write, fd, a, N * sizeof(double));
                CHECK(r == (long) (N * sizeof(double)), "syscall(SYS_write) returned %ld (errno %d)",
                      r, errno);
                check_file(fd, m, "syscall(SYS_write)");
            } else {
                struct aiocb cb = { 0 };
                const struct aiocb *list[1] = { &cb };
                cb.aio_fildes = fd;
                cb.aio_buf = a;
                cb.aio_nbytes = N * sizeof(double);
                CHECK(aio_write(&cb) == 0, "aio_write: errno %d", errno);
                aio_suspend(list, 1, NULL);
                CHECK(aio_error(&cb) == 0, "aio_write failed with %d", aio_error(&cb));
                CHECK(aio_return(&cb) == (ssize_t) (N * sizeof(double)), "aio_write wrote less");
                check_file(fd, m, "aio_write");
            }
            close(fd);
            unlink(path);
        }
    }
    free(a);
    return aot_test_finish();
}
