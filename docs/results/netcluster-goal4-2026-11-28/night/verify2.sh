#!/bin/sh
out=$1; mkdir -p $out; cd /work/main
for way in "" --back-to-back; do
  for c in alltoallv alltoall; do
    build/bin/autoopt-bench-coll --np 8 --netcluster build/bin/autoopt-netcluster --lib build/src/libautoopt.so \
      --repeat 3 --algs native --max-size 262144 $way --tuning collectives/tables/builtin.tune $c > $out/${c}${way:+-b2b}.txt 2>&1
  done
done
echo done > $out/DONE
