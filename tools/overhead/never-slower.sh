#!/bin/bash
# never-slower.sh: the default configuration against native MPI and hand-written code on every
# example (issue 28's goals table), on shared memory.  Turns within one job where the example
# supports them (sor, cg, multigrid, ring, fft: the blocking exchange under autoopt, the same code
# through PMPI_* and the hand-written MPI_Isend code take turns of -b iterations on the same
# ranks); bucket-sort alternates separate runs, native and under autoopt, REPS times.
# Each turn example runs REPS times under the default and REPS times with AUTOOPT_DISABLE=1,
# alternating: the second is the instrument's zero (the blocking code through autoopt's
# wrappers doing nothing against the same code through PMPI_*: the two compiled copies and the
# order of the turns alone), and the summary line gives the median of each ratio.
# The turns of a round run in -m order and the next round's in reverse, and every turn example
# starts with -W untimed iterations through PMPI_* (about a quarter of a second or a quarter
# of the run): a run's first iterations are its slowest, and before both, the zero of sor
# n=2048 was 1.04-1.14 for the mode that went first.
# Every mode runs with the yield-when-idle library when the ranks outnumber the cores.
# With --cluster every job runs on the emulated cluster (autoopt-netcluster run: one rank per
# host, 100 Mbit/s, one switch; its --yield auto), with iteration counts for its speed.
# The cache of decisions (docs/cache.md): --cache first gives every default run an empty cache
# (a program's first run on a machine); --cache second gives each example a cache of its own,
# written by one untimed default run before its measured runs (the second run and later); with
# neither, the runs use the user's cache (AUTOOPT_CACHE or its default) as it is.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: tools/overhead/never-slower.sh [--cluster] [--cache first|second] BUILD_DIR [NP] [REPS]
set -euo pipefail
usage="usage: never-slower.sh [--cluster] [--cache first|second] BUILD_DIR [NP] [REPS]"
cluster=0 cache=""
while [ $# -gt 0 ]; do
    case "$1" in
    --cluster) cluster=1; shift ;;
    --cache) cache=${2:-}; shift 2 || { echo "$usage" >&2; exit 2; }
             case "$cache" in first|second) ;; *) echo "never-slower.sh: --cache: '$cache' is not first or second" >&2; exit 2 ;; esac ;;
    -*) echo "never-slower.sh: unknown option '$1'; $usage" >&2; exit 2 ;;
    *) break ;;
    esac
done
build=$(cd "${1:?$usage}" && pwd)
np=${2:-$((cluster ? 8 : 4))} reps=${3:-3}
lib=$build/src/libautoopt.so
yield=""
[ "$np" -gt "$(nproc)" ] && [ $cluster = 0 ] && yield=$build/tools/libautoopt-yield.so
mpiexec=${MPIEXEC:-mpiexec.mpich}
ex=$build/examples
pre_aot=$lib${yield:+:$yield}
platform="shared memory, $(nproc) cores, yield-when-idle: $([ -n "$yield" ] && echo on || echo off)"
[ $cluster = 1 ] && platform="emulated cluster (autoopt-netcluster run: 1 rank per host, 100 Mbit/s, one switch, --yield auto), $(nproc) cores"

cachedir=""
if [ -n "$cache" ]; then
    cachedir=$(mktemp -d "${TMPDIR:-/tmp}/never-slower-cache.XXXXXX")
    trap 'rm -rf "$cachedir"' EXIT
    platform="$platform, cache of decisions: $cache run"
fi
# AUTOOPT_CACHE for the runs of one example (LABEL): empty for --cache first, its own otherwise
cache_env() {
    [ -z "$cache" ] && return 0
    local d="$cachedir/$(echo "$1" | tr -c 'A-Za-z0-9\n' _)"
    [ "$cache" = first ] && rm -rf "$d"
    mkdir -p "$d"
    echo "AUTOOPT_CACHE=$d"
}
echo "# never-slower: $(date -u +%FT%TZ), $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?'),"\
     "$np ranks, $platform, load $(cut -d' ' -f1-3 /proc/loadavg)"
