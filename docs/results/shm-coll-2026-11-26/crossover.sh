#!/bin/sh
# crossover.sh: where native wins again when the shm path is not cut off at the 8 KiB slot --
# the same runs as run.sh for allreduce and bcast, with a library built with 64 KiB slots:
#   cmake -S . -B build-slot64k -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAUTOOPT_LTO=OFF \
#         "-DCMAKE_C_FLAGS=-DAOT_SHM_SLOT=65536" && cmake --build build-slot64k --target autoopt
# (both modes use that library: native runs through it too).  Files slot64k-<platform>-<coll>-R.txt.
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
round=${1:-1}
out=$(dirname "$0")
bench=build/bin/autoopt-bench-coll
nc=build/bin/autoopt-netcluster
lib=$(pwd)/build-slot64k/src/libautoopt.so
for coll in allreduce bcast; do
    { uptime; $bench --lib "$lib" --np 4 --algs native,shm --min-size 4 --max-size 65536 \
        --time-per-size 0.1 --repeat 3 $coll; } > "$out/slot64k-shm4-$coll-$round.txt" 2>&1
    { uptime; $bench --lib "$lib" --np 4 --netcluster $nc --ppn 2 --algs native,shm \
        --min-size 4 --max-size 65536 --time-per-size 0.1 --repeat 3 $coll; } \
        > "$out/slot64k-net2x2-$coll-$round.txt" 2>&1
done
