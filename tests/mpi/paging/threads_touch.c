/*
 * threads_touch: a converted receive read and written by threads of the program, at
 * MPI_THREAD_SINGLE (MPI is called by the main thread only, as MPI allows).  Rank 0 sends 1 Mi
 * doubles (above the 64 KiB default, so the receive is converted); rank 1 receives and then
 *   1. sums the buffer with an OpenMP parallel-for reduction,
 *   2. has a pthread read the buffer and another pthread overwrite half of it,
 *   3. runs a small hybrid stencil: MPI_Sendrecv of halos, OpenMP over the interior.
 * Every sum is compared with the serial computation on the known values.  Before 2026-11-24
 * autoopt died with SIGSEGV in each part (the fault came from a thread that is not the one
 * that called MPI_Init).  Run in the default configuration and with AUTOOPT_CONVERT_MIN=0.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <pthread.h>
#include <stdlib.h>

#include "paging_test.h"

#define N (1L << 20)

static double serial_sum(int m, long lo, long hi)
{
    double s = 0;
    for (long i = lo; i < hi; i++)
        s += pt_val(m, i);
    return s;
}

static double *shared_buf;
static double thread_sum;

static void *reader(void *arg)
{
    (void) arg;
    double s = 0;
    for (long i = 0; i < N; i++)
        s += shared_buf[i];
    thread_sum = s;
    return NULL;
}

static void *writer(void *arg)
{
    (void) arg;
    for (long i = 0; i < N / 2; i++)
        shared_buf[i] = -1.0;
    return NULL;
}

static void omp_part(double *a)
{
    double s = 0;
    if (pt_rank == 0) {
        pt_fill(a, N, 1);
        MPI_Send(a, (int) N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
    } else if (pt_rank == 1) {
        MPI_Recv(a, (int) N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma omp parallel for reduction(+ : s)
        for (long i = 0; i < N; i++)
            s += a[i];
        CHECK(s == serial_sum(1, 0, N), "OpenMP sum %.17g, expected %.17g", s, serial_sum(1, 0, N));
    }
}

static void pthread_part(double *a)
{
    if (pt_rank == 0) {
        pt_fill(a, N, 2);
        MPI_Send(a, (int) N, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
        pt_fill(a, N, 3);
        MPI_Send(a, (int) N, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
    } else if (pt_rank == 1) {
        pthread_t t;
        shared_buf = a;
        MPI_Recv(a, (int) N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pthread_create(&t, NULL, reader, NULL);
        pthread_join(t, NULL);
        CHECK(thread_sum == serial_sum(2, 0, N), "pthread read sum %.17g", thread_sum);
        MPI_Recv(a, (int) N, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        pthread_create(&t, NULL, writer, NULL);
        pthread_join(t, NULL);
        CHECK(a[0] == -1.0 && a[N / 2 - 1] == -1.0, "pthread write lost");
        for (long i = N / 2; i < N; i++)
            if (a[i] != pt_val(3, i)) {
                CHECK(0, "element %ld after the pthread's write is %g", i, a[i]);
                break;
            }
    }
}

/* A 1-D hybrid stencil: each rank holds ROWS rows of COLS doubles plus two halo rows. */
static void stencil_part(void)
{
    enum { ROWS = 64, COLS = 8192, ITERS = 5 };
    double *g = calloc((size_t) (ROWS + 2) * COLS, sizeof(double));
    const int up = pt_rank > 0 ? pt_rank - 1 : MPI_PROC_NULL;
    const int down = pt_rank < pt_size - 1 ? pt_rank + 1 : MPI_PROC_NULL;
    double local = 0, expect = 0;

    for (long r = 1; r <= ROWS; r++)
        for (long c = 0; c < COLS; c++)
            g[r * COLS + c] = (double) (pt_rank * ROWS + r - 1);
    for (int it = 0; it < ITERS; it++) {
        MPI_Sendrecv(g + COLS, COLS, MPI_DOUBLE, up, 5, g + (ROWS + 1) * COLS, COLS, MPI_DOUBLE,
                     down, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(g + ROWS * COLS, COLS, MPI_DOUBLE, down, 6, g, COLS, MPI_DOUBLE, up, 6,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double s = 0;
#pragma omp parallel for reduction(+ : s)
        for (long c = 0; c < COLS; c++)
            s += g[c] + g[(ROWS + 1) * COLS + c];
        local += s;
    }
    /* the halos hold the neighbours' edge rows, which never change */
    for (int it = 0; it < ITERS; it++)
        expect += (up != MPI_PROC_NULL ? (double) (pt_rank * ROWS - 1) * COLS : 0) +
                  (down != MPI_PROC_NULL ? (double) ((pt_rank + 1) * ROWS) * COLS : 0);
    CHECK(local == expect, "stencil halo sum %.17g, expected %.17g", local, expect);
    free(g);
}

int main(int argc, char **argv)
{
    double *a;
    pt_init(&argc, &argv);
    if (pt_size < 2) {
        CHECK(0, "needs 2 ranks");
        return aot_test_finish();
    }
    a = malloc(N * sizeof(double));
    omp_part(a);
    pthread_part(a);
    stencil_part();
    free(a);
    return aot_test_finish();
}
