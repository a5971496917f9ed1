#!/bin/sh
# tune_export.sh: autoopt-tune export end to end (tools.tune.export.mpich, .ompi).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: tune_export.sh mpich|ompi TUNE RUN MPIEXEC YIELD DIR SRCDIR
#   mpich  exports tests/mpi/tools/export.tune; tune_export_check.py walks the JSON as MPICH
#          does and the rules file as Open MPI does at every point of a grid and compares
#          with the tuning file; then export_run (MPICH) on 3 and 4 ranks prints the same
#          hash of its results with MPICH's own selection and with the exported JSON (MPICH
#          asserts on a key it does not know, and selects nothing where a subtree ends)
#   ompi   export_run built with Open MPI's mpicc and run with Open MPI's own decisions and
#          with the exported rules file: same hash (skipped, exit 77, without Open MPI's
#          development files)
set -eu
what=$1 tune=$2 run=$3 mpiexec=$4 yield=$5 dir=$6 src=$7
rm -rf "$dir" && mkdir -p "$dir"
printf 'autoopt-tuning 1\n' > "$dir/empty.tune"
"$tune" export --mpich "$dir/base.json" "$dir/empty.tune"
"$tune" export --mpich "$dir/out.json" --ompi "$dir/out.conf" "$src/export.tune" > "$dir/report.txt"
grep -q 'mpich: .*: 19 rules exported' "$dir/report.txt" && grep -q 'ompi: .*: 19 rules exported' "$dir/report.txt" ||
    { cat "$dir/report.txt"; echo "FAIL: expected 19 rules exported for MPICH and 19 for Open MPI"; exit 1; }

same_hash() {   # label command...: runs the command with and without the export, compares
    label=$1; shift
    a=$("$@" 2>&1 | tee "$dir/$label-default.txt" | grep '^export_run:') ||
        { cat "$dir/$label-default.txt"; echo "FAIL: $label: default run"; exit 1; }
    b=$(env $EXPORT "$@" 2>&1 | tee "$dir/$label-export.txt" | grep '^export_run:') ||
        { cat "$dir/$label-export.txt"; echo "FAIL: $label: run with the export"; exit 1; }
    echo "$label: default: $a"
    echo "$label: export:  $b"
    [ "$a" = "$b" ] || { echo "FAIL: $label: results differ"; exit 1; }
}

case $what in
mpich)
    python3 "$src/tune_export_check.py" "$src/export.tune" "$dir/base.json" "$dir/out.json" "$dir/out.conf"
    EXPORT="MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$dir/out.json"
    for n in 3 4; do
        MPIR_CVAR_DEVICE_COLLECTIVES=none same_hash "mpich-$n" \
            "$mpiexec" -n $n -genv LD_PRELOAD "$yield" -genv MPIR_CVAR_DEVICE_COLLECTIVES none "$run"
    done
    echo "ok: MPICH runs with the exported selection"
    ;;
ompi)
    command -v mpicc.openmpi >/dev/null 2>&1 && command -v mpiexec.openmpi >/dev/null 2>&1 &&
        [ -n "$(mpicc.openmpi --showme:incdirs 2>/dev/null)" ] &&
        for d in $(mpicc.openmpi --showme:incdirs); do [ -e "$d/mpi.h" ] && break; done &&
        [ -e "$d/mpi.h" ] || { echo "skipped: no Open MPI development files (libopenmpi-dev)"; exit 77; }
    mpicc.openmpi -O1 -o "$dir/export_run_ompi" "$src/export_run.c"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    EXPORT="OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_dynamic_rules_filename=$dir/out.conf"
    for n in 3 4; do
        same_hash "ompi-$n" mpiexec.openmpi --oversubscribe --mca mpi_yield_when_idle 1 \
            --mca btl self,vader -n $n "$dir/export_run_ompi"
    done
    echo "ok: Open MPI runs with the exported rules"
    ;;
esac
