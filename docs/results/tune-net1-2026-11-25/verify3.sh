#!/bin/bash
# verification of the net1 tuning file: autoopt-bench-coll on the emulated cluster, every
# algorithm, native and tuned, three rounds (best of three per size), 1 B to 256 KiB
cd /work/main
D=docs/results/tune-net1-2026-11-25
for c in allreduce bcast reduce allgather alltoall; do
  s=$(date +%s)
  build/bin/autoopt-bench-coll --np 8 --netcluster build/bin/autoopt-netcluster --repeat 3 --max-size 262144 \
      --time-per-size 0.05 --tuning $D/net1.tune $c > $D/repeat3/verify-net1-$c.txt 2> $D/repeat3/verify-net1-$c.err
  echo "$c rc=$? seconds=$(($(date +%s)-s))" >> $D/repeat3/verify-net1.log
done
