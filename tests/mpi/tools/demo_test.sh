#!/bin/sh
# autoopt-demo end to end, small, twice.  First as the README runs it: ring, the examples
# natively and under autoopt, then bucket-sort native and under the table shipped with autoopt
# (collectives/tables/builtin.tune).  Then with --tune: autoopt-tune for bucket-sort's
# collectives first, its file used instead.  Passes when both exit 0, the examples' checksums
# were identical in every run, the tuned bucket-sort took an algorithm from the shipped table
# (the 10-s tuning under a loaded test run may measure nothing and write only native), and
# each run ends with bucket-sort's results identical in every run.
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: demo_test.sh AUTOOPT-DEMO OUT-FILE
set -u
demo=$1 out=$2
fail() { echo "FAIL: $*"; exit 1; }
same_ok() {    # file label: bucket-sort's results identical in every run, at the end
    tail -n 1 "$1" | grep -Eq '^  results: identical in every run \(keys=[0-9]+ .*check=ok\)$' \
        || fail "$2: the demo does not end with bucket-sort's results identical in every run"
}
"$demo" -n 4 --size 128 --iters 20 --reps 2 --keys 4096 --sort-iters 3 >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || fail "autoopt-demo exit $rc"
grep -q '^  checksums: identical bit for bit in every run' "$out" \
    || fail "no 'checksums: identical' line for SOR"
grep -q '^== tuned collectives: the table shipped with autoopt' "$out" \
    || fail "the demo did not use the shipped table"
grep -Eq '^    (alltoall|alltoallv|allreduce): [a-z0-9_]+ \(tuning file\)$' "$out" \
    || fail "no collective of the tuned bucket-sort took its algorithm from the table"
same_ok "$out" "shipped table"

"$demo" -n 4 --examples sor --size 128 --iters 20 --reps 2 --keys 4096 --sort-iters 3 \
    --tune --tune-budget 10 >"$out.tune" 2>&1
rc=$?
cat "$out.tune"
[ $rc -eq 0 ] || fail "autoopt-demo --tune exit $rc"
grep -q '^  autoopt-tune: wrote ' "$out.tune" || fail "--tune: autoopt-tune wrote no tuning file"
same_ok "$out.tune" "--tune"
echo "ok: demo ran tuned, results identical"
