#!/usr/bin/python3
# median.py: the table of docs/collectives.md, "Results: host-level shared-memory collectives",
# from the rounds of run.sh.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: median.py FILE...   (files <platform>-<collective>-<round>.txt written by run.sh)
#
# For every platform, collective, algorithm and size: the median over the rounds of the
# average latency that autoopt-bench-coll reported (each round already the best of its
# --repeat repetitions).  Prints one Markdown table per platform and collective: size, native
# µs, shm µs, native / shm, and the number of rounds; then the geometric mean of native / shm
# over 8-256 B (the short messages).
import os
import re
import statistics
import sys

HEAD = re.compile(r"# autoopt-bench-coll (\w+): (\S+), (\d+) ranks")
data = {}   # (platform, coll) -> alg -> size -> [avg ...]
for path in sys.argv[1:]:
    platform = "-".join(os.path.basename(path).split("-")[:-2])
    alg = None
    for line in open(path):
        m = HEAD.match(line)
        if m:
            coll, alg = m.group(1), m.group(2)
            continue
        if line.startswith("#") or not line.strip():
            if line.startswith("# ") and "best algorithm" in line:
                alg = None
            continue
        f = line.split()
        if alg and len(f) == 5 and f[0].isdigit():
            data.setdefault((platform, coll), {}).setdefault(alg, {}) \
                .setdefault(int(f[0]), []).append(float(f[1]))
for (platform, coll), algs in sorted(data.items()):
    print("%s %s" % (platform, coll))
    print("| size | native µs | shm µs | native / shm | rounds |")
    print("|---|---|---|---|---|")
    short = []
    for size in sorted(s for s in algs.get("native", {}) if s == 0 or s >= 8):
        nat = algs["native"][size]
        shm = algs.get("shm", {}).get(size, [])
        if not shm:
            continue
        a, b = statistics.median(nat), statistics.median(shm)
        if size <= 256:
            short.append(a / b)
        print("| %s | %.1f | %.1f | %.2f | %d |" % (size if coll != "barrier" else "-", a, b,
                                                   a / b, min(len(nat), len(shm))))
    if short:
        print("\ngeometric mean of native / shm over %s: %.2f"
              % ("8-256 B" if len(short) > 1 else "the barrier", statistics.geometric_mean(short)))
    print()
