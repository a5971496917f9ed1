#!/bin/sh
# run-trees.sh BUILD: bcast and reduce near_first / far_first against native and binomial, on
# the cluster of run.sh, ranks alternating between the switches (--cyclic 2); output
# cyclic-bcast.txt, cyclic-reduce.txt.  Same waiting policy in every run.
# SPDX-License-Identifier: GPL-2.0-or-later
set -e
B=${1:-build}
R=docs/results/topology-2026-11-26
export NC=$B/bin/autoopt-netcluster
for coll in bcast reduce; do
    $B/bin/autoopt-bench-coll --np 8 --netcluster $R/netcluster-2sw.sh \
        --lib $B/src/libautoopt.so --yield $B/tools/libautoopt-yield.so --cyclic 2 \
        --algs native,binomial,near_first,far_first --min-size 16384 --max-size 262144 \
        --repeat 2 $coll > $R/cyclic-$coll.txt 2>&1
done
