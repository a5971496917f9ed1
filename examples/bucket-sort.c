/*
 * bucket-sort: parallel integer sort in the style of the NAS IS benchmark.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every rank draws its keys from a generator seeded with its rank (each key the mean of four
 * uniform draws in [0, max_key), as in IS, so the buckets are not equally full).  One iteration:
 *   - change two keys (as IS does, so that no two iterations sort the same data),
 *   - rank r's bucket holds the keys k with floor(k * p / max_key) == r; count and pack them,
 *   - MPI_Alltoall of the bucket counts, MPI_Alltoallv of the keys,
 *   - counting sort of the keys received,
 *   - MPI_Allreduce of the key count and key sum sent and received, which must agree.
 * After the last iteration the result must be globally sorted: each rank's keys in order, in
 * its own key range, and the largest key of a rank at most the smallest of the next.  With -V
 * (default up to 2^20 keys in all) rank 0 regenerates every rank's keys, sorts them with qsort
 * and requires the same position-weighted checksum.
 *
 * Rank 0 prints
 *   bucket-sort: procs=4 keys_per_rank=65536 max_key=524288 iters=10 avg_iter_us=812.3 keys=262144 key_sum=... checksum=0x... check=ok
 * where checksum = sum over the sorted sequence of (position + 1) * key, modulo 2^64.
 * Exit status: 0 passed, 1 a check failed, 2 bad command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "common.h"

struct bucket_options {
    int keys_per_rank, iters, max_key;
    int verify;                 /* -1: on when the total is at most 2^20 keys */
};

static void bucket_usage(void)
{
    if (ex_rank != 0)
        return;
    printf("usage: bucket-sort [-k KEYS] [-i ITERS] [-m MAX_KEY] [-V] [-h]\n"
           "Integer bucket sort across the processes (NAS IS style): MPI_Alltoall of the\n"
           "bucket counts, MPI_Alltoallv of the keys, local counting sort, MPI_Allreduce.\n"
           "  -k KEYS     keys per process, at most 2^24 (default 65536)\n"
           "  -i ITERS    iterations (default 10)\n"
           "  -m MAX_KEY  keys lie in [0, MAX_KEY), at most 2^26 (default 524288)\n"
           "  -V          check the checksum against a serial sort on rank 0\n"
           "              (default: on for at most 2^20 keys in all)\n"
           "  -h          show this help\n");
}

static int bucket_parse(int argc, char **argv, struct bucket_options *o)
{
    int c;

    *o = (struct bucket_options) {
        .keys_per_rank = 65536, .iters = 10, .max_key = 1 << 19, .verify = -1,
    };
    opterr = 0;
    while ((c = getopt(argc, argv, ":k:i:m:Vh")) != -1) {
        int rc = 0;

        switch (c) {
        case 'k':
            rc = ex_parse_int(c, optarg, 1, 1 << 24, &o->keys_per_rank);
            break;
        case 'i':
            rc = ex_parse_int(c, optarg, 1, INT_MAX, &o->iters);
            break;
        case 'm':
            rc = ex_parse_int(c, optarg, 1, 1 << 26, &o->max_key);
            break;
        case 'V':
            o->verify = 1;
            break;
        case 'h':
            bucket_usage();
            return EX_OK;
        default:
            return ex_bad_option(c, optopt);
        }
        if (rc != 0)
            return rc;
    }
    return ex_no_operands(argc, argv, optind);
}

/* splitmix64: a small generator whose whole state is one number, seeded per rank. */
static uint64_t bucket_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The initial keys of @rank: each the mean of four uniform draws in [0, max_key). */
static void bucket_generate(int rank, int count, int max_key, int *keys)
{
    uint64_t state = UINT64_C(314159265) + (uint64_t) rank * UINT64_C(1000003);

    for (int i = 0; i < count; i++) {
        uint64_t sum = 0;

        for (int d = 0; d < 4; d++)
            sum += (bucket_next(&state) >> 32) * (uint64_t) max_key >> 32;
        keys[i] = (int) (sum / 4);
    }
}

/* The two keys iteration @it changes before it sorts (the same on every rank). */
static void bucket_modify(int *keys, int count, int it, int iters, int max_key)
{
    keys[it % count] = it % max_key;
    keys[(it + iters) % count] = max_key - 1 - it % max_key;
}

/* The rank whose bucket holds @key, and the first key of rank r's bucket. */
static int bucket_owner(int key, int size, int max_key)
{
    return (int) ((int64_t) key * size / max_key);
}

