/*
 * coll_online.c: collectives under online tuning (AUTOOPT_TUNE=online), checked at every call
 * while autoopt explores, chooses and switches algorithms.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 *   coll_online loop ITERS     every iteration: allreduce (ints of 3 sizes, sum; doubles that
 *                              sum exactly; a non-commutative-free max), bcast from a root
 *                              that moves (40000 bytes as chars on even ranks, as blocks of 8
 *                              chars on odd ones), allgather, alltoall of 2 sizes, barrier; each
 *                              result compared with its serial computation
 *   coll_online sites ITERS    rank 0 calls MPI_Allreduce and MPI_Bcast from other source lines
 *                              than the other ranks (one key must still be one session)
 *   coll_online alltoallv ITERS  MPI_Alltoallv alone, counts that differ by pair and iteration
 *   coll_online subcomm ITERS  the loop on two halves of MPI_COMM_WORLD and on a duplicate
 *   coll_online threads ITERS [N]  MPI_THREAD_MULTIPLE: N threads (2 unless given) run the loop
 *                              at the same time, each on its own duplicate of MPI_COMM_WORLD
 *   coll_online moved_on ITERS  a program that moves on: 15 iterations of an allreduce of one
 *                              int and an alltoall of 64 KiB per pair, then ITERS of the
 *                              allreduce alone.  The alltoall's key is left warmed up,
 *                              costlier, waiting to explore, and never called again
 *   coll_online left_exploring ITERS  the same with 16 iterations first: the alltoall's key is
 *                              left exploring
 *
 * Every value is an integer, so every algorithm must give the same bits; the reference is the
 * serial formula, not another MPI call.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_test.h"

static MPI_Datatype eight_chars;   /* a contiguous type of 8 MPI_CHAR */

static int value(int rank, int i, int it)
{
    return (rank + 1) * 7 + i * 3 + it;
}

/* An alltoall of n ints per pair at iteration it (sb and rb hold n ints per rank of comm),
 * its result compared with the serial formula. */
static void alltoall_checked(MPI_Comm comm, int *sb, int *rb, int n, int it)
{
    int rank, p;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int d = 0; d < p; d++)
        for (int i = 0; i < n; i++)
            sb[d * n + i] = value(rank, i, it) * 100 + d;
    MPI_Alltoall(sb, n, MPI_INT, rb, n, MPI_INT, comm);
    for (int s = 0; s < p; s++)
        for (int i = 0; i < n; i++)
            if (rb[s * n + i] != value(s, i, it) * 100 + rank) {
                CHECK(0, "iteration %d: alltoall of %d from %d element %d: got %d, expected %d",
                      it, n, s, i, rb[s * n + i], value(s, i, it) * 100 + rank);
                return;
            }
}

