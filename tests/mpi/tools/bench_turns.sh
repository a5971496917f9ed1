#!/bin/sh
# autoopt-bench's turns mode end to end on shared memory: one sor job per repetition runs the
# MPI_Sendrecv exchange under autoopt chains and, in turns, the hand-written MPI_Isend and
# native exchanges through PMPI_*.  Passes when the report has a measured ratio and interval
# for the turns row of the goal table and every repetition's per-turn file exists.
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: bench_turns.sh AUTOOPT-BENCH OUT-DIR
set -u
bench=$1 out=$2
rm -rf "$out"
# --wait-idle 0: no time is judged here, and the suite beside it keeps the machine busy.
"$bench" --quick --platform shm --example sor --mode turns --sizes sor=64 --reps 5 --wait-idle 0 \
    --out "$out" || { rc=$?; [ $rc -eq 77 ] && exit 77; echo "FAIL: autoopt-bench exit $rc"; exit 1; }
row=$(grep '^| chains ÷ isend, turns in one job |' "$out/report.md")
echo "$row"
echo "$row" | grep -Eq '\| [0-9]+\.[0-9]{3} \[[0-9]+\.[0-9]{3}–[0-9]+\.[0-9]{3}\] \|$' \
    || { echo "FAIL: no ratio with an interval in the turns row of $out/report.md"; exit 1; }
n=$(ls "$out"/turns/shm-sor-64-*.txt 2>/dev/null | wc -l)
[ "$n" -eq 5 ] || { echo "FAIL: $n per-turn files in $out/turns, expected 5"; exit 1; }
# every job ran all three exchanges for the same number of turns
for f in "$out"/turns/*.txt; do
    counts=$(awk '{ c[$1]++ } END { for (m in c) print c[m] }' "$f" | sort -u | wc -l)
    modes=$(awk '{ print $1 }' "$f" | sort -u | tr '\n' ' ')
    [ "$counts" -eq 1 ] && [ "$modes" = "isend@pmpi sendrecv sendrecv@pmpi " ] \
        || { echo "FAIL: $f: modes '$modes' with unequal turn counts"; exit 1; }
done
echo "ok: turns mode measured"
