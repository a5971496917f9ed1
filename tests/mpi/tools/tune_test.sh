#!/bin/sh
# tune_test.sh: autoopt-tune end to end (tools.tune.rules, tools.tune.resume, tools.tune.errors, ...).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: tune_test.sh rules|comms|shape|resume|slots|errors|budget|paths TUNE CALLS LIBAUTOOPT MPIEXEC DIR CHECK_PY YIELD
#   rules   a short tuning run of bcast and allgather writes a file that autoopt loads; a run
#           with it uses, for every call, the algorithm of the file's rule (tune_check.py)
#   comms   the same on 3 ranks with --comm-sizes 2,3 (yield-when-idle: 3 ranks, 2 cores): one
#           ranks block per size under each collective
#   shape   --host-shape on 2 ranks of one host: every block says 'hosts 1-1 ppn 2-2' in a
#           version 2 file, and autoopt, which finds that shape, follows its rules call by call
#   resume  a run killed part-way and resumed with --resume keeps every line it had written,
#           measures nothing twice, and ends with the same grid points as a run never stopped
#   slots   no tuner: a program that calls bcast and allgather at five sizes in turn, three
#           times, under slots.tune, whose sizes share remembered decisions' slots with
#           different rules, runs every call with its rule's algorithm
#   errors  a corrupt or foreign raw file (a NUL byte on a middle line among them, version 1,
#           a line without the back-to-back estimate), an existing raw file without --resume and
#           a bad option each stop the run with one line naming the problem
#   budget  a --budget that ends before a point is decided says so on one line of stderr, under
#           --quiet too, naming the point and about how much more budget it needed
#   paths   -o or --raw naming a FIFO, a character device or a directory is refused before any
#           measurement, one line naming the option and the path, and the file stays what it
#           was; an option's value that starts with '-' (-o --quiet) and --sizes 0-0 are
#           refused with what is wrong
set -eu
what=$1 tune=$2 calls=$3 lib=$4 mpiexec=$5 dir=$6 check=$7 yield=$8
# Every job preloads the yield-when-idle library, as every MPI test job of 2 ranks or more does
# (docs/testing.md): the suite runs beside it, and busy-polling tuners took 3-6 times longer.
rm -rf "$dir" && mkdir -p "$dir"
args="--coll bcast,allgather --sizes 1-16K --min-reps 3 --max-reps 5 --quiet"
sizes="1 3 4 100 1000 3000 4096 5000 16384 20000"

fail() { echo "FAIL: $*"; exit 1; }
expect() {   # expect STATUS PATTERN command...: one line of output matching PATTERN
    st=$1 pat=$2; shift 2
    set +e; out=$("$@" 2>&1); got=$?; set -e
    echo "$out" | grep -q -- "$pat" || fail "expected '$pat' from '$*', got: $out"
    [ "$got" = "$st" ] || fail "expected exit status $st from '$*', got $got: $out"
    echo "ok ($got): $(echo "$out" | grep -- "$pat" | head -n 1)"
}

case $what in
budget)
    set +e
    "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" --coll alltoall --sizes 512K-512K \
        --budget 1 --min-reps 20 --quiet -o "$dir/t.tune" 2> "$dir/err"
    st=$?
    set -e
    cat "$dir/err"
    [ "$st" = 0 ] || fail "exit status $st"
    grep -q '^autoopt-tuning' "$dir/t.tune" || fail "no tuning file written"
    [ "$(wc -l < "$dir/err")" = 1 ] || fail "expected one line on stderr"
    grep -q "^autoopt-tune: --budget 1 s ran out before 1 grid point was decided (no rule: it runs native): alltoall@2:524288; .* [0-9]* s more would measure it (e.g. --budget [0-9]*)$" "$dir/err" ||
        fail "the budget's end is not said"
    echo "ok: the budget's end named the point and the budget it needed"
    ;;