static int bucket_first_key(int r, int size, int max_key)
{
    return (int) (((int64_t) r * max_key + size - 1) / size);
}

static int bucket_compare(const void *a, const void *b)
{
    int x = *(const int *) a, y = *(const int *) b;

    return (x > y) - (x < y);
}

static uint64_t bucket_weighted(const int *keys, size_t count, uint64_t first_position)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < count; i++)
        sum += (first_position + (uint64_t) i + 1) * (uint64_t) keys[i];
    return sum;
}

/* -V: every rank's keys after the last iteration, sorted serially; the expected checksum. */
static uint64_t bucket_serial_checksum(const struct bucket_options *o, int size)
{
    size_t total = (size_t) o->keys_per_rank * size;
    int *all = malloc(total * sizeof *all);
    uint64_t sum;

    if (all == NULL) {
        fprintf(stderr, "bucket-sort: out of memory for the serial check\n");
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    for (int r = 0; r < size; r++) {
        int *keys = &all[(size_t) r * o->keys_per_rank];

        bucket_generate(r, o->keys_per_rank, o->max_key, keys);
        for (int it = 0; it < o->iters; it++)
            bucket_modify(keys, o->keys_per_rank, it, o->iters, o->max_key);
    }
    qsort(all, total, sizeof *all, bucket_compare);
    sum = bucket_weighted(all, total, 0);
    free(all);
    return sum;
}

/* Growable int array: the number of keys a rank receives depends on the data. */
static int *bucket_reserve(int *buf, size_t *capacity, size_t need)
{
    if (need <= *capacity)
        return buf;
    buf = realloc(buf, need * sizeof *buf);
    if (buf == NULL) {
        fprintf(stderr, "bucket-sort: out of memory for %zu keys\n", need);
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    *capacity = need;
    return buf;
}

int main(int argc, char **argv)
{
    struct bucket_options o;
    int rank, size, status, nk, lo, hi, received = 0, bad_totals = 0;
    int *keys, *send, *recv = NULL, *sorted = NULL, *count, *sdispl, *rcount, *rdispl, *fill;
    int *histogram;
    size_t recv_cap = 0, sorted_cap = 0;
    double t, tmax;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ex_setup("bucket-sort", rank);

    status = bucket_parse(argc, argv, &o);
    if (status != EX_RUN) {
        MPI_Finalize();
        return status;
    }
    if (o.verify < 0)
        o.verify = (int64_t) o.keys_per_rank * size <= (1 << 20);

    nk = o.keys_per_rank;
    lo = bucket_first_key(rank, size, o.max_key);
    hi = bucket_first_key(rank + 1, size, o.max_key);      /* my keys are lo .. hi-1 */
    keys = malloc((size_t) nk * sizeof *keys);
    send = malloc((size_t) nk * sizeof *send);
    count = malloc((size_t) size * sizeof *count);
    sdispl = malloc((size_t) size * sizeof *sdispl);
    rcount = malloc((size_t) size * sizeof *rcount);
    rdispl = malloc((size_t) size * sizeof *rdispl);
    fill = malloc((size_t) size * sizeof *fill);
    histogram = malloc(((size_t) (hi - lo) + 1) * sizeof *histogram);
    if (!keys || !send || !count || !sdispl || !rcount || !rdispl || !fill || !histogram) {
        fprintf(stderr, "bucket-sort: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    bucket_generate(rank, nk, o.max_key, keys);

    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int it = 0; it < o.iters; it++) {
        uint64_t totals[4] = { 0, 0, 0, 0 };   /* keys sent, their sum, received, their sum */

        bucket_modify(keys, nk, it, o.iters, o.max_key);

        /* Bucket the keys by owner, in their original order within a bucket. */
        memset(count, 0, (size_t) size * sizeof *count);
        for (int i = 0; i < nk; i++)
            count[bucket_owner(keys[i], size, o.max_key)]++;
        for (int r = 0, off = 0; r < size; r++) {
            sdispl[r] = fill[r] = off;
            off += count[r];
        }
        for (int i = 0; i < nk; i++) {
            send[fill[bucket_owner(keys[i], size, o.max_key)]++] = keys[i];
            totals[1] += (uint64_t) keys[i];
        }
        totals[0] = (uint64_t) nk;

        /* Exchange: first how many, then the keys. */
        MPI_Alltoall(count, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
        received = 0;
        for (int r = 0; r < size; r++) {
            rdispl[r] = received;
            received += rcount[r];
        }
        recv = bucket_reserve(recv, &recv_cap, (size_t) received + 1);
        MPI_Alltoallv(send, count, sdispl, MPI_INT, recv, rcount, rdispl, MPI_INT,
                      MPI_COMM_WORLD);

        /* Counting sort of my key range; a key outside it counts as a failed total. */
        sorted = bucket_reserve(sorted, &sorted_cap, (size_t) received + 1);
        memset(histogram, 0, ((size_t) (hi - lo) + 1) * sizeof *histogram);
        for (int i = 0; i < received; i++) {
            if (recv[i] < lo || recv[i] >= hi) {
                bad_totals = 1;
                continue;
            }
            histogram[recv[i] - lo]++;
            totals[3] += (uint64_t) recv[i];
        }
        totals[2] = (uint64_t) received;
        for (int k = 0, out = 0; k < hi - lo; k++)
            for (int c = histogram[k]; c > 0; c--)
                sorted[out++] = lo + k;

        MPI_Allreduce(MPI_IN_PLACE, totals, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (totals[0] != totals[2] || totals[1] != totals[3])
            bad_totals = 1;
    }
    t = MPI_Wtime() - t;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* Verification of the last iteration's result. */
    {
        int mine[3] = { received, received ? sorted[0] : 0, received ? sorted[received - 1] : 0 };
        int *edges = malloc((size_t) size * 3 * sizeof *edges);
        uint64_t local[3], global[3], before = 0, key_sum = 0, expected_sum = 0;
        int bad = bad_totals, prev_max = -1;

        if (edges == NULL) {
            fprintf(stderr, "bucket-sort: rank %d: out of memory\n", rank);
            MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
        }
        for (int i = 1; i < received; i++)
            if (sorted[i - 1] > sorted[i])
                bad = 1;
        MPI_Allgather(mine, 3, MPI_INT, edges, 3, MPI_INT, MPI_COMM_WORLD);
        for (int r = 0; r < size; r++) {
            if (edges[3 * r] == 0)
                continue;
            if (edges[3 * r + 1] < prev_max)
                bad = 1;
            prev_max = edges[3 * r + 2];
        }
        free(edges);

        /* Position of my first key in the global order, then the checksum pieces. */
        local[0] = (uint64_t) received;
        MPI_Exscan(&local[0], &before, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
            before = 0;                 /* MPI_Exscan leaves rank 0's result undefined */
        for (int i = 0; i < received; i++)
            key_sum += (uint64_t) sorted[i];
        for (int i = 0; i < nk; i++)
            expected_sum += (uint64_t) keys[i];
        local[1] = bucket_weighted(sorted, (size_t) received, before);
        local[2] = key_sum - expected_sum;      /* 0 in total when no key was lost or changed */
        local[0] = (uint64_t) received - (uint64_t) nk;
        MPI_Reduce(local, global, 3, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &key_sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);

        if (rank == 0) {
            uint64_t total = (uint64_t) nk * (uint64_t) size;
            uint64_t ref = o.verify ? bucket_serial_checksum(&o, size) : global[1];
            int failed = bad || global[0] != 0 || global[2] != 0 || ref != global[1];

            printf("bucket-sort: procs=%d keys_per_rank=%d max_key=%d iters=%d "
                   "avg_iter_us=%.1f keys=%" PRIu64 " key_sum=%" PRIu64 " checksum=0x%016"
                   PRIx64 " check=%s\n", size, nk, o.max_key, o.iters, tmax / o.iters * 1e6,
                   total, key_sum, global[1], failed ? "FAILED" : "ok");
            fflush(stdout);
            if (bad)
                fprintf(stderr, "bucket-sort: FAILED: the keys are not globally sorted, or "
                        "the totals sent and received differ\n");
            if (global[0] != 0 || global[2] != 0)
                fprintf(stderr, "bucket-sort: FAILED: key count or key sum not preserved\n");
            if (ref != global[1])
                fprintf(stderr, "bucket-sort: FAILED: checksum 0x%016" PRIx64 " differs "
                        "from the serial sort's 0x%016" PRIx64 "\n", global[1], ref);
            status = failed ? EX_FAILED : EX_OK;
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);

    free(keys);
    free(send);
    free(recv);
    free(sorted);
    free(count);
    free(sdispl);
    free(rcount);
    free(rdispl);
    free(fill);
    free(histogram);
    MPI_Finalize();
    return status;
}
