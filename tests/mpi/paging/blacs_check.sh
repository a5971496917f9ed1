#!/bin/sh
# blacs_check.sh LIBS: runs Debian's BLACS testers (C and Fortran) with conversion forced on
# and checks their 22 summary lines each: every one must report 0 FAILED.  The testers end
# with a deliberate BLACS_ABORT, so their exit status (255) is not checked.
# SPDX-License-Identifier: GPL-2.0-or-later
libs=$1
dir=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests/BLACS
[ -x "$dir/xCbtest" ] || { echo "blacs_check: $dir not installed (scalapack-mpi-test)"; exit 77; }
cd "$dir" || exit 1
fail=0
for t in xCbtest xFbtest; do
  out=$(LD_PRELOAD="$libs" AUTOOPT_CONVERT=1 AUTOOPT_CONVERT_MIN=0 timeout 900 mpiexec.mpich -n 4 ./$t 2>&1)
  lines=$(printf '%s\n' "$out" | grep -c "TESTS;")
  good=$(printf '%s\n' "$out" | grep "TESTS;" | grep -c " 0 FAILED")
  printf '%s\n' "$out" | grep "TESTS;"
  echo "blacs_check: $t: $lines summary lines, $good with 0 FAILED"
  if [ "$lines" -ne 22 ] || [ "$good" -ne 22 ]; then
    printf '%s\n' "$out" | tail -n 40
    fail=1
  fi
done
exit $fail
