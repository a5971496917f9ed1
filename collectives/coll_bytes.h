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
 *   alltoallv, barrier         0 (alltoallv's counts differ by rank; every rank must decide
 *                              alike)
 * Every input is the same on all ranks, so every rank reaches the same decision. */
uint64_t aot_coll_bytes(enum aot_coll_kind kind, int comm_size, int count, int type_size,
                        const int *rcounts);

/* The calls the tuner and autoopt-bench-coll time: elements of MPI_FLOAT with MPI_SUM for
 * allreduce and reduce, of MPI_CHAR otherwise, the same count on every rank for allgatherv and
 * alltoallv.  The element size of kind's calls, and the count of a call of `bytes` (rounded
 * down to whole elements). */
int aot_coll_bench_type_size(enum aot_coll_kind kind);
int aot_coll_bench_count(enum aot_coll_kind kind, uint64_t bytes);

#endif /* AOT_COLL_BYTES_H_INCLUDED */
