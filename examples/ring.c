/*
 * ring: every rank passes a buffer to its right neighbour with blocking MPI_Send / MPI_Recv,
 * checks what arrived from the left and changes it before passing it on.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Byte k of the buffer that started on rank o reads pattern(o, t, k) when it arrives in pass t
 * (passes counted from 0), so every receiver knows exactly what it must get.  Between passes
 * each rank adds 1 to every byte it received (pattern(o, t+1, k) = pattern(o, t, k) + 1) and
 * sends that: the send buffer is rewritten before every send, which a transparent optimizer
 * has to notice.
 *
 * Blocking sends around a ring can deadlock, so even ranks send first and odd ranks receive
 * first (for any number of ranks >= 2 some rank is always receiving).  One rank has no
 * neighbour but itself: it uses MPI_Sendrecv, which cannot deadlock with itself.
 *
 * Rank 0 prints
 *   ring: procs=4 bytes=1048576 passes=20 us_per_pass=812.5 mb_per_s=1290.5
 *   ring: ok
 * us_per_pass is the slowest rank's wall time per pass (send, receive, check and change) and
 * mb_per_s the bytes one rank received per second.
 * Exit status: 0 passed, 1 wrong data arrived, 2 bad command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>

#include "common.h"

struct ring_options {
    long bytes;
    int passes;
};

static void ring_usage(void)
{
    if (ex_rank != 0)
        return;
    printf("usage: ring [-s BYTES] [-i PASSES] [-h]\n"
           "Passes a buffer around the ring of processes with MPI_Send/MPI_Recv, checking\n"
           "and changing it between passes.\n"
           "  -s BYTES   buffer size, suffix K, M or G allowed (default 1M)\n"
           "  -i PASSES  passes (default 20)\n"
           "  -h         show this help\n");
}

static int ring_parse(int argc, char **argv, struct ring_options *o)
{
    int c;

    *o = (struct ring_options) { .bytes = 1L << 20, .passes = 20 };
    opterr = 0;
    while ((c = getopt(argc, argv, ":s:i:h")) != -1) {
        int rc = 0;

        switch (c) {
        case 's':
            rc = ex_parse_bytes(c, optarg, 1, INT_MAX, &o->bytes);
            break;
        case 'i':
            rc = ex_parse_int(c, optarg, 1, INT_MAX, &o->passes);
            break;
        case 'h':
            ring_usage();
            return EX_OK;
        default:
            return ex_bad_option(c, optopt);
        }
        if (rc != 0)
            return rc;
    }
    return ex_no_operands(argc, argv, optind);
}

/* Byte k of the buffer that started on rank @origin, as it arrives in pass @pass. */
static unsigned char ring_pattern(int origin, int pass, long k)
{
    return (unsigned char) (k * 131 + (k >> 8) + origin * 17 + pass);
}

int main(int argc, char **argv)
{
    struct ring_options o;
    int rank, size, left, right, status;
    long errors = 0;
    unsigned char *sbuf, *rbuf;
    double t, tmax;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ex_setup("ring", rank);

    status = ring_parse(argc, argv, &o);
    if (status != EX_RUN) {
        MPI_Finalize();
        return status;
    }
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    sbuf = malloc((size_t) o.bytes);
    rbuf = malloc((size_t) o.bytes);
    if (sbuf == NULL || rbuf == NULL) {
        fprintf(stderr, "ring: rank %d: out of memory for %ld bytes\n", rank, o.bytes);
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    for (long k = 0; k < o.bytes; k++)
        sbuf[k] = ring_pattern(rank, 0, k);     /* what the right neighbour gets in pass 0 */

    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int pass = 0; pass < o.passes; pass++) {
        int origin = ((rank - 1 - pass) % size + size) % size;
        long bad = 0;

        if (size == 1) {
            MPI_Sendrecv(sbuf, (int) o.bytes, MPI_BYTE, right, 0, rbuf, (int) o.bytes,
                         MPI_BYTE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank % 2 == 0) {
            MPI_Send(sbuf, (int) o.bytes, MPI_BYTE, right, 0, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int) o.bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int) o.bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int) o.bytes, MPI_BYTE, right, 0, MPI_COMM_WORLD);
        }
        /* Check what arrived, then pass it on changed. */
        for (long k = 0; k < o.bytes; k++) {
            if (rbuf[k] != ring_pattern(origin, pass, k)) {
                if (bad++ == 0)
                    fprintf(stderr, "ring: rank %d pass %d: byte %ld is %u, expected %u\n",
                            rank, pass, k, rbuf[k], ring_pattern(origin, pass, k));
            }
            sbuf[k] = (unsigned char) (rbuf[k] + 1);
        }
        errors += bad;
    }
    t = MPI_Wtime() - t;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

    status = errors == 0 ? EX_OK : EX_FAILED;
    if (rank == 0) {
        double per_pass = tmax / o.passes;

        printf("ring: procs=%d bytes=%ld passes=%d us_per_pass=%.1f mb_per_s=%.1f\n", size,
               o.bytes, o.passes, per_pass * 1e6, o.bytes / per_pass / 1e6);
        if (status == EX_OK)
            printf("ring: ok\n");
        else
            fprintf(stderr, "ring: FAILED: %ld bytes differed from what was sent\n", errors);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return status;
}