static void one_iteration(MPI_Comm comm, int it)
{
    static const int sizes[] = {1, 300, 5000};
    int rank, p;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        int n = sizes[s];
        int *in = malloc((size_t) n * sizeof(int)), *out = malloc((size_t) n * sizeof(int));
        double *din = malloc((size_t) n * sizeof(double)), *dout = malloc((size_t) n * sizeof(double));
        for (int i = 0; i < n; i++) {
            in[i] = value(rank, i, it);
            din[i] = (double) in[i];
        }
        MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm);
        MPI_Allreduce(din, dout, n, MPI_DOUBLE, MPI_SUM, comm);
        for (int i = 0; i < n; i++) {
            long want = 0;
            for (int r = 0; r < p; r++)
                want += value(r, i, it);
            CHECK(out[i] == want, "iteration %d: allreduce int[%d] element %d: got %d, expected "
                  "%ld", it, n, i, out[i], want);
            CHECK(dout[i] == (double) want, "iteration %d: allreduce double[%d] element %d: got "
                  "%.17g, expected %ld", it, n, i, dout[i], want);
            if (out[i] != want || dout[i] != (double) want)
                break;
        }
        free(in);
        free(out);
        free(din);
        free(dout);
    }

    /* bcast of 64 ints and of 40000 bytes from a root that moves */
    {
        int root = it % p, buf[64];
        char *big = malloc(40000);
        for (int i = 0; i < 64; i++)
            buf[i] = rank == root ? value(root, i, it) : -1;
        for (int i = 0; i < 40000; i++)
            big[i] = (char) (rank == root ? (i * 31 + it) & 0x7f : 0);
        MPI_Bcast(buf, 64, MPI_INT, root, comm);
        /* one message, two datatypes of one signature: 40000 chars on even ranks, 5000
         * blocks of 8 chars on odd ones (MPI allows it; a split broadcast must cut in bytes) */
        if (rank % 2)
            MPI_Bcast(big, 5000, eight_chars, root, comm);
        else
            MPI_Bcast(big, 40000, MPI_CHAR, root, comm);
        for (int i = 0; i < 64; i++)
            if (buf[i] != value(root, i, it)) {
                CHECK(0, "iteration %d: bcast element %d: got %d, expected %d", it, i, buf[i],
                      value(root, i, it));
                break;
            }
        for (int i = 0; i < 40000; i++)
            if (big[i] != (char) ((i * 31 + it) & 0x7f)) {
                CHECK(0, "iteration %d: bcast of 40000 bytes, byte %d wrong", it, i);
                break;
            }
        free(big);
    }

    /* allgather of 16 ints per rank, alltoall of 4 and of 2048 ints per pair */
    {
        int mine[16], *all = malloc((size_t) p * 16 * sizeof(int));
        for (int i = 0; i < 16; i++)
            mine[i] = value(rank, i, it);
        MPI_Allgather(mine, 16, MPI_INT, all, 16, MPI_INT, comm);
        for (int r = 0; r < p; r++)
            for (int i = 0; i < 16; i++)
                if (all[r * 16 + i] != value(r, i, it)) {
                    CHECK(0, "iteration %d: allgather block %d element %d: got %d, expected %d",
                          it, r, i, all[r * 16 + i], value(r, i, it));
                    r = p;
                    break;
                }
        free(all);
    }
    for (int n = 4; n <= 2048; n *= 512) {
        int *sb = malloc((size_t) p * n * sizeof(int)), *rb = malloc((size_t) p * n * sizeof(int));
        alltoall_checked(comm, sb, rb, n, it);
        free(sb);
        free(rb);
    }
    MPI_Barrier(comm);
}

/* Alltoallv alone (its key is the communicator size): rank r sends rank d count(r, d) ints. */
static int v_count(int from, int to, int it)
{
    return 1 + (from * 3 + to * 5 + it) % 40;
}

static void alltoallv_loop(int iters)
{
    int rank, p;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *sc = malloc((size_t) p * sizeof(int)), *sd = malloc((size_t) p * sizeof(int));
    int *rc = malloc((size_t) p * sizeof(int)), *rd = malloc((size_t) p * sizeof(int));
    int *sb = malloc((size_t) p * 40 * sizeof(int)), *rb = malloc((size_t) p * 40 * sizeof(int));
    for (int it = 0; it < iters; it++) {
        int soff = 0, roff = 0;
        for (int d = 0; d < p; d++) {
            sc[d] = v_count(rank, d, it);
            sd[d] = soff;
            soff += sc[d];
            rc[d] = v_count(d, rank, it);
            rd[d] = roff;
            roff += rc[d];
            for (int i = 0; i < sc[d]; i++)
                sb[sd[d] + i] = value(rank, i, it) * 100 + d;
        }
        MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
        for (int s = 0; s < p; s++)
            for (int i = 0; i < rc[s]; i++)
                if (rb[rd[s] + i] != value(s, i, it) * 100 + rank) {
                    CHECK(0, "iteration %d: alltoallv from %d element %d: got %d, expected %d",
                          it, s, i, rb[rd[s] + i], value(s, i, it) * 100 + rank);
                    s = p;
                    break;
                }
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sb);
    free(rb);
}

/* moved_on and left_exploring: online tuning explores one key of a communicator at a time,
 * the costliest waiting one first; a key the program no longer calls must not keep the others
 * from exploring (AOT_ONLINE_DEFER in collectives/coll_online_run.c). */
static void moved_on(int first, int iters)
{
    enum { BLOCK = 16384 };             /* ints per pair: 64 KiB */
    int rank, p, *sb, *rb;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    sb = malloc((size_t) p * BLOCK * sizeof(int));
    rb = malloc((size_t) p * BLOCK * sizeof(int));
    for (int it = 0; it < first + iters; it++) {
        int in = value(rank, 0, it), out = -1;
        long want = 0;
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int r = 0; r < p; r++)
            want += value(r, 0, it);
        CHECK(out == want, "iteration %d: allreduce: got %d, expected %ld", it, out, want);
        if (it < first)
            alltoall_checked(MPI_COMM_WORLD, sb, rb, BLOCK, it);
    }
    free(sb);
    free(rb);
}

