#!/bin/bash
# MPI_Init time with and without a 40,000-rule tuning file (docs/limits.md, "Bad input").
# usage: run.sh LIBAUTOOPT [NP]   (shared memory; prints one line per run, rank 0's time)
set -euo pipefail
lib=$1 np=${2:-8}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
python3 - "$tmp/big.tune" <<'PY'
import sys
f = open(sys.argv[1], "w")
f.write("autoopt-tuning 1\ncollective bcast\nranks 1-inf\n")
for b in range(40000):
    f.write("bytes %d-%d %s\n" % (10 * b, 10 * b + 9, "native" if b & 1 else "binomial"))
PY
mpicc.mpich -O2 -o "$tmp/init" "$here/init.c"
echo "without: $(LD_PRELOAD=$lib mpiexec.mpich -n "$np" "$tmp/init")"
echo "with:    $(AUTOOPT_TUNING=$tmp/big.tune LD_PRELOAD=$lib mpiexec.mpich -n "$np" "$tmp/init")"
rm -rf "$tmp"
