#!/bin/sh
# aa.sh BENCH OUTDIR: A/A (native-everywhere table) for 4 collectives both ways on the cluster
b=$1 out=$2; mkdir -p $out; cd /work/main
for way in "" --back-to-back; do
  for c in allreduce bcast allgatherv alltoall; do
    $b --np 8 --netcluster build/bin/autoopt-netcluster --lib build/src/libautoopt.so \
      --repeat 3 --algs native --max-size 65536 $way --tuning /tmp/w/g4n/native8.tune $c > $out/$c${way:+-b2b}.txt 2>&1
  done
done
echo done > $out/DONE
