/*
 * syscalls: the kernel never sees guarded memory.  A just-received buffer goes to a file with
 * write(2) and with fwrite, and is read back and compared; read(2) and fread fill a
 * just-sent buffer (the receiver must get the old contents); a just-sent buffer is freed at
 * once, small (heap) and large (glibc unmaps it).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "paging_test.h"

#define N (1 << 17)          /* 1 MiB of doubles */

static int file_equals(const char *path, const double *ref, long n)
{
    double *back = malloc((size_t) n * sizeof(double));
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(back, sizeof(double), (size_t) n, f) : 0;
    int ok = got == (size_t) n && memcmp(back, ref, (size_t) n * sizeof(double)) == 0;
    if (f)
        fclose(f);
    free(back);
    return ok;
}

int main(int argc, char **argv)
{
    double *a = malloc(N * sizeof(double)), *ref = malloc(N * sizeof(double));
    char path[2][256];

    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    snprintf(path[0], sizeof(path[0]), "/tmp/aot-paging-sys-%d-%d.w", (int) getpid(), pt_rank);
    snprintf(path[1], sizeof(path[1]), "/tmp/aot-paging-sys-%d-%d.f", (int) getpid(), pt_rank);
    for (int it = 0; it < 2; it++) {
        if (pt_rank == 0) {
            pt_fill(a, N, it);
            usleep(20000);
            MPI_Send(a, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
            /* ---- read(2) and fread into buffers that were just sent */
            {
                int fd;
                FILE *f;
                pt_fill(ref, N, 77);
                fd = open(path[0], O_CREAT | O_TRUNC | O_RDWR, 0600);
                CHECK(write(fd, ref, N * sizeof(double)) == (ssize_t) (N * sizeof(double)), "write");
                close(fd);
                pt_fill(a, N, 10 + it);
                MPI_Send(a, N, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
                fd = open(path[0], O_RDONLY);
                CHECK(read(fd, a, N * sizeof(double)) == (ssize_t) (N * sizeof(double)),
                      "read(2) into a just-sent buffer failed");
                close(fd);
                CHECK(memcmp(a, ref, N * sizeof(double)) == 0, "read(2) data");
                pt_fill(a, N, 20 + it);
                MPI_Send(a, N, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
                f = fopen(path[0], "rb");
                CHECK(fread(a, sizeof(double), N, f) == N, "fread into a just-sent buffer failed");
                fclose(f);
                CHECK(memcmp(a, ref, N * sizeof(double)) == 0, "fread data");
            }
            /* ---- free() right after the send, small and large */
            {
                double *small = malloc(600 * sizeof(double));
                double *large = malloc(N * sizeof(double));
                pt_fill(small, 600, 30 + it);
                pt_fill(large, N, 40 + it);
                MPI_Send(small, 600, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD);
                free(small);
                MPI_Send(large, N, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
                free(large);
            }
        } else if (pt_rank == 1) {
            int fd;
            FILE *f;
            /* ---- write(2) and fwrite of a just-received buffer */
            MPI_Recv(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            fd = open(path[0], O_CREAT | O_TRUNC | O_WRONLY, 0600);
            CHECK(write(fd, a, N * sizeof(double)) == (ssize_t) (N * sizeof(double)),
                  "write(2) of a just-received buffer failed");
            close(fd);
            pt_fill(ref, N, it);
            CHECK(file_equals(path[0], ref, N), "file written with write(2) differs");
            MPI_Recv(a, N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            f = fopen(path[1], "wb");
            CHECK(fwrite(a, sizeof(double), N, f) == N, "fwrite of a just-received buffer failed");
            fclose(f);
            pt_fill(ref, N, 10 + it);
            CHECK(file_equals(path[1], ref, N), "file written with fwrite differs");
            MPI_Recv(a, N, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(a, N, 20 + it, "sent before fread overwrote it");
            MPI_Recv(a, 600, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(a, 600, 30 + it, "small buffer freed after the send");
            MPI_Recv(a, N, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pt_check(a, N, 40 + it, "large buffer freed after the send");
        }
    }
    unlink(path[0]);
    unlink(path[1]);
    free(a);
    free(ref);
    return aot_test_finish();
}
