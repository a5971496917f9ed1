#!/bin/sh
# blacs_check.sh LIBS: runs Debian's Fortran BLACS tester with conversion forced on and checks
# its 22 summary lines: every one must report 0 FAILED.  The tester ends with a deliberate
# BLACS_ABORT, so its exit status (255) is not checked.  The C tester runs in the same
# configuration (and compared line by line with its native run) in tools.validate.quick's
# "convert"; it ran here too until the suite had to fit in 20 minutes.
# SPDX-License-Identifier: GPL-2.0-or-later
libs=$1
dir=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests/BLACS
[ -x "$dir/xCbtest" ] || { echo "blacs_check: $dir not installed (scalapack-mpi-test)"; exit 77; }
cd "$dir" || exit 1
fail=0
for t in xFbtest; do
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