paths)
    cd "$dir"      # a value taken for a file name would be written here
    small="--coll barrier --quiet"
    mkfifo "$dir/fifo"
    mkdir "$dir/dir"
    kinds="fifo dir"
    if [ "$(id -u)" = 0 ]; then
        mknod "$dir/null" c 1 3
        kinds="$kinds null"
    fi
    for k in $kinds; do
        expect 1 "^autoopt-tune: -o: $dir/$k: " "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" \
            $small --raw "$dir/r-$k.raw" -o "$dir/$k"
        [ "$(echo "$out" | wc -l)" = 1 ] || fail "-o $k: expected one line, got: $out"
        [ ! -e "$dir/r-$k.raw" ] || fail "-o $k: measured before refusing (the raw file exists)"
        expect 1 "^autoopt-tune: --raw: $dir/$k: " "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" \
            "$tune" $small --raw "$dir/$k" -o "$dir/t-$k.tune"
        [ "$(echo "$out" | wc -l)" = 1 ] || fail "--raw $k: expected one line, got: $out"
        [ ! -e "$dir/t-$k.tune" ] || fail "--raw $k: a tuning file was written"
    done
    [ -p "$dir/fifo" ] || fail "the FIFO was replaced"
    [ -d "$dir/dir" ] || fail "the directory was replaced"
    [ ! -e "$dir/null" ] || [ -c "$dir/null" ] || fail "the device was replaced"
    expect 2 "^autoopt-tune: -o '--quiet': expected a file name, not an option" \
        "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" --coll barrier -o --quiet
    [ ! -e ./--quiet ] || fail "a file named --quiet was written"
    expect 2 "^autoopt-tune: --raw '--resume': expected a file name, not an option" \
        "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" --coll barrier --raw --resume
    expect 2 "^autoopt-tune: --sizes '0-0': HI must be at least 1" \
        "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" --sizes 0-0
    echo "ok: every bad path refused before measuring"
    ;;
slots)
    sizes="8 20 40 3000 6000 8 20 40 3000 6000 8 20 40 3000 6000"
    t=$(dirname "$0")/slots.tune
    env AUTOOPT_TUNING="$t" AUTOOPT_STATS="$dir/s.json" LD_PRELOAD="$lib:$yield" \
        "$mpiexec" -n 3 "$calls" $sizes
    python3 "$check" "$t" "$dir/s.json" 3 $sizes
    ;;
rules)
    "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $args -o "$dir/t.tune"
    grep -v '^#' "$dir/t.tune"
    env AUTOOPT_TUNING="$dir/t.tune" AUTOOPT_STATS="$dir/s.json" LD_PRELOAD="$lib:$yield" \
        "$mpiexec" -n 2 "$calls" $sizes
    python3 "$check" "$dir/t.tune" "$dir/s.json" 2 $sizes
    ;;
comms)
    "$mpiexec" -n 3 -genv LD_PRELOAD "$yield" "$tune" $args --comm-sizes 2,3 -o "$dir/t.tune"
    grep -v '^#' "$dir/t.tune"
    for c in bcast allgather; do
        blocks=$(sed -n "/^collective $c\$/,/^collective/p" "$dir/t.tune" | grep -c '^  ranks')
        [ "$(grep -c "^collective $c\$" "$dir/t.tune")" = 1 ] && [ "$blocks" = 2 ] ||
            { echo "FAIL: $c: expected one collective line with 2 ranks blocks"; exit 1; }
    done
    env AUTOOPT_TUNING="$dir/t.tune" AUTOOPT_STATS="$dir/s.json" LD_PRELOAD="$lib:$yield" \
        "$mpiexec" -n 3 "$calls" $sizes
    python3 "$check" "$dir/t.tune" "$dir/s.json" 3 $sizes
    ;;
shape)
    "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $args --host-shape -o "$dir/t.tune"
    grep -v '^#' "$dir/t.tune"
    grep -q '^autoopt-tuning 2$' "$dir/t.tune" || { echo "FAIL: not a version 2 file"; exit 1; }
    total=$(grep -c '^  ranks' "$dir/t.tune")
    shaped=$(grep -c '^  ranks 2-2 hosts 1-1 ppn 2-2$' "$dir/t.tune")
    [ "$total" -ge 2 ] && [ "$shaped" = "$total" ] ||
        { echo "FAIL: $shaped of $total ranks blocks carry 'hosts 1-1 ppn 2-2'"; exit 1; }
    env AUTOOPT_TUNING="$dir/t.tune" AUTOOPT_STATS="$dir/s.json" LD_PRELOAD="$lib:$yield" \
        "$mpiexec" -n 2 "$calls" $sizes
    python3 "$check" "$dir/t.tune" "$dir/s.json" 2 $sizes
    ;;
resume)
    # the same grid, measured once without a stop and once stopped and resumed; one
    # collective is enough to stop in the middle of (a third of the time of two)
    args="--coll bcast --sizes 1-16K --min-reps 3 --max-reps 5 --quiet"
    "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $args --raw "$dir/full.raw" -o "$dir/full.tune"
    # stopped with SIGKILL once it has written 60 measurements
    "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $args --raw "$dir/part.raw" -o "$dir/part.tune" &
    pid=$!
    count() { c=$(grep -c '^m ' "$1" 2>/dev/null) || true; echo "${c:-0}"; }
    while kill -0 $pid 2>/dev/null && [ "$(count "$dir/part.raw")" -lt 60 ]; do
        sleep 0.05
    done
    kill -KILL $pid 2>/dev/null || { echo "FAIL: the run ended before it could be stopped"; exit 1; }
    wait $pid 2>/dev/null || true
    sleep 1   # the ranks go with their launcher
    cp "$dir/part.raw" "$dir/before.raw"
    n=$(count "$dir/before.raw")
    echo "stopped after $n measurements"
    "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $args --raw "$dir/part.raw" --resume -o "$dir/part.tune"
    python3 - "$dir/before.raw" "$dir/part.raw" "$dir/full.raw" <<'PY'
