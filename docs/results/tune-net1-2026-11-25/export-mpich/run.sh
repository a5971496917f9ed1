#!/bin/bash
# MPICH alone with the exported selection file against MPICH's default, on the emulated
# cluster (8 ranks, one per host, 100 Mbit/s, yield-when-idle): no autoopt loaded in either.
# autoopt-bench-coll --single times MPI_<Collective> as it is; the two run interleaved,
# ROUNDS rounds each.  usage: run.sh ROUNDS COLLECTIVE...
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
cd "$(dirname "$0")"
top=../../../..
rounds=$1; shift
"$top/build/bin/autoopt-tune" export --mpich net1.json ../net1.tune > export.txt
for r in $(seq 1 "$rounds"); do
    for c in "$@"; do
        for mode in default export; do
            env=""
            [ $mode = export ] && env="MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$PWD/net1.json"
            env $env "$top/build/bin/autoopt-netcluster" run -n 8 -- \
                "$top/build/bin/autoopt-bench-coll" --single --time-per-size 0.1 --max-size 262144 "$c" \
                > "$c-$mode-$r.txt" 2>&1
        done
    done
done
