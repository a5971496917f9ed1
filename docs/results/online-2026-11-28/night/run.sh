#!/bin/sh
cd /work/main
for r in 4 2; do
  b=400; [ $r = 2 ] && b=300
  mpiexec.mpich -n $r -genv LD_PRELOAD build/tools/libautoopt-yield.so build/bin/autoopt-tune --coll allreduce,alltoall --sizes 4-256K --budget $b -o /tmp/w/g3n/shm$r.tune > /tmp/w/g3n/tune$r.log 2>&1
  tools/bench-coll/online-vs-offline.sh build /tmp/w/g3n/shm$r.tune $r 15 1000 /tmp/w/g3n/r$r "" collectives/tables/builtin.tune > /tmp/w/g3n/r$r.txt 2>&1
done
echo done > /tmp/w/g3n/DONE
