#!/bin/sh
# settings_check.sh TOOL MPIEXEC LIB PROGRAM DIR: autoopt-settings --check gives MPI_Init's verdict.
# SPDX-License-Identifier: GPL-2.0-or-later
# For each environment below, PROGRAM (an MPI test that prints "No Errors") runs on 2 ranks
# under LIB: the reference.  Where it runs, --check must say ok; where MPI_Init stops with
# "autoopt: NAME=value: expected ...", --check must exit 1 with the same message, and the
# listing of NAME must show the same reason beside the value.
tool=$1; mpiexec=$2; lib=$3; prog=$4; dir=$5
failed=0; cases=0
mkdir -p "$dir" || exit 1

one() {
    cases=$((cases + 1))
    tout=$(env "$@" "$tool" --check 2>&1); trc=$?
    mout=$(cd "$dir" && env LD_PRELOAD="$lib" "$@" "$mpiexec" -n 2 "$prog" 2>&1); mrc=$?
    want=$(printf '%s\n' "$mout" | sed -n 's/^autoopt: \(AUTOOPT_[A-Z0-9_]*=.*: expected .*\)$/\1/p' | head -n 1)
    got=$(printf '%s\n' "$tout" | sed -n 's/^autoopt-settings: \(AUTOOPT_[A-Z0-9_]*=.*: expected .*\)$/\1/p')
    if [ "$mrc" -eq 0 ] && printf '%s\n' "$mout" | grep -q "No Errors"; then
        if [ "$trc" -ne 0 ] || [ -n "$got" ]; then
            echo "FAIL: $*: MPI_Init accepts, autoopt-settings --check says (status $trc): $tout"
            failed=1
        fi
        return
    fi
    if [ -z "$want" ]; then
        echo "FAIL: $*: the program failed without a settings message:"; printf '%s\n' "$mout"
        failed=1; return
    fi
    if [ "$trc" -ne 1 ] || [ "$got" != "$want" ]; then
        echo "FAIL: $*: MPI_Init: '$want'; autoopt-settings --check (status $trc): '$tout'"
        failed=1; return
    fi
    name=${want%%=*}
    reason=${want#*: expected }
    case $name in AUTOOPT_TUNE_SAVE) return ;; esac   # a rule between two settings, not a value
    if ! env "$@" "$tool" "$name" | grep -qF "BAD: expected $reason"; then
        echo "FAIL: $*: the listing of $name does not show 'expected $reason'"
        failed=1
    fi
}

one AUTOOPT_VERBOSE=loud
one AUTOOPT_SITE_DEPTH=17
one AUTOOPT_CONVERT_MIN=12X
one AUTOOPT_P2P_MODE=fast
one AUTOOPT_TUNE=on
one AUTOOPT_CALIB=guard=5,speed=1
one AUTOOPT_STATS=maybe
one AUTOOPT_TUNE_SAVE=saved.tune
one AUTOOPT_CONVERT_MIN=1M AUTOOPT_CHAINS=unguarded AUTOOPT_CALIB=0 AUTOOPT_TUNE=0
one AUTOOPT_TUNE=online AUTOOPT_TUNE_SAVE=saved.tune AUTOOPT_P2P_MODE=native
if [ "$failed" -ne 0 ]; then exit 1; fi
echo "ok: autoopt-settings --check agrees with MPI_Init in $cases environments"
