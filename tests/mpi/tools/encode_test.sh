#!/bin/sh
# encode_test.sh: autoopt-tune encode end to end on the synthetic raw file encode.raw
# (tools.tune.encode.rules, tools.tune.encode.emit-c; docs/tuning.md, "Decision encodings").
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: encode_test.sh rules|emit-c TUNE RAW DIR CC DRIVER
#   rules   every encoding written with -o loads (autoopt's own reader) and routes every grid
#           point and every point between grid points as the encoding's own lookup does
#           (encode --check); the table and the CSV maps are written; bad input and bad
#           options fail with one line and exit status 1 and 2
#   emit-c  the C of every encoding compiles with CC (C11, warnings as errors), and DRIVER
#           gets from it the method the in-memory encoding names at the same points
set -eu
what=$1 tune=$2 raw=$3 dir=$4 cc=$5 driver=$6
rm -rf "$dir" && mkdir -p "$dir"
encodings="exact quadtree:depth=1 quadtree:depth=3 quadtree:depth=3:pad=axis
quadtree:threshold=60 quadtree:depth=2:threshold=80:pad=axis penalty:depth=1 penalty:depth=3
rules rules:limit=4 rules:limit=16"

fail() { echo "encode_test: FAIL: $*"; exit 1; }

# run EXPECTED_STATUS PATTERN ARGS...: the command fails with that status and says PATTERN
run() {
    want=$1 pattern=$2
    shift 2
    if "$tune" encode "$@" >"$dir/err.out" 2>&1; then rc=0; else rc=$?; fi
    [ "$rc" = "$want" ] || { cat "$dir/err.out"; fail "encode $*: exit $rc, expected $want"; }
    grep -q -- "$pattern" "$dir/err.out" || { cat "$dir/err.out"; fail "encode $*: no '$pattern'"; }
    echo "exit $rc: $(head -n 1 "$dir/err.out")"
}

case $what in
rules)
    i=0
    for e in $encodings; do
        i=$((i + 1))
        "$tune" encode -o "$dir/$i.tune" --encoding "$e" --check "$raw" >"$dir/$i.log" 2>&1 ||
            { cat "$dir/$i.log"; fail "$e: the file does not route as the encoding"; }
        grep -q ' 0 mismatches$' "$dir/$i.log" || { cat "$dir/$i.log"; fail "$e: no check"; }
        echo "$e: $(cat "$dir/$i.log")"
    done
    # imamura_hybrid1 with j = 0 is written with its parameter (its default is j = 1)
    "$tune" encode -o "$dir/h.tune" --encoding exact --coll bcast "$raw"
    grep -q 'imamura_hybrid1:j=0' "$dir/h.tune" || fail "imamura_hybrid1:j=0 not in the file"
    # barrier: bytes 0-inf only
    sed -n '/^collective barrier/,$p' "$dir/1.tune" | grep '^    bytes' | grep -v 'bytes 0-inf' &&
        fail "a barrier rule that is not bytes 0-inf"
    "$tune" encode --table "$raw" >"$dir/table.md"
    grep -q '^| penalty:depth=4 |' "$dir/table.md" || fail "the default table has no penalty:depth=4"
    grep -q '^| rules:limit=16 |' "$dir/table.md" || fail "the default table has no rules:limit=16"
    "$tune" encode --dump-map "$dir/maps" --quadtree 3 --pad axis --rules 16 "$raw"
    [ "$(sed -n 1p "$dir/maps/bcast.map.csv")" = "# autoopt-tune encode map bcast" ] &&
        [ "$(sed -n 2p "$dir/maps/bcast.map.csv")" = \
          "encoding,ranks,bytes,method,time_us,best_us,penalty_pct" ] ||
        fail "bcast.map.csv: not the documented header"
    # 7 x 20 = 140 points of bcast (none dropped) for each encoding
    [ "$(grep -c '^quadtree:depth=3:pad=axis,' "$dir/maps/bcast.map.csv")" = 140 ] ||
        fail "bcast.map.csv: expected a row per measured point"
    printf 'autoopt-tune-raw 1\n# c\nm bcast linear 0 2 1 x 1 1 5\n' >"$dir/bad.raw"
    run 1 "bad.raw:3: median_us: not a number >= 0" "$dir/bad.raw"
    printf 'autoopt-tuning 1\n' >"$dir/notraw.raw"
    run 1 "notraw.raw:1: expected 'autoopt-tune-raw 1'" "$dir/notraw.raw"
    run 1 "cannot open the raw file" "$dir/absent.raw"
    run 1 "no measurements of 'reduce'" --coll reduce "$raw"
    run 2 "--quadtree: '0' is not a list of integers 1..32" --quadtree 0 "$raw"
    run 2 "--threshold: '120' is not a list of percentages" --threshold 120 "$raw"
    run 2 "--rules: 'none' is not a list of rule limits" --rules none "$raw"
    run 2 "--pad: 'diag'" --pad diag "$raw"
    run 2 "unknown encoding 'octree'" -o "$dir/x.tune" --encoding octree "$raw"
    run 2 "need --encoding NAME" -o "$dir/x.tune" "$raw"
    run 2 "unknown option '--depth'" --depth 3 "$raw"
    run 2 "give at least one raw file" --table
    echo "ok: every encoding loads and routes as its lookup"
    ;;
emit-c)
    i=0
    for e in $encodings; do
        i=$((i + 1))
        "$tune" encode --emit-c "$dir/$i.c" --check-points "$dir/$i.pts" --encoding "$e" "$raw"
        "$cc" -std=c11 -pedantic -Wall -Wextra -Wmissing-prototypes -Werror -o "$dir/$i" \
            "$dir/$i.c" "$driver" || fail "$e: the C does not compile"
        "$dir/$i" "$dir/$i.pts" || fail "$e: the C does not decide as the encoding"
    done
    echo "ok: the C of every encoding compiles and decides as the encoding"
    ;;
*)
    echo "usage: encode_test.sh rules|emit-c TUNE RAW DIR CC DRIVER" >&2
    exit 2
    ;;
esac
