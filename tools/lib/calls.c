/*
 * calls.c: the calls the offline tools time for a message size, and the bytes a decision sees
 * for them (aot_tools.h).  Pure, no MPI calls: autoopt-bench-coll builds it without the
 * library's objects.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>

#include "aot_tools.h"
#include "coll_bytes.h"

int aot_tools_call_type_size(int kind)
{
    return aot_coll_bench_type_size((enum aot_coll_kind) kind);
}

int aot_tools_call_count(int kind, uint64_t bytes)
{
    return aot_coll_bench_count((enum aot_coll_kind) kind, bytes);
}

uint64_t aot_tools_call_bytes(int kind, uint64_t bytes)
{
    int n = aot_tools_call_count(kind, bytes), one = n > 0 ? n : 1, skewed;
    int size = aot_tools_call_type_size(kind);

    if (kind == AOT_COLL_ALLTOALLV) {   /* the agreed mean block of equal blocks, on 2 ranks */
        uint64_t block = (uint64_t) one * (uint64_t) size;
        return aot_coll_a2av_bytes(4 * block, block, 2, &skewed);
    }
    return aot_coll_bytes((enum aot_coll_kind) kind, 1, one, size, NULL);
}

int aot_tools_b2b_calls(double call_s, int at_least)
{
    double n = call_s > 0 ? ceil(AOT_TOOLS_B2B_MAX_S / call_s) : AOT_TOOLS_B2B_CALLS;

    if (at_least < 1)
        at_least = 1;
    if (n > AOT_TOOLS_B2B_CALLS)
        n = AOT_TOOLS_B2B_CALLS;
    return n < at_least ? at_least : (int) n;
}
