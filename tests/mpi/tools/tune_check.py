#!/usr/bin/env python3
# tune_check.py: checks that a run with a tuning file used, for every call, the algorithm that
# the file's rules name (tools.tune.rules).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: tune_check.py TUNE STATS.json RANKS BYTES...
# The program (tune_calls) made one MPI_Bcast and one MPI_Allgather of each size on RANKS
# ranks; autoopt counts each rank's call under coll.<collective>.<algorithm>.
import json
import re
import sys


def parse_size(s):
    if s == "inf":
        return float("inf")
    m = re.fullmatch(r"(\d+)([KMG]?)", s)
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1 << 20, "G": 1 << 30}[m.group(2)]


def rules(path):
    out, coll, ranks = [], None, None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line or line[0] == "autoopt-tuning":
                continue
            if line[0] == "collective":
                coll = line[1]
            elif line[0] == "ranks":
                lo, hi = line[1].split("-")
                ranks = (parse_size(lo), parse_size(hi))
            elif line[0] == "bytes":
                lo, hi = line[1].split("-")
                out.append((coll, ranks, parse_size(lo), parse_size(hi), line[2].split(":")[0]))
    return out


def main():
    tune, stats, nranks, sizes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    table = rules(tune)
    with open(stats) as f:
        counters = json.load(f)["counters"]
    expected = {}
    for coll in ("bcast", "allgather"):
        for s in sizes:
            b = int(s)
            alg = "native"
            for c, (rlo, rhi), lo, hi, a in table:
                if c == coll and rlo <= nranks <= rhi and lo <= b <= hi:
                    alg = a
            key = "coll.%s.%s" % (coll, alg)
            expected[key] = expected.get(key, 0) + nranks
            print("%-9s %7d B -> %s" % (coll, b, alg))
    got = {k: v for k, v in counters.items()
           if k.startswith(("coll.bcast.", "coll.allgather.")) and v}
    if got != expected:
        print("tune_check: MISMATCH\n  expected %s\n  counted  %s" % (sorted(expected.items()),
                                                                     sorted(got.items())))
        return 1
    used = sorted(k for k in got if not k.endswith(".native"))
    print("tune_check: ok: every call ran its rule's algorithm (%d counters; not native: %s)"
          % (len(got), ", ".join(used) or "none"))
    return 0


sys.exit(main())