launch() {   # PRELOAD "VAR=VALUE..." program args...: one job, native when PRELOAD is empty
    local pre=$1 setting=$2 e envs=()
    shift 2
    for e in $setting; do envs+=(--env "$e"); done
    if [ $cluster = 1 ]; then
        "$build/bin/autoopt-netcluster" run -n "$np" ${pre:+--preload "$pre"} "${envs[@]}" -- "$@"
    else
        env $setting ${pre:+LD_PRELOAD="$pre"} "$mpiexec" -n "$np" "$@"
    fi
}
one_turn() {   # VAR=VALUE program args... -> "default/native isend/native" of one job (turn lines: stderr)
    local setting=$1 out
    shift
    out=$(launch "${pre_aot}" "$setting" "$@" 2>&1) || { echo "$out" >&2; exit 1; }
    echo "$out" | grep -E "turn mode=" | sed "s|^|  [$setting] |" >&2 || true
    echo "$out" | awk '/turn mode=/ { split($3, m, "=");
        for (i = 1; i <= NF; i++) if ($i ~ /^avg_iter_us=/) { split($i, v, "="); t[m[2]] = v[2] } }
        END { for (k in t) if (k !~ /@pmpi/) a = t[k];
              for (k in t) if (k ~ /@pmpi/ && k !~ /^isend|^overlap/) n = t[k];
              for (k in t) if (k ~ /^isend@pmpi/) h = t[k];
              printf "%.3f %.3f\n", a / n, h / n }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
turns() {   # label program args... -> every run's ratios, then the medians
    local label=$1 d z h r line
    shift
    d="" z="" h=""
    [ "$cache" = second ] && one_turn "NEVER_SLOWER=default $(cache_env "$label")" "$@" > /dev/null 2>&1
    for r in $(seq 1 "$reps"); do
        line=$(one_turn "NEVER_SLOWER=default $(cache_env "$label")" "$@")
        d="$d ${line% *}" h="$h ${line#* }"
        line=$(one_turn "AUTOOPT_DISABLE=1" "$@")
        z="$z ${line% *}"
        echo "$label: rep $r default/native ${d##* } disabled/native ${z##* }"
    done
    printf "%s: median of %d: default/native %s  disabled/native %s  isend/native %s\n" "$label" "$reps" \
        "$(echo $d | tr ' ' '\n' | median)" "$(echo $z | tr ' ' '\n' | median)" "$(echo $h | tr ' ' '\n' | median)"
}
# Iterations per mode: each job about 2-4 s on shared memory, 5-20 s on the emulated cluster.
if [ $cluster = 1 ]; then
    sor_iters="128:1000 256:1000 512:600 1024:400 2048:300" cg=300 mg=40 r64=200 r1m=30 bs=20
    fft=8 fft_n=128       # 512 KiB blocks on 8 ranks, about 0.7 s per pair
else
    sor_iters="128:4000 256:2000 512:1000 1024:300 2048:100" cg=600 mg=60 r64=400 r1m=300 bs=50
    fft=40 fft_n=64       # 256 KiB blocks on 4 ranks, about 30 ms per pair
fi
for ni in $sor_iters; do
    n=${ni%:*} i=${ni#*:}
    turns "sor n=$n" "$ex/sor" -n "$n" -i "$i" -W $((i / 4)) -m sendrecv,sendrecv@pmpi,isend@pmpi -b 10
done
turns "cg" "$ex/cg" -i $cg -W $((cg / 4)) -m send,send@pmpi,isend@pmpi -b 10
turns "multigrid" "$ex/multigrid" -i $mg -W $((mg / 4)) -m sendrecv,sendrecv@pmpi,isend@pmpi -b 5
turns "ring 64 KiB" "$ex/ring" -s 65536 -i $r64 -W $((r64 / 4)) -m blocking,blocking@pmpi,isend@pmpi -b 10
turns "ring 1 MiB" "$ex/ring" -s 1048576 -i $r1m -W $((r1m / 4)) -m blocking,blocking@pmpi,isend@pmpi -b 5
turns "fft n=$fft_n" "$ex/fft" -n $fft_n -i $fft -W $((fft / 4)) -m alltoall,alltoall@pmpi,isend@pmpi -b 2

field() { echo "$2" | sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
alternate() {   # label field program args...: native and autoopt runs, alternating
    local label=$1 f=$2 a n line
    shift 2
    [ "$cache" = second ] && launch "$pre_aot" "NEVER_SLOWER=default $(cache_env "$label")" "$@" > /dev/null
    for r in $(seq 1 "$reps"); do
        line=$(launch "$yield" NEVER_SLOWER=native "$@" | grep "$f=")
        n=$(field "$f" "$line")
        line=$(launch "$pre_aot" "NEVER_SLOWER=default $(cache_env "$label")" "$@" | grep "$f=")
        a=$(field "$f" "$line")
        echo "$label: rep $r native $n autoopt $a ratio $(awk -v a="$a" -v n="$n" 'BEGIN { printf "%.3f", a / n }')"
    done
}
alternate "bucket-sort" avg_iter_us "$ex/bucket-sort" -i $bs
