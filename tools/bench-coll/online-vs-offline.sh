#!/bin/bash
# online-vs-offline.sh: online tuning against an offline-tuned file and against MPI's own
# collectives, on one application loop, jobs in turns (docs/online.md).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: tools/bench-coll/online-vs-offline.sh BUILD-DIR TUNING-FILE [RANKS] [JOBS] [ITERS] [OUT]
#                                              [BASELINE-BUILD-DIR] [SEED-FILE]
#   TUNING-FILE  the offline-tuned file (autoopt-tune) for this machine and RANKS
#   RANKS        ranks on shared memory (default 4), yield-when-idle library in every mode
#   JOBS         jobs per mode (default 5), the modes taking turns
#   ITERS        iterations of the loop (default 1000); the steady state is the second half
#   OUT          directory that keeps the raw lines and the online run's saved file
#   BASELINE-BUILD-DIR  another build (the code before a change): its online and seeded modes
#                run as online0 and seeded0, in the same turns, for a before/after comparison
#                under the same load ("" for none)
#   SEED-FILE    the file the seeded modes start from (default TUNING-FILE); give the shipped
#                collectives/tables/builtin.tune to measure what a library built with
#                -DAUTOOPT_BUILTIN_TUNING does under AUTOOPT_TUNE=online with no file of its own
# Modes (all preload BUILD-DIR's libautoopt.so and libautoopt-yield.so):
#   native    AUTOOPT_TUNING=none: MPI's own algorithms
#   offline   AUTOOPT_TUNING=TUNING-FILE
#   online    AUTOOPT_TUNE=online, no tuning file
#   seeded    AUTOOPT_TUNE=online AUTOOPT_TUNING=SEED-FILE: online tuning that starts from
#             the file's choices and explores their neighbourhood
#   fixed     AUTOOPT_TUNING=the file the first online job saved (AUTOOPT_TUNE_SAVE): the same
#             choices as online, without its timing and agreements
# Prints each job's line and, per mode, the median total time and steady-state iteration time,
# and the ratios, of the medians and paired by turn.  Not part of the suite: timing decides
# nothing there.
set -eu
if [ $# -lt 2 ]; then
    sed -n '2,/^set -eu/{/^#/p}' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
build=$1 file=$2 ranks=${3:-4} jobs=${4:-5} iters=${5:-1000} out=${6:-} baseline=${7:-}
seed=${8:-$file}
lib=$build/src/libautoopt.so
yield=$build/tools/libautoopt-yield.so
loop=$build/bin/autoopt-bench-online-loop
lib0=${baseline:+$baseline/src/libautoopt.so}
for f in "$lib" "$yield" "$loop" "$file" "$seed" $lib0; do
    [ -e "$f" ] || { echo "online-vs-offline.sh: $f: not found" >&2; exit 1; }
done
if [ -z "$out" ]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
saved=$out/online-saved.tune
run() {   # mode, env...  (a mode ending in 0 runs the baseline's library)
    local mode=$1 l=$lib
    shift
    case $mode in *0) l=$lib0 ;; esac
    env "$@" mpiexec.mpich -n "$ranks" -genv LD_PRELOAD "$l:$yield" "$loop" "$iters" \
        >"$out/job.out" 2>&1 || { echo "online-vs-offline.sh: $mode failed:" >&2; cat "$out/job.out" >&2; exit 1; }
    local line
    line=$(grep '^total_s ' "$out/job.out")
    echo "$mode $line" | tee -a "$out/raw.txt"
}
echo "# online_loop $iters iterations, $ranks ranks, shared memory, yield-when-idle (tools/yield) in every mode; $(date -u +%FT%TZ); $(uname -n); load average $(cut -d' ' -f1-3 /proc/loadavg)${baseline:+; baseline $baseline}; offline $file; seeded from $seed" | tee "$out/raw.txt"
run online AUTOOPT_TUNE=online AUTOOPT_TUNING=none AUTOOPT_TUNE_SAVE="$saved"
for j in $(seq 1 "$jobs"); do
    run native AUTOOPT_TUNE=off AUTOOPT_TUNING=none
    run offline AUTOOPT_TUNE=off AUTOOPT_TUNING="$file"
    run online AUTOOPT_TUNE=online AUTOOPT_TUNING=none
    run seeded AUTOOPT_TUNE=online AUTOOPT_TUNING="$seed"
    if [ -n "$baseline" ]; then
        run online0 AUTOOPT_TUNE=online AUTOOPT_TUNING=none
        run seeded0 AUTOOPT_TUNE=online AUTOOPT_TUNING="$seed"
    fi
    run fixed AUTOOPT_TUNING="$saved"
done
echo "# end $(date -u +%FT%TZ); load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/raw.txt"
python3 - "$out/raw.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    f = line.split()
    rows.setdefault(f[0], []).append((float(f[2]), float(f[4])))
# the first online job made the saved file; it is counted like the others
med = {m: (statistics.median(t for t, _ in v), statistics.median(s for _, s in v)) for m, v in rows.items()}
print("%-8s %5s %12s %20s" % ("mode", "jobs", "total_s", "steady_us_per_iter"))
modes = ("native", "offline", "online", "seeded", "online0", "seeded0", "fixed")
for m in [m for m in modes if m in rows]:
    print("%-8s %5d %12.4f %20.2f" % (m, len(rows[m]), med[m][0], med[m][1]))
n, off, on, fx, sd = med["native"], med["offline"], med["online"], med["fixed"], med["seeded"]
print("online/offline total %.3f   online/native total %.3f   offline/native total %.3f"
      % (on[0] / off[0], on[0] / n[0], off[0] / n[0]))
print("seeded/offline total %.3f   seeded/native total %.3f   steady seeded/offline %.3f"
      % (sd[0] / off[0], sd[0] / n[0], sd[1] / off[1]))
if "online0" in med:
    print("baseline: online0/offline total %.3f   seeded0/offline total %.3f"
          % (med["online0"][0] / off[0], med["seeded0"][0] / off[0]))
if n[0] > off[0]:
    print("share of the offline margin online keeps: %.0f %%" % (100 * (n[0] - on[0]) / (n[0] - off[0])))
print("steady state: online/fixed %.4f   online/offline %.3f   online/native %.3f"
      % (on[1] / fx[1], on[1] / off[1], on[1] / n[1]))
# paired: the median of the ratios of jobs of one turn (the machine's state drifts between
# turns by more than the differences measured: launches of one mode differ by 10-20 %)
turns = min(len(v) for v in rows.values())
def paired(a, b):
    x, y = rows[a][-turns:], rows[b][-turns:]
    return statistics.median(x[i][0] / y[i][0] for i in range(turns))
print("paired by turn (%d): online/offline %.3f   online/native %.3f   offline/native %.3f   "
      "seeded/offline %.3f" % (turns, paired("online", "offline"), paired("online", "native"),
                               paired("offline", "native"), paired("seeded", "offline")))
if "online0" in rows:
    print("paired by turn (%d): online0/offline %.3f   online/online0 %.3f   seeded0/offline %.3f"
          % (turns, paired("online0", "offline"), paired("online", "online0"),
             paired("seeded0", "offline")))
PY
