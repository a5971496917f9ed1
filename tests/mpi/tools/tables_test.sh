#!/bin/sh
# tables_test.sh: the table shipped with autoopt (collectives/tables/; tools.tables.builtin).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: tables_test.sh TABLES CHECKER LIB YIELD CALLS MPIEXEC DIR CHECK_PY
#   TABLES   collectives/tables: builtin.tune, its parts and merge_tables.py
#   CHECKER  aot-tuning-check, the build's check of a built-in file
#   LIB      libautoopt.so; YIELD the yield-when-idle library (4 ranks on 2 cores)
# builtin.tune must be what merge_tables.py makes of its parts and must load; a merge of a
# part with itself must be refused by the reader (its blocks overlap); a 4-rank job on this
# host under the table runs, call by call, the algorithms of its 4-rank rules (tune_check.py).
set -eu
tables=$1 checker=$2 lib=$3 yield=$4 calls=$5 mpiexec=$6 dir=$7 check=$8
rm -rf "$dir" && mkdir -p "$dir"
cd "$tables"

echo "== builtin.tune is the merge of its parts"
python3 merge_tables.py one-host.tune netcluster-8.tune netcluster-8-alltoall.tune > "$dir/merged.tune"
if ! diff -u builtin.tune "$dir/merged.tune"; then
    echo "FAIL: builtin.tune differs from merge_tables.py one-host.tune netcluster-8.tune netcluster-8-alltoall.tune"
    exit 1
fi
"$checker" builtin.tune

echo "== a part merged with itself is refused"
python3 merge_tables.py one-host.tune one-host.tune > "$dir/twice.tune"
if "$checker" "$dir/twice.tune" > "$dir/twice.out" 2>&1; then
    echo "FAIL: the reader accepted a table whose blocks overlap"; exit 1
fi
cat "$dir/twice.out"
grep -q "overlaps" "$dir/twice.out" || { echo "FAIL: no overlap named"; exit 1; }

echo "== a 4-rank job on one host follows its rules"
sizes="1 100 1000 5000 20000 100000"
env AUTOOPT_TUNING="$tables/builtin.tune" AUTOOPT_STATS="$dir/stats.json" \
    LD_PRELOAD="$lib:$yield" "$mpiexec" -n 4 "$calls" $sizes
python3 "$check" "$tables/builtin.tune" "$dir/stats.json" 4 $sizes
echo "ok: the shipped table is its parts' merge, loads, and routes a 4-rank job"
