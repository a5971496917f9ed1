#!/bin/sh
# autoopt-demo end to end, small (--quick: small sizes, 2-3 rounds): sor and bucket-sort
# natively, in a first run (empty cache) and a second run (the first's cache), then bucket-sort
# under the table shipped with autoopt (--table).  Passes when the demo exits 0 (it stops with
# 1 when any run's result differs from native's), states the platform and the waiting policy,
# reports for each example that every run gave native's result and a line per compared mode
# (a ratio or "no measurable difference", with its interval), says what became of the cache,
# and the tuned bucket-sort took an algorithm from the table.  Timing decides nothing.
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: demo_test.sh AUTOOPT-DEMO OUT-FILE
set -u
demo=$1 out=$2
fail() { echo "FAIL: $*"; exit 1; }
"$demo" -n 4 --quick --examples sor,bucket-sort --no-explain --table >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || fail "autoopt-demo exit $rc"
grep -q '^  platform: ' "$out" || fail "no platform line"
grep -q '^  waiting policy: ' "$out" || fail "no waiting policy line"
[ "$(grep -c '^  results: every run gave native'"'"'s ' "$out")" -eq 3 ] \
    || fail "not 3 series whose every result was native's"
interval='(95 % interval [0-9.]+-[0-9.]+, [0-9]+ rounds)'
for m in first second tuned; do
    grep -Eq "^  $m +([0-9.]+ x native's time \\($interval\\)|no measurable difference \\($interval\\))" \
        "$out" || fail "no ratio line for $m"
done
grep -q '^cache: ' "$out" || fail "no cache line"
grep -Eq '^    (alltoall|alltoallv|allreduce): [a-z0-9_]+ \(tuning file\)$' "$out" \
    || fail "no collective of the tuned bucket-sort took its algorithm from the table"
echo "ok: demo ran, every result native's"
