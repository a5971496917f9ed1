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
 * A pass is blocking (ring_pass.c: even ranks send first, odd ranks receive first) or the
 * hand-written MPI_Irecv + MPI_Isend + MPI_Waitall (-m isend).  With several modes
 * (-m blocking,blocking@pmpi,isend@pmpi) they take turns of -b passes on the same buffers, as
 * sor, cg and multigrid do (turns.h); the pattern goes on from turn to turn.
 *
 * Rank 0 prints
 *   ring: procs=4 bytes=1048576 passes=20 us_per_pass=812.5 mb_per_s=1290.5
 *   ring: ok
 * us_per_pass is the slowest rank's wall time per pass (send, receive, check and change) and
 * mb_per_s the bytes one rank received per second.  With several modes the first line says
 * mode=A,B turn=T iters=I and a line per mode follows:
 *   ring: turn mode=blocking@pmpi iters=20 avg_iter_us=815.0
 * Exit status: 0 passed, 1 wrong data arrived, 2 bad command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>

#include "common.h"
#include "ring.h"
#include "turns.h"

static const char *const ring_mode_names[] = { "blocking", "isend", NULL };
static const char *const ring_mode_summaries[] = {
    "blocking MPI_Send/MPI_Recv (default)",
    "MPI_Irecv + MPI_Isend + MPI_Waitall",
};

struct ring_options {
    long bytes;
    struct ex_turns t;          /* -i passes of each mode, -m, -b */
    const char *times;          /* -t FILE */
};

static void ring_usage(void)
{
    if (ex_rank != 0)
        return;
    printf("usage: ring [-s BYTES] [-i PASSES] [-m MODE[,MODE...]] [-b TURN] [-W WARM]\n"
           "            [-t FILE] [-h]\n"
           "Passes a buffer around the ring of processes with MPI_Send/MPI_Recv, checking\n"
           "and changing it between passes.\n"
           "  -s BYTES  buffer size, suffix K, M or G allowed (default 1M)\n"
           "  -i PASSES passes (of each mode; default 20)\n"
           "  -m MODE   how a pass is made:\n");
    ex_usage_modes(ring_mode_names, ring_mode_summaries);
    printf("  -t FILE   write rank 0's wall time of every pass to FILE (µs, one a line); with\n"
           "            several modes a line per turn: the mode and its time per pass\n"
           "  -h        show this help\n");
}

static int ring_parse(int argc, char **argv, struct ring_options *o)
{
    int c;

    *o = (struct ring_options) { .bytes = 1L << 20,
                                 .t = { .names = ring_mode_names, .npicks = 1, .iters = 20,
                                        .turn = 50 } };
    opterr = 0;
    while ((c = getopt(argc, argv, ":s:i:m:b:W:t:h")) != -1) {
        int rc = 0;

        switch (c) {
        case 's':
            rc = ex_parse_bytes(c, optarg, 1, INT_MAX, &o->bytes);
            break;
        case 'i':
            rc = ex_parse_int(c, optarg, 1, INT_MAX, &o->t.iters);
            break;
        case 'm':
            rc = ex_parse_modes(optarg, &o->t);
            break;
        case 'b':
            rc = ex_parse_int(c, optarg, 1, INT_MAX, &o->t.turn);
            break;
        case 'W':
            rc = ex_parse_int(c, optarg, 0, INT_MAX, &o->t.warmup);
            break;
        case 't':
            o->times = optarg;
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
    c = ex_no_operands(argc, argv, optind);
    return c != EX_RUN ? c : ex_turns_check(&o->t);
}

/* Byte k of the buffer that started on rank @origin, as it arrives in pass @pass. */
static unsigned char ring_pattern(int origin, int pass, long k)
{
    return (unsigned char) (k * 131 + (k >> 8) + origin * 17 + pass);
}

/* The ring's state across passes and turns. */
struct ring_run {
    struct ring_state st;
    int pass;                   /* passes made so far, over all modes */
    long errors;
};

/* One pass in the pick's mode, then the check of what arrived and the change passed on. */
static void ring_step(void *ctx, const struct ex_pick *pick)
{
    struct ring_run *r = ctx;
    struct ring_state *s = &r->st;
    int origin = ((s->rank - 1 - r->pass) % s->size + s->size) % s->size;
    long bad = 0;

    (pick->pmpi ? ring_passes_pmpi : ring_passes)[pick->mode](s);
    for (long k = 0; k < s->bytes; k++) {
        if (s->rbuf[k] != ring_pattern(origin, r->pass, k)) {
            if (bad++ == 0)
                fprintf(stderr, "ring: rank %d pass %d: byte %ld is %u, expected %u\n",
                        s->rank, r->pass, k, s->rbuf[k], ring_pattern(origin, r->pass, k));
        }
        s->sbuf[k] = (unsigned char) (s->rbuf[k] + 1);
    }
    r->errors += bad;
    r->pass++;
}

int main(int argc, char **argv)
{
    struct ring_options o;
    struct ring_run r = { .pass = 0 };
    struct ring_state *s = &r.st;
    int rank, size, status;
    double spent[EX_MAX_MODES];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ex_setup("ring", rank);

    status = ring_parse(argc, argv, &o);
    if (status != EX_RUN) {
        MPI_Finalize();
        return status;
    }
    *s = (struct ring_state) { .bytes = (int) o.bytes, .rank = rank, .size = size,
                               .left = (rank + size - 1) % size, .right = (rank + 1) % size };
    s->sbuf = malloc((size_t) o.bytes);
    s->rbuf = malloc((size_t) o.bytes);
    if (s->sbuf == NULL || s->rbuf == NULL) {
        fprintf(stderr, "ring: rank %d: out of memory for %ld bytes\n", rank, o.bytes);
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    }
    for (long k = 0; k < o.bytes; k++)
        s->sbuf[k] = ring_pattern(rank, 0, k);  /* what the right neighbour gets in pass 0 */

    if (ex_run_turns(MPI_COMM_WORLD, &o.t, ring_step, &r, o.times, spent) != 0)
        MPI_Abort(MPI_COMM_WORLD, EX_FAILED);
    MPI_Allreduce(MPI_IN_PLACE, &r.errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);

    status = r.errors == 0 ? EX_OK : EX_FAILED;
    if (rank == 0) {
        double per_pass = spent[0] / o.t.iters;

        printf("ring: procs=%d bytes=%ld", size, o.bytes);
        if (o.t.npicks == 1)
            printf(" passes=%d us_per_pass=%.1f mb_per_s=%.1f\n", o.t.iters, per_pass * 1e6,
                   o.bytes / per_pass / 1e6);
        else
            ex_print_timing(&o.t, spent), putchar('\n');
        ex_print_turn_lines(&o.t, spent);
        if (status == EX_OK)
            printf("ring: ok\n");
        else
            fprintf(stderr, "ring: FAILED: %ld bytes differed from what was sent\n", r.errors);
    }
    free(s->sbuf);
    free(s->rbuf);
    MPI_Finalize();
    return status;
}
