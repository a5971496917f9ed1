/*
 * coll_a2av.c: alltoallv decided by its agreed block statistics (collectives/coll_run.c,
 * aot_a2av_bytes), under tests/mpi/coll/tuning/alltoallv.tune: mean blocks below 1 KiB run
 * `simple`, from 1 KiB `ring`, and a call whose largest block is more than twice the mean runs
 * natively.  Every call's result is compared with MPI's own alltoallv of the same buffers;
 * CMake checks that each choice ran and that the ranks agreed less often than they called.
 * Agreements are at most AOT_COLL_A2AV_MAX_INTERVAL calls apart, so each steady part below
 * runs STEADY calls, more than that, and reaches an agreement of its own.
 *   1. Equal blocks of 4 KiB: ring.
 *   2. Mean blocks of 384 bytes (blocks of one and two units by parity of sender + receiver):
 *      simple.
 *   3. Skewed: rank 0 sends 64 KiB to rank 1, every other block is 1 KiB: native.
 *   4. Rank 0 sends 1500-byte blocks and the others 900-byte ones: each of ranks 1-3 alone
 *      would see a mean below 1 KiB, the call's mean is 1050 bytes: ring on every rank (a rank
 *      deciding from its own counts would run `simple` against the others' `ring`, and the
 *      results or the job would fail).
 *   5. 40 calls alternating mean blocks of 384 and 6144 bytes: whichever choice the latest
 *      agreement gave, every rank runs the same one.
 * Run with 4 ranks.
 */
#include <string.h>

#include "aot_test.h"

/* AOT_COLL_A2AV_MAX_INTERVAL (collectives/coll_bytes.h) is 256: a part shorter than that may
 * end before it agrees, and then its choice does not run (CMake's check fails). */
#define STEADY 300

static int rank, size;

/* One call: counts[j] ints to rank j, values naming sender, receiver and position. */
static void one_call(const int *counts, const char *what)
{
    int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
    int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
    long sn = 0, rn = 0;

    for (int j = 0; j < size; j++) {
        sc[j] = counts[j];
        sd[j] = (int) sn;
        sn += sc[j];
    }
    PMPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++) {
        rd[j] = (int) rn;
        rn += rc[j];
    }
    int *in = malloc(sizeof(int) * (size_t) (sn + 1)), *out = malloc(sizeof(int) * (size_t) (rn + 1));
    int *ref = malloc(sizeof(int) * (size_t) (rn + 1));
    for (int j = 0; j < size; j++)
        for (int i = 0; i < sc[j]; i++)
            in[sd[j] + i] = (rank * 16 + j) * 100000 + i;
    memset(out, 0xA5, sizeof(int) * (size_t) (rn + 1));
    PMPI_Alltoallv(in, sc, sd, MPI_INT, ref, rc, rd, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
    CHECK(memcmp(out, ref, sizeof(int) * (size_t) rn) == 0, "%s: result differs from MPI's", what);
    free(in);
    free(out);
    free(ref);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

int main(int argc, char **argv)
{
    int counts[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4 || size > 64) {
        if (rank == 0)
            fprintf(stderr, "coll_a2av: run with 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int k = 0; k < STEADY; k++) {
        for (int j = 0; j < size; j++)
            counts[j] = 1024;
        one_call(counts, "equal 4 KiB blocks");
    }
    for (int k = 0; k < STEADY; k++) {
        for (int j = 0; j < size; j++)
            counts[j] = (rank + j) % 2 ? 128 : 64;       /* ints: a mean of 384 bytes */
        one_call(counts, "small blocks");
    }
    for (int k = 0; k < STEADY; k++) {
        for (int j = 0; j < size; j++)
            counts[j] = rank == 0 && j == 1 ? 16384 : 256;
        one_call(counts, "skewed");
    }
    for (int k = 0; k < STEADY; k++) {
        for (int j = 0; j < size; j++)
            counts[j] = rank == 0 ? 375 : 225;  /* 1500 and 900 bytes */
        one_call(counts, "mean from all ranks");
    }
    for (int k = 0; k < 40; k++) {
        int unit = k % 2 ? 1024 : 64;          /* ints: means 6144 and 384 bytes */
        for (int j = 0; j < size; j++)
            counts[j] = (rank + j) % 2 ? 2 * unit : unit;
        one_call(counts, k % 2 ? "alternating, large" : "alternating, small");
    }
    return aot_test_finish();
}
