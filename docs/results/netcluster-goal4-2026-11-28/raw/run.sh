#!/bin/sh
# usage: run.sh OUTDIR
out=$1; shift
mkdir -p $out
cd /work/main
for way in "" --back-to-back; do
  for c in allreduce reduce barrier alltoall allgather allgatherv alltoallv bcast; do
    f=$out/${c}${way:+-b2b}.txt
    build/bin/autoopt-bench-coll --np 8 --netcluster build/bin/autoopt-netcluster --lib build/src/libautoopt.so \
      --repeat 3 --algs native --max-size 262144 $way "$@" \
      --tuning ${TABLE:-collectives/tables/builtin.tune} $c > $f 2>&1
  done
done
echo done > $out/DONE