/* Rank 0 and the others reach the same collectives through different lines. */
static void sites(int iters)
{
    int rank, p;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int it = 0; it < iters; it++) {
        int in[200], out[200], b[8];
        for (int i = 0; i < 200; i++)
            in[i] = value(rank, i, it);
        if (rank == 0) {
            MPI_Allreduce(in, out, 200, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            for (int i = 0; i < 8; i++)
                b[i] = it + i;
            MPI_Bcast(b, 8, MPI_INT, 0, MPI_COMM_WORLD);
        } else {
            MPI_Allreduce(in, out, 200, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            MPI_Bcast(b, 8, MPI_INT, 0, MPI_COMM_WORLD);
        }
        for (int i = 0; i < 200; i++) {
            long want = 0;
            for (int r = 0; r < p; r++)
                want += value(r, i, it);
            if (out[i] != want) {
                CHECK(0, "iteration %d: allreduce element %d: got %d, expected %ld", it, i,
                      out[i], want);
                break;
            }
        }
        for (int i = 0; i < 8; i++)
            CHECK(b[i] == it + i, "iteration %d: bcast element %d: got %d", it, i, b[i]);
    }
}

struct worker {
    MPI_Comm comm;
    int iters;
};

static void *worker(void *arg)
{
    struct worker *w = arg;
    for (int it = 0; it < w->iters; it++)
        one_iteration(w->comm, it);
    return NULL;
}

int main(int argc, char **argv)
{
    int iters = 0, nthreads = 2, rank, provided;

    /* only the threads mode asks for MPI_THREAD_MULTIPLE: autoopt leaves collectives to MPI
     * there */
    MPI_Init_thread(&argc, &argv,
                    argc > 1 && strcmp(argv[1], "threads") == 0 ? MPI_THREAD_MULTIPLE
                                                                : MPI_THREAD_SINGLE,
                    &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Type_contiguous(8, MPI_CHAR, &eight_chars);
    MPI_Type_commit(&eight_chars);
    if (argc == 4)
        nthreads = atoi(argv[3]);
    if (argc < 3 || argc > 4 || (iters = atoi(argv[2])) < 1 || nthreads < 1 || nthreads > 16) {
        if (rank == 0)
            fprintf(stderr, "usage: coll_online loop|sites|alltoallv|subcomm|moved_on|"
                    "left_exploring ITERS, or threads ITERS [N]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(argv[1], "loop") == 0) {
        for (int it = 0; it < iters; it++)
            one_iteration(MPI_COMM_WORLD, it);
    } else if (strcmp(argv[1], "sites") == 0) {
        sites(iters);
    } else if (strcmp(argv[1], "alltoallv") == 0) {
        alltoallv_loop(iters);
    } else if (strcmp(argv[1], "moved_on") == 0) {
        moved_on(15, iters);
    } else if (strcmp(argv[1], "left_exploring") == 0) {
        moved_on(16, iters);
    } else if (strcmp(argv[1], "subcomm") == 0) {
        MPI_Comm half, dup;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        for (int it = 0; it < iters; it++) {
            one_iteration(half, it);
            one_iteration(dup, it);
        }
        MPI_Comm_free(&half);
        MPI_Comm_free(&dup);
    } else if (strcmp(argv[1], "threads") == 0) {
        struct worker w[16];
        pthread_t t[16];
        CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
        for (int i = 0; i < nthreads; i++) {
            MPI_Comm_dup(MPI_COMM_WORLD, &w[i].comm);
            w[i].iters = iters;
        }
        if (provided == MPI_THREAD_MULTIPLE) {
            for (int i = 0; i < nthreads; i++)
                pthread_create(&t[i], NULL, worker, &w[i]);
            for (int i = 0; i < nthreads; i++)
                pthread_join(t[i], NULL);
        }
        for (int i = 0; i < nthreads; i++)
            MPI_Comm_free(&w[i].comm);
    } else {
        if (rank == 0)
            fprintf(stderr, "coll_online: unknown mode '%s'\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Type_free(&eight_chars);
    return aot_test_finish();
}
