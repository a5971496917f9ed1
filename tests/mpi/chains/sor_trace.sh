#!/bin/sh
# sor_trace.sh: the SOR example's MPI_Sendrecv exchange under autoopt, traced, in both
# injection modes.  Checks: the results are bit-identical to a native run (checksum, and -V
# against a serial run), autoopt-trace finds exactly the two chains of 4 members (the red and
# the black exchange, told apart with AUTOOPT_SITE_DEPTH=2), and both modes find the same
# members at the same source lines.  AUTOOPT_CHAINS=unguarded: the chains are learned with
# touch probes, which end a phase where the program computes; safe chains (the default) learn
# without probes and split phases where their first call repeats, which at depth 2 makes the
# red and the black exchange one chain of 8 (docs/chains.md, "The governor").
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: sor_trace.sh MPIEXEC NP LIBAUTOOPT YIELD_OR_EMPTY SOR SOR_INJECT AUTOOPT_TRACE WORKDIR
set -eu
mpiexec=$1 np=$2 lib=$3 yield=$4 sor=$5 sor_inject=$6 tool=$7 work=$8
args="-n 128 -i 40 -m sendrecv -V"
pre=${yield:+:$yield}
rm -rf "$work"; mkdir -p "$work"

native=$(LD_PRELOAD=$yield "$mpiexec" -n "$np" "$sor" $args | sed -n 's/.*checksum=\(0x[0-9a-f]*\).*/\1/p')
[ -n "$native" ] || { echo "FAIL: native run gave no checksum"; exit 1; }
echo "native checksum $native"

for mode in preload inject; do
  if [ $mode = preload ]; then prog=$sor; env="LD_PRELOAD=$lib$pre"; else prog=$sor_inject; env="LD_PRELOAD=$yield"; fi
  env $env AUTOOPT_TRACE="$work/$mode" AUTOOPT_SITE_DEPTH=2 AUTOOPT_CONVERT=0 AUTOOPT_CHAINS=unguarded \
    "$mpiexec" -n "$np" "$prog" $args -c "$native" > "$work/$mode.out" 2>&1 ||
    { cat "$work/$mode.out"; echo "FAIL: $mode run"; exit 1; }
  "$tool" "$work/$mode" > "$work/$mode.summary" || { cat "$work/$mode.summary"; echo "FAIL: autoopt-trace $mode"; exit 1; }
  cat "$work/$mode.summary"
  n=$(grep -c "rank 0 chain [0-9]*: confirmed, 4 members" "$work/$mode.summary" || true)
  [ "$n" = 2 ] || { echo "FAIL: $mode: expected 2 confirmed chains of 4 members on rank 0, found $n"; exit 1; }
  grep -q "0 breaks" "$work/$mode.summary" || { echo "FAIL: $mode: chains broke"; exit 1; }
  # the members' source lines, rank 0, in order
  sed -n '/^Chains/,/^Ranks/p' "$work/$mode.summary" | grep -A4 "rank 0 chain" |
    grep -o '[A-Za-z0-9_./-]*\.c:[0-9]*' > "$work/$mode.lines"
  grep -q 'sor_exchange.c:' "$work/$mode.lines" || { echo "FAIL: $mode: no source lines"; exit 1; }
done
diff "$work/preload.lines" "$work/inject.lines" || { echo "FAIL: the injection modes found different chains"; exit 1; }
echo "No Errors"
