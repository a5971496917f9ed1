#!/bin/sh
# bench_options.sh BENCH TUNING_DIR: autoopt-bench-coll's bad option values (issue 55, item 9).
# Each must stop the tool before any run, with no header on stdout and one line on stderr that
# names the option and the value and says what is wrong; exit status 2 for a bad value, 1 for
# a bad --tuning file.  Prints "No Errors" or FAIL lines.
# SPDX-License-Identifier: GPL-2.0-or-later
bench=$1; tdir=$2
errors=0
fail() { echo "FAIL: $*"; errors=$((errors + 1)); }
w=$(mktemp -d "${TMPDIR:-/tmp}/aot-bench-options-XXXXXX") || exit 1
trap 'rm -rf "$w"' EXIT

# bad STATUS REGEX OPTION...: the tool stops with STATUS, prints nothing on stdout and one
# stderr line matching REGEX (grep -E).
bad() {
    want=$1 regex=$2; shift 2
    timeout 120 "$bench" --np 2 --min-size 4 --max-size 8 --time-per-size 0.01 "$@" \
        > "$w/out" 2> "$w/err"
    rc=$?
    [ "$rc" = "$want" ] || fail "$*: exit status $rc, expected $want"
    [ ! -s "$w/out" ] || fail "$*: printed on stdout: $(head -c 300 "$w/out")"
    [ "$(grep -c . "$w/err")" = 1 ] || fail "$*: not one line on stderr: $(cat "$w/err")"
    grep -Eq -- "$regex" "$w/err" || fail "$*: the line does not match /$regex/: $(cat "$w/err")"
}

bad 2 "^autoopt-bench-coll: --algs nosuch: unknown algorithm 'nosuch' for allreduce \(known: native, " \
    --algs nosuch allreduce
bad 2 "^autoopt-bench-coll: --algs ring,nosuch: unknown algorithm 'nosuch' for allreduce" \
    --algs ring,nosuch allreduce
for v in nan inf -1 0 x 1e9; do
    bad 2 "^autoopt-bench-coll: --time-per-size $v: expected a number of seconds above 0, at most 3600\$" \
        --time-per-size "$v" allreduce
done
bad 2 "^autoopt-bench-coll: --np 0: expected a whole number 1\.\." --np 0 allreduce
bad 2 "^autoopt-bench-coll: --repeat 2x: expected a whole number 1\.\.64\$" --repeat 2x allreduce
bad 2 "^autoopt-bench-coll: --max-size 99999999999999999999: expected a whole number" \
    --max-size 99999999999999999999 allreduce
bad 2 "^autoopt-bench-coll: collective scatter: expected one of allreduce" scatter
# a bad tuning file: the library's own line, before any run
printf 'autoopt-tuning 1\ncollective allreduce\nranks 1-inf\nbytes 10-5 ring\n' > "$w/range.tune"
bad 1 "^autoopt-bench-coll: --tuning: $w/range.tune:4: bytes 10-5: the low end 10 is above the high end 5" \
    --tuning "$w/range.tune" allreduce
bad 1 "^autoopt-bench-coll: --tuning: .*bad-alg.tune:4: allreduce fastest: unknown algorithm" \
    --tuning "$tdir/bad-alg.tune" allreduce
bad 1 "^autoopt-bench-coll: --tuning: .*$w/none.tune.*No such file" --tuning "$w/none.tune" allreduce

if [ "$errors" -eq 0 ]; then echo "No Errors"; else echo "Found $errors errors"; exit 1; fi
