/*
 * coll_bytes.c: the decision's message size of a call (aot_coll_bytes) and the calls the tuner
 * and autoopt-bench-coll time for a size.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "aot_config.h"
#include "coll_bytes.h"

uint64_t aot_coll_bytes(enum aot_coll_kind kind, int comm_size, int count, int type_size,
                        const int *rcounts)
{
    uint64_t total = 0;

    switch (kind) {
    case AOT_COLL_ALLREDUCE:
    case AOT_COLL_REDUCE:
    case AOT_COLL_BCAST:
    case AOT_COLL_ALLGATHER:
    case AOT_COLL_ALLTOALL:
        return (uint64_t) count * (uint64_t) type_size;
    case AOT_COLL_ALLGATHERV:
        if (comm_size <= 0)
            return 0;
        if (!rcounts)
            return (uint64_t) (count > 0 ? count : 0) * (uint64_t) type_size;
        for (int i = 0; i < comm_size; i++)
            total += (uint64_t) (rcounts[i] > 0 ? rcounts[i] : 0);
        return total * (uint64_t) type_size / (uint64_t) comm_size;
    default:    /* alltoallv, barrier */
        return 0;
    }
}

uint64_t aot_coll_a2av_bytes(uint64_t total, uint64_t max, int comm_size, int *skewed)
{
    unsigned __int128 blocks = (unsigned __int128) (comm_size > 0 ? comm_size : 1) *
                               (unsigned __int128) (comm_size > 0 ? comm_size : 1);

    /* max > SKEW * total / blocks, without rounding the mean */
    *skewed = (unsigned __int128) max * blocks > (unsigned __int128) AOT_COLL_A2AV_SKEW * total;
    return (uint64_t) (total / blocks);
}

int aot_coll_a2av_interval(int prev, int same, uint64_t cost_permille)
{
    uint64_t need = cost_permille / AOT_COLL_A2AV_COST_PERMILLE
                    + (cost_permille % AOT_COLL_A2AV_COST_PERMILLE != 0);
    int n = same && prev > 0 ? 2 * prev : 1;

    _Static_assert(AOT_COLL_A2AV_HOLD <= AOT_COLL_A2AV_MAX_INTERVAL, "the hold is within the cap");
    if (n > AOT_COLL_A2AV_HOLD)
        n = AOT_COLL_A2AV_HOLD;
    if ((uint64_t) n < need)
        n = need > AOT_COLL_A2AV_MAX_INTERVAL ? AOT_COLL_A2AV_MAX_INTERVAL : (int) need;
    return n;
}

void aot_coll_a2av_local(const int *scounts, int comm_size, int type_size, uint64_t *sum,
                         uint64_t *max)
{
    *sum = *max = 0;
    for (int i = 0; i < comm_size; i++) {
        uint64_t b = (uint64_t) (scounts[i] > 0 ? scounts[i] : 0) * (uint64_t) type_size;
        *sum += b;
        if (b > *max)
            *max = b;
    }
}

int aot_coll_bench_type_size(enum aot_coll_kind kind)
{
    return kind == AOT_COLL_ALLREDUCE || kind == AOT_COLL_REDUCE ? 4 : 1;
}

int aot_coll_bench_count(enum aot_coll_kind kind, uint64_t bytes)
{
    return (int) (bytes / (uint64_t) aot_coll_bench_type_size(kind));
}
