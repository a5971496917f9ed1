#!/bin/sh
# autoopt-demo end to end, small: ring, SOR natively and under autoopt, then the tuning part
# (autoopt-tune for bucket-sort's collectives, bucket-sort native and tuned).  Passes when the
# demo exits 0, SOR's checksums were identical in every run, a tuned run took an algorithm
# from the tuning file the demo's autoopt-tune wrote, and the demo ends with bucket-sort's
# results identical in every run.
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: demo_test.sh AUTOOPT-DEMO OUT-FILE
set -u
demo=$1 out=$2
fail() { echo "FAIL: $*"; exit 1; }
"$demo" -n 4 --size 128 --iters 20 --reps 2 --keys 4096 --sort-iters 3 --tune-budget 10 \
    >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || fail "autoopt-demo exit $rc"
grep -q '^  checksums: identical bit for bit in every run' "$out" \
    || fail "no 'checksums: identical' line for SOR"
grep -q '^  autoopt-tune: wrote ' "$out" || fail "autoopt-tune wrote no tuning file"
grep -Eq '^    (alltoall|alltoallv|allreduce): [a-z0-9_]+ \(tuning file\)$' "$out" \
    || fail "no collective of the tuned bucket-sort took its algorithm from the tuning file"
tail -n 1 "$out" | grep -Eq '^  results: identical in every run \(keys=[0-9]+ .*check=ok\)$' \
    || fail "the demo does not end with bucket-sort's results identical in every run"
echo "ok: demo ran tuned, results identical"
