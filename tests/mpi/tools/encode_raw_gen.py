#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""encode_raw_gen.py: writes encode.raw, the synthetic raw file of the autoopt-tune encode tests
(tools.tune.encode.rules, tools.tune.encode.emit-c).

Times come from latency-bandwidth models (alpha 2 us, beta 1 ns/B, gamma 0.5 ns/B), not from a
machine: three collectives (bcast, allreduce, barrier), communicator sizes 2-8, message sizes
1 B-512 KiB (20 powers of two; barrier: 0 only).  Planted on purpose:
  - a noisy point: bcast linear at 5 ranks, 4 KiB runs at a quarter of its model time;
  - a missing method: bcast chain 65536 not measured at 6 ranks, 64 B;
  - a dropped point: nothing of allreduce at 7 ranks, 1 KiB;
  - a parameter 0 that is not "no parameter": bcast imamura_hybrid1 with j = 0;
  - a record replaced by a later one: bcast binomial at 3 ranks, 2 B, written twice.

    python3 encode_raw_gen.py > encode.raw
"""
import math

ALPHA, BETA, GAMMA = 2.0, 0.001, 0.0005
RANKS = range(2, 9)
SIZES = [1 << k for k in range(20)]


def lg(p):
    return math.ceil(math.log2(p))


def bcast(p, n):
    t = {
        ("native", 0): 1.05 * lg(p) * (ALPHA + BETA * n) + 0.5,
        ("linear", 0): (p - 1) * (ALPHA + BETA * n) * 0.9,
        ("binomial", 0): lg(p) * (ALPHA + BETA * n),
        ("scatter_allgather", 0): (lg(p) + p - 1) * ALPHA + 2 * BETA * n * (p - 1) / p,
        ("imamura_hybrid1", 0): 1.2 * lg(p) * ALPHA + 2.2 * BETA * n * (p - 1) / p,
    }
    for s in (8192, 65536):
        k = max(1, math.ceil(n / s))
        t[("chain", s)] = (p - 2 + k) * (ALPHA + BETA * min(n, s)) + 1.0
    if (p, n) == (5, 4096):
        t[("linear", 0)] *= 0.25
    if (p, n) == (6, 64):
        del t[("chain", 65536)]
    return t


def allreduce(p, n):
    frac = (p - 1) / p
    rd = lg(p) * (ALPHA + (BETA + GAMMA) * n)
    rab = 2 * lg(p) * ALPHA + 2 * BETA * n * frac + GAMMA * n * frac + 1.0
    t = {
        ("native", 0): 1.1 * min(rd, rab),
        ("recursive_doubling", 0): rd,
        ("ring", 0): 2 * (p - 1) * ALPHA + 2 * BETA * n * frac + GAMMA * n * frac,
        ("rabenseifner", 0): rab,
        ("reduce_bcast", 0): 2 * lg(p) * (ALPHA + BETA * n) + GAMMA * n * lg(p),
    }
    if (p, n) == (7, 1024):
        return {}
    return t


def barrier(p):
    pof2 = p & (p - 1) == 0
    return {
        ("native", 0): 1.05 * lg(p) * ALPHA,
        ("dissemination", 0): lg(p) * ALPHA,
        ("linear", 0): (p - 1) * ALPHA * 0.6,
        ("recursive_doubling", 0): 1.1 * lg(p) * ALPHA + (0 if pof2 else ALPHA),
        ("tree", 2): 2 * math.ceil(math.log(p, 2) - 1e-9) * ALPHA * 0.7,
        ("tree", 4): 2 * math.ceil(math.log(p, 4) - 1e-9) * ALPHA * 0.9 + 0.3,
    }


def line(coll, alg, param, p, n, t):
    return "m %s %s %d %d %d %.6f %.6f %.6f 11" % (coll, alg, param, p, n, t, 0.98 * t, 1.02 * t)


def main():
    print("autoopt-tune-raw 1")
    print("# setup synthetic: tests/mpi/tools/encode_raw_gen.py (models, not measurements)")
    print("# m <collective> <algorithm> <param> <ranks> <bytes> <median_us> <lo_us> <hi_us> <reps>")
    for p in RANKS:
        for n in SIZES:
            for (alg, param), t in sorted(bcast(p, n).items()):
                if (p, n, alg) == (3, 2, "binomial"):
                    print(line("bcast", alg, param, p, n, 3 * t))   # replaced just below
                print(line("bcast", alg, param, p, n, t))
    for p in RANKS:
        for n in SIZES:
            for (alg, param), t in sorted(allreduce(p, n).items()):
                print(line("allreduce", alg, param, p, n, t))
    for p in RANKS:
        for (alg, param), t in sorted(barrier(p).items()):
            print(line("barrier", alg, param, p, 0, t))


if __name__ == "__main__":
    main()
