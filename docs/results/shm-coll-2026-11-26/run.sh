#!/bin/sh
# run.sh: the measurements of docs/collectives.md, "Host-level shared-memory collectives".
# Run from the build directory's parent (the worktree):
#   docs/results/shm-coll-2026-11-26/run.sh R [COLLECTIVES]   (default "allreduce bcast barrier")
# R: a label for this round (the files are <platform>-<collective>-R.txt).  Each file starts
# with `uptime` taken just before the run.  The first call of a communicator makes the windows
# (and the private duplicate), and it falls in the warm-up that decides the number of
# iterations: the sizes start at 4 B, a line the tables leave out, so that 8 B is measured
# like the others, and barrier (one line) gets 2 s so that it still runs 100 iterations or more.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
round=${1:-1}
colls=${2:-"allreduce bcast barrier"}
out=$(dirname "$0")
bench=build/bin/autoopt-bench-coll
nc=build/bin/autoopt-netcluster
for coll in $colls; do
    tps=0.1
    [ $coll = barrier ] && tps=2
    # (b) one node, 4 ranks on 2 cores: the yield-when-idle library in every run (automatic)
    { uptime; $bench --np 4 --algs native,shm --min-size 4 --max-size 65536 \
        --time-per-size $tps --repeat 3 $coll; } > "$out/shm4-$coll-$round.txt" 2>&1
    # (a) the emulated cluster, 2 hosts x 2 ranks
    { uptime; $bench --np 4 --netcluster $nc --ppn 2 --algs native,shm --min-size 4 \
        --max-size 65536 --time-per-size $tps --repeat 3 $coll; } > "$out/net2x2-$coll-$round.txt" 2>&1
done
