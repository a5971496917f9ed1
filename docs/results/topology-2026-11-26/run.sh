#!/bin/sh
# run.sh BUILD [--cyclic]: the measurements of this folder, as they were run (from the
# worktree's top, as root, build in BUILD).  Two switches of 4 emulated hosts, 100 Mbit/s links
# and uplink, AUTOOPT_TOPOLOGY from --topology-out (netcluster-2sw.sh), 8 ranks, one per host;
# the yield-when-idle library in every run (8 ranks > 2 cores), native included.
# --cyclic: every mode measures on a communicator whose ranks alternate between the two
# switches (autoopt-bench-coll --cyclic 2: rank k is world rank (k mod 2)*4 + k/2); output
# files prefixed cyclic-.
# SPDX-License-Identifier: GPL-2.0-or-later
set -e
B=${1:-build}
R=docs/results/topology-2026-11-26
export NC=$B/bin/autoopt-netcluster
common="--np 8 --netcluster $R/netcluster-2sw.sh --lib $B/src/libautoopt.so"
common="$common --yield $B/tools/libautoopt-yield.so"
if [ "$2" = --cyclic ]; then
    pre=cyclic-
    common="$common --cyclic 2"
    a2a="--algs native,ring,topo_pair --min-size 4096 --repeat 2"
else
    pre=
    a2a="--algs native,ring,pair,topo_pair --min-size 1024 --repeat 3"
fi
$NC idle > $R/${pre}idle-before.txt 2>&1 || true
$B/bin/autoopt-bench-coll $common --algs native,ring,topo_ring --min-size 1024 \
    --max-size 262144 --repeat 3 allgather > $R/${pre}allgather.txt 2>&1
$B/bin/autoopt-bench-coll $common $a2a --max-size 131072 alltoall > $R/${pre}alltoall.txt 2>&1
$NC idle --after > $R/${pre}idle-after.txt 2>&1 || true
