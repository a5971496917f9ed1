#!/bin/bash
# Verification of the emulated-cluster tuning file: autoopt-bench-coll on the emulated cluster,
# every algorithm, native and tuned, ROUNDS rounds (best round per size), 1 B to 256 KiB.
# usage: [COLLS="allgather alltoall"] verify.sh ROUNDS OUTDIR [TUNING]   (1 repeat1 and 3 repeat3 made the files here;
#        1 race/verify1 race/net1.tune, the file of the run with racing)
# SPDX-License-Identifier: GPL-2.0-or-later
cd /work/main
D=docs/results/tune-net1-2026-11-25
rounds=$1 out=$D/$2 tuning=${3:-$D/net1.tune}
mkdir -p "$out"
for c in ${COLLS:-allreduce bcast reduce allgather alltoall}; do
  s=$(date +%s)
  build/bin/autoopt-bench-coll --np 8 --netcluster build/bin/autoopt-netcluster --repeat "$rounds" \
      --max-size 262144 --time-per-size 0.05 --tuning "$tuning" $c \
      > "$out/verify-net1-$c.txt" 2> "$out/verify-net1-$c.err"
  echo "$c rc=$? seconds=$(($(date +%s)-s)) end=$(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/verify-net1.log"
done