import sys
before, after, full = (open(p).read() for p in sys.argv[1:])
# a stopped run may leave its last line incomplete; everything complete before it stays
complete = before[:before.rfind("\n") + 1]
assert after.startswith(complete), "the resumed run changed lines written before the stop"
def keys(text):
    return [tuple(l.split()[1:6]) for l in text.splitlines() if l.startswith("m ")]
k = keys(after)
assert len(k) == len(set(k)), "a point was measured twice: %s" % [x for x in k if k.count(x) > 1][:3]
bad = [l for l in after.splitlines() if l.startswith("m ") and len(l.split()) != 14]
assert not bad, "lines run together (a cut-off line not removed?): %s" % bad[:2]
def grid(text):   # native at every grid point: measured whatever the timings were
    return sorted(x for x in keys(text) if x[1] == "native" and int(x[4]) & (int(x[4]) - 1) == 0)
assert grid(after) == grid(full), "grid points differ:\n%s\n%s" % (grid(after), grid(full))
print("ok: resumed run kept %d lines, measured nothing twice, %d grid points as without a stop"
      % (complete.count("\n"), len(grid(after))))
PY
    ;;
errors)
    small="--coll barrier --quiet"
    "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $small --raw "$dir/r.raw" -o "$dir/r.tune"
    expect 1 "exists: give --resume" "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $small --raw "$dir/r.raw" -o "$dir/x"
    cp "$dir/r.raw" "$dir/bad.raw"
    echo "m bcast binomial 0 2 many 1.0 0.9 1.1 5" >> "$dir/bad.raw"
    line=$(wc -l < "$dir/bad.raw")
    expect 1 "bad.raw:$line: bytes: not an integer" \
        "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $small --raw "$dir/bad.raw" --resume -o "$dir/x"
    sed 's/^# setup ranks=2/# setup ranks=64/' "$dir/r.raw" > "$dir/foreign.raw"
    expect 1 "measured on another setup" \
        "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $small --raw "$dir/foreign.raw" --resume -o "$dir/x"
    # a NUL byte on a line in the middle (as a crash can leave): named with its line, and the
    # file left as it was (no measurements appended after the damage)
    nline=$(python3 - "$dir/r.raw" "$dir/nul.raw" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
m = [i for i, l in enumerate(lines) if l.startswith(b"m ")]
assert len(m) >= 3, "too few measurements in %s" % sys.argv[1]
i = m[len(m) // 2]
lines[i] = lines[i][:2] + b"\0" + lines[i][3:]
open(sys.argv[2], "wb").write(b"\n".join(lines))
print(i + 1)
PY
)
    cp "$dir/nul.raw" "$dir/nul.before"
    expect 1 "nul.raw:$nline: a NUL byte at column 3: the line is damaged" \
        "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $small --raw "$dir/nul.raw" --resume -o "$dir/x"
    cmp -s "$dir/nul.raw" "$dir/nul.before" || fail "the damaged raw file was changed"
    printf 'hello\n' > "$dir/other.raw"
    expect 1 "other.raw:1: expected 'autoopt-tune-raw 2'" \
        "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $small --raw "$dir/other.raw" --resume -o "$dir/x"
    # version 1 (barrier-separated times only) is refused for --resume, and so is a line
    # without the back-to-back estimate in a version 2 file
    sed '1s/.*/autoopt-tune-raw 1/' "$dir/r.raw" > "$dir/v1.raw"
    expect 1 "v1.raw:1: a raw file of version 1" \
        "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $small --raw "$dir/v1.raw" --resume -o "$dir/x"
    cp "$dir/r.raw" "$dir/short.raw"
    echo "m barrier native 0 2 0 1.0 0.9 1.1 5" >> "$dir/short.raw"
    line=$(wc -l < "$dir/short.raw")
    expect 1 "short.raw:$line: expected 14 fields: no back-to-back time" \
        "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" $small --raw "$dir/short.raw" --resume -o "$dir/x"
    expect 2 "--sizes '9-3': expected LO-HI" "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" --sizes 9-3
    expect 2 "--comm-sizes: '3' is not a size" "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" --comm-sizes 3
    expect 2 "--resume needs --raw" "$mpiexec" -n 2 -genv LD_PRELOAD "$yield" "$tune" --resume
    [ ! -e "$dir/x" ] || fail "a failed run left a tuning file"
    echo "ok: every bad input named"
    ;;
esac
