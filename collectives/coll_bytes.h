/*
 * coll_bytes.h: the message size a collective's decision reads ("bytes"), and the calls of a
 * given size that the tuner and autoopt-bench-coll time.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A tuning file's `bytes` ranges (docs/tuning-format.md, "What bytes means") are compared with
 * aot_coll_bytes of the call; the runner (coll_run.c) and the tuner (tools/tune) both compute it
 * here, so that the same bytes decide the same rule.  Pure: no MPI calls, no global state.
 */
#ifndef AOT_COLL_BYTES_H_INCLUDED
#define AOT_COLL_BYTES_H_INCLUDED

#include <stdint.h>

#include "aot_config.h"   /* enum aot_coll_kind */

/* The bytes of a call of kind on a communicator of comm_size ranks whose count argument is
 * `count` elements of type_size bytes (MPI_Type_size):
 *   allreduce, reduce, bcast   count * type_size (the vector)
 *   allgather, alltoall        rcount * size(rdt) (one block, as OSU reports it)
 *   allgatherv                 sum(rcounts) * size(rdt) / comm_size, negative counts as 0
 *                              (rcounts NULL: every rank's count is `count`)
 *   alltoallv, barrier         0 (alltoallv's counts differ by rank, so no rank knows the
 *                              call's blocks alone: see aot_coll_a2av_bytes)
 * Every input is the same on all ranks, so every rank reaches the same decision. */
uint64_t aot_coll_bytes(enum aot_coll_kind kind, int comm_size, int count, int type_size,
                        const int *rcounts);

/* alltoallv's decision bytes, from statistics every rank shares only after an agreement
 * (coll_run.c sums and maximizes the ranks' aot_coll_a2av_local over the communicator):
 * total, every rank's send bytes summed, and max, the largest block any rank sends.  The
 * bytes are the call's mean block, total / comm_size^2 (an alltoall of equal blocks has its
 * block as bytes, as the tuner measures alltoallv).  *skewed is 1 when the largest block is
 * more than AOT_COLL_A2AV_SKEW times the mean: the rules were measured with equal blocks, and
 * a schedule of p - 1 exchange steps waits in each step for its largest pair. */
#define AOT_COLL_A2AV_SKEW 2
uint64_t aot_coll_a2av_bytes(uint64_t total, uint64_t max, int comm_size, int *skewed);

/* The calls from one agreement on alltoallv's statistics to the next, from values every rank
 * shares: the previous interval (0 at the first agreement), whether this agreement gave the
 * same choice as the previous one, and the largest cost of an agreement on any rank, per mille
 * of its alltoallv call's time.  The interval doubles while the choice holds, up to
 * AOT_COLL_A2AV_HOLD calls, and is 1 (the next call agrees again) when it changed; it is
 * never so short that agreements cost more than AOT_COLL_A2AV_COST_PERMILLE of the calls'
 * time, and never longer than AOT_COLL_A2AV_MAX_INTERVAL.  Between agreements the calls reuse
 * the latest figures, so a program whose alltoallv changes its size runs up to an interval of
 * calls with the choice of the former size: at most AOT_COLL_A2AV_HOLD calls where agreements
 * are cheap against the calls, and where they are not, as many calls as last as long as
 * 1000 / AOT_COLL_A2AV_COST_PERMILLE agreements.  An agreement costs about as much as a small
 * alltoallv (7 us on 4 ranks sharing 2 cores), so at 5 per mille, far below the 3 % a tuned
 * collective may lose to native, a small alltoallv agrees every 200 calls or so; 2 % (once
 * every 64 calls) had cost a 16-256 B alltoallv there 1-2 %.  The hold was 256 calls until
 * 2026-11-28: a benchmark that doubles its size every few dozen calls then ran most sizes with
 * the choice of a smaller one (native at 32-256 KiB on the emulated cluster, where the rule is
 * 1.6 x faster; docs/tuning-format.md). */
#define AOT_COLL_A2AV_HOLD 4
#define AOT_COLL_A2AV_MAX_INTERVAL 256
#define AOT_COLL_A2AV_COST_PERMILLE 5
int aot_coll_a2av_interval(int prev, int same, uint64_t cost_permille);

/* One rank's part of those statistics: the bytes of its send blocks (negative counts as 0)
 * and its largest block. */
void aot_coll_a2av_local(const int *scounts, int comm_size, int type_size, uint64_t *sum,
                         uint64_t *max);

/* The calls the tuner and autoopt-bench-coll time: elements of MPI_FLOAT with MPI_SUM for
 * allreduce and reduce, of MPI_CHAR otherwise, the same count on every rank for allgatherv and
 * alltoallv.  The element size of kind's calls, and the count of a call of `bytes` (rounded
 * down to whole elements). */
int aot_coll_bench_type_size(enum aot_coll_kind kind);
int aot_coll_bench_count(enum aot_coll_kind kind, uint64_t bytes);

#endif /* AOT_COLL_BYTES_H_INCLUDED */
