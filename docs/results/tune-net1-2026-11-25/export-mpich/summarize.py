#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Per collective and size: MPICH with the exported selection file against MPICH's default,
best average latency of the rounds of each (files COLL-MODE-ROUND.txt from run.sh)."""
import glob, os, re, sys
os.chdir(os.path.dirname(os.path.abspath(__file__)))
colls = sys.argv[1:] or ["allreduce", "alltoall", "allgather"]
for c in colls:
    best = {}
    for mode in ("default", "export"):
        for f in glob.glob(f"{c}-{mode}-*.txt"):
            for line in open(f):
                m = re.match(r"^(\d+)\s+([\d.]+)", line)
                if m:
                    k = (mode, int(m.group(1)))
                    best[k] = min(best.get(k, 1e30), float(m.group(2)))
    sizes = sorted({s for (_, s) in best})
    print(f"# {c}: best avg latency (us) of the rounds; export / default")
    print(f"{'size':>8} {'default':>12} {'export':>12} {'ratio':>7}")
    for s in sizes:
        d, e = best.get(("default", s)), best.get(("export", s))
        if d and e:
            print(f"{s:>8} {d:>12.2f} {e:>12.2f} {e / d:>7.3f}")
    print()
