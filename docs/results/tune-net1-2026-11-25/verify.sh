#!/bin/bash
# verification of the net1 tuning file: autoopt-bench-coll on the emulated cluster, every
# algorithm, native and tuned, one round, 1 B to 256 KiB
cd /work/main
D=docs/results/tune-net1-2026-11-25
for c in allreduce bcast reduce allgather alltoall; do
  s=$(date +%s)
  build/bin/autoopt-bench-coll --np 8 --netcluster build/bin/autoopt-netcluster --repeat 1 --max-size 262144 \
      --time-per-size 0.05 --tuning $D/net1.tune $c > $D/repeat1/verify-net1-$c.txt 2> $D/repeat1/verify-net1-$c.err
  echo "$c rc=$? seconds=$(($(date +%s)-s))" >> $D/repeat1/verify-net1.log
done
