#!/bin/sh
# builtin_test.sh: a tuning file compiled into the library (tools.tune.builtin).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: builtin_test.sh LIB CALLS MPIEXEC DIR CHECK_PY CHECKER SRCDIR
#   LIB      libautoopt-builtin-test.so, built with SRCDIR/builtin.tune compiled in
#   CHECKER  aot-tuning-check, the build's check of a built-in file
# With AUTOOPT_TUNING unset every call runs the built-in rule's algorithm; a file given with
# AUTOOPT_TUNING overrides it; AUTOOPT_TUNING=none runs everything native; the checker
# rejects a bad file naming its line.  Each run is checked call by call from AUTOOPT_STATS.
set -eu
lib=$1 calls=$2 mpiexec=$3 dir=$4 check=$5 checker=$6 src=$7
rm -rf "$dir" && mkdir -p "$dir"
sizes="1 100 1000 1001 3000 5000"
unset AUTOOPT_TUNING || true

echo "== built in"
env AUTOOPT_STATS="$dir/builtin.json" LD_PRELOAD="$lib" "$mpiexec" -n 2 "$calls" $sizes
python3 "$check" "$src/builtin.tune" "$dir/builtin.json" 2 $sizes

echo "== AUTOOPT_TUNING overrides it"
env AUTOOPT_TUNING="$src/builtin_other.tune" AUTOOPT_STATS="$dir/other.json" LD_PRELOAD="$lib" \
    "$mpiexec" -n 2 "$calls" $sizes
python3 "$check" "$src/builtin_other.tune" "$dir/other.json" 2 $sizes

echo "== AUTOOPT_TUNING=none"
printf 'autoopt-tuning 1\n' > "$dir/empty.tune"
env AUTOOPT_TUNING=none AUTOOPT_STATS="$dir/none.json" LD_PRELOAD="$lib" \
    "$mpiexec" -n 2 "$calls" $sizes
python3 "$check" "$dir/empty.tune" "$dir/none.json" 2 $sizes

echo "== the build's check"
"$checker" "$src/builtin.tune"
if "$checker" "$src/builtin_bad.tune" 2> "$dir/bad.err"; then
    echo "FAIL: aot-tuning-check accepted builtin_bad.tune"; exit 1
fi
cat "$dir/bad.err"
grep -q "builtin_bad.tune:5:" "$dir/bad.err" ||
    { echo "FAIL: the checker's message does not name builtin_bad.tune:5"; exit 1; }
echo "ok: built-in rules used, overridden and turned off as documented"
