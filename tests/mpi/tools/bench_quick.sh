#!/bin/sh
# autoopt-bench's smoke run on shared memory (--quick: three examples in every default mode,
# small sizes), with the tuned mode's tuning file written by autoopt-tune.  First three dry runs
# check the plan: with bucket-sort, householder and fft the tuning run comes before the runs and
# every tuned run names its file; with sor alone nothing is tuned; --tuning FILE replaces the
# tuning.  Then the smoke run: it passes when the report names the file autoopt-tune wrote,
# the file and its raw measurements exist, and every tuned bucket-sort and householder run
# was measured with that file (summary.csv).
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: bench_quick.sh AUTOOPT-BENCH OUT-DIR
set -u
bench=$1 out=$2
tune=$out/tune-shm.tune
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out" "$out.dry"

"$bench" --quick --platform shm --dry-run --out "$out" >"$out.dry" || fail "dry run: exit $?"
want="autoopt-tune --coll allreduce,bcast,alltoall,alltoallv --sizes 4-131072 --budget 15 .* -o $tune"
head -n 1 "$out.dry" | grep -q "$want\$" \
    || fail "dry run: the first command is not the tuning run: $(head -n 1 "$out.dry")"
tuned=$(grep -c 'AUTOOPT_COLLECTIVES 1' "$out.dry")
with_file=$(grep -c "AUTOOPT_COLLECTIVES 1 -genv AUTOOPT_TUNE off -genv AUTOOPT_TUNING $tune " "$out.dry")
[ "$tuned" -ge 4 ] && [ "$tuned" -eq "$with_file" ] \
    || fail "dry run: $with_file of $tuned tuned runs name $tune"
"$bench" --quick --platform shm --example sor --dry-run --out "$out" >"$out.dry" \
    || fail "dry run, sor: exit $?"
! grep -q 'autoopt-tune\|AUTOOPT_TUNING' "$out.dry" || fail "dry run, sor: tunes or names a file"
echo 'autoopt-tuning 1' >"$out.given"
"$bench" --quick --platform shm --tuning "$out.given" --dry-run --out "$out" >"$out.dry" \
    || fail "dry run, --tuning: exit $?"
! grep -q 'autoopt-tune' "$out.dry" && grep -q "AUTOOPT_TUNING $out.given " "$out.dry" \
    || fail "dry run, --tuning: tunes, or the tuned runs do not name the given file"
rm -f "$out.dry" "$out.given"

# The smoke run itself: the examples whose tuned mode matters (bucket-sort, householder) and
# sor at one size; the other examples and sizes run in examples.* and in the dry runs above.
# --wait-idle 0: beside the rest of the suite the machine is never idle, and waiting for it
# only stretched the test by two minutes (the report marks its tables BUSY; no time is judged).
"$bench" --quick --platform shm --example sor,bucket-sort,householder --sizes sor=128 \
    --wait-idle 0 --out "$out"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "autoopt-bench exit $rc"
grep -q "^- \*\*shm\*\*: \`$tune\`, written by autoopt-tune for this run" "$out/report.md" \
    || fail "the report does not name $tune as written by autoopt-tune"
grep -q '^autoopt-tuning 2$' "$tune" || fail "$tune is not a tuning file"
head -n 1 "$out/tune-shm.raw" | grep -q '^autoopt-tune-raw 2$' || fail "no raw file"
grep -q '^autoopt-tune: wrote ' "$out/tune-shm.log" || fail "no 'wrote' line in tune-shm.log"
# summary.csv (CRLF lines): the tuned rows of bucket-sort and householder are measured, with
# the file
rows=$(grep -E '^shm,(bucket-sort|householder),[0-9]+,tuned,' "$out/summary.csv" | tr -d '\r')
echo "$rows"
[ "$(echo "$rows" | wc -l)" -eq 2 ] || fail "expected 2 tuned rows of bucket-sort and householder"
echo "$rows" | grep -Ev "^shm,[a-z-]+,[0-9]+,tuned,5,[0-9.]+,.*,ok,,$tune\$" \
    && fail "a tuned row was not measured in 5 repetitions with $tune"
echo "ok: tuned mode measured with the tuner's file"
