#!/bin/sh
# run.sh: the measurements of docs/collectives.md, "Host-level shared-memory collectives".
# Run from the build directory's parent (the worktree): docs/results/shm-coll-2026-11-26/run.sh R
# R: a label for this round (the files are <platform>-<collective>-R.txt).  Each file starts
# with `uptime` taken just before the run.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
round=${1:-1}
out=$(dirname "$0")
bench=build/bin/autoopt-bench-coll
nc=build/bin/autoopt-netcluster
for coll in allreduce bcast barrier; do
    # (b) one node, 4 ranks on 2 cores: the yield-when-idle library in every run (automatic)
    { uptime; $bench --np 4 --algs native,shm --min-size 8 --max-size 65536 \
        --time-per-size 0.1 --repeat 3 $coll; } > "$out/shm4-$coll-$round.txt" 2>&1
    # (a) the emulated cluster, 2 hosts x 2 ranks
    { uptime; $bench --np 4 --netcluster $nc --ppn 2 --algs native,shm --min-size 8 \
        --max-size 65536 --time-per-size 0.1 --repeat 3 $coll; } > "$out/net2x2-$coll-$round.txt" 2>&1
done
