#!/bin/bash
# turns-isend.sh: the hand-written MPI_Isend exchange of SOR through autoopt against the same
# calls through PMPI_* (which autoopt does not see), turns in one job (docs/overhead.md).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: tools/overhead/turns-isend.sh BUILD-DIR N JOBS [LIB] [RANKS]
#   N      SOR grid size; each job runs max(400, 2e8/N^2) iterations in turns of 2
#   JOBS   jobs to run; each prints the median over its turns of (isend ÷ isend@pmpi)
#   LIB    libautoopt.so to preload (default BUILD-DIR/src/libautoopt.so)
#   RANKS  ranks on shared memory (default 4), bound to cores, with the yield-when-idle
#          library of BUILD-DIR in both modes (they share each job)
# Prints every job's ratio and the median of the jobs.  Needs an idle machine: other load
# moves the turns of both modes, not the ratio, but widens the spread.  Not part of the suite.
set -eu
if [ $# -lt 3 ]; then
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
build=$1 n=$2 jobs=$3
lib=${4:-$build/src/libautoopt.so}
ranks=${5:-4}
yield=$build/tools/libautoopt-yield.so
sor=$build/examples/sor
for f in "$lib" "$yield" "$sor"; do
    [ -e "$f" ] || { echo "turns-isend.sh: $f: not built" >&2; exit 1; }
done
iters=$(( 200000000 / (n * n) ))
[ "$iters" -ge 400 ] || iters=400
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# sor -n $n -i $iters -b 2 -m isend,isend@pmpi, $ranks ranks, LD_PRELOAD=$lib"
for j in $(seq 1 "$jobs"); do
    mpiexec.mpich -n "$ranks" -bind-to core -genv LD_PRELOAD "$lib:$yield" \
        "$sor" -n "$n" -i "$iters" -b 2 -m isend,isend@pmpi -t "$tmp/t.$j" >"$tmp/out.$j" 2>&1 \
        || { echo "turns-isend.sh: job $j failed:" >&2; cat "$tmp/out.$j" >&2; exit 1; }
done
python3 - "$tmp" "$jobs" <<'EOF'
import statistics, sys
tmp, jobs = sys.argv[1], int(sys.argv[2])
meds = []
for j in range(1, jobs + 1):
    a = {"isend": [], "isend@pmpi": []}
    for line in open(f"{tmp}/t.{j}"):
        mode, us = line.split()
        a[mode].append(float(us))
    r = [x / y for x, y in zip(a["isend"], a["isend@pmpi"]) if y > 0]
    meds.append(statistics.median(r))
    print(f"job {j}: {len(r)} turn pairs, isend {statistics.median(a['isend']):.2f} us, "
          f"isend@pmpi {statistics.median(a['isend@pmpi']):.2f} us, median ratio {meds[-1]:.4f}")
print(f"median over {jobs} jobs: isend through autoopt / through PMPI = {statistics.median(meds):.4f}"
      f" [{min(meds):.4f}-{max(meds):.4f}]")
EOF
