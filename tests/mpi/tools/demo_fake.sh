#!/bin/sh
# autoopt-demo's decisions on a fake build tree (no MPI program, a second or two): its sor is a
# script that prints a result line whose time and checksum depend on whether libautoopt.so
# is preloaded (DEMO_FAKE says how), its libraries are empty files, so that the answers are
# known in advance:
#   mixed     first runs take native's time: "no measurable difference" (an interval of
#             width 0 around 1.000); second runs (their AUTOOPT_CACHE folder says so) half of
#             it: "0.500 x native's time"; both after the minimum of rounds
#   mismatch  autoopt's runs print another checksum: exit 1, both results named
# and the user's AUTOOPT_* variables never reach a run (the fake fails when one does).
# SPDX-License-Identifier: GPL-2.0-or-later
# usage: demo_fake.sh AUTOOPT-DEMO PYTHON-PACKAGE-DIR WORK-DIR
set -u
demo=$1 package=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"
mkdir -p "$work/src" "$work/tools" "$work/examples" "$work/python" || fail "mkdir $work"
: >"$work/src/libautoopt.so"
: >"$work/tools/libautoopt-yield.so"
ln -s "$package/autoopt_tools" "$work/python/autoopt_tools"
cat >"$work/examples/sor" <<'EOF'
#!/bin/sh
# a fake sor for demo_fake.sh
case "${LD_PRELOAD:-}" in *libautoopt.so*) aot=1 ;; *) aot=0 ;; esac
if env | grep -q '^AUTOOPT_\(STATS\|VERBOSE\)='; then
    echo "fake sor: a user's AUTOOPT_ variable reached the run" >&2; exit 1
fi
t=100.0 sum=0x1
if [ "$aot" = 1 ]; then
    case "$DEMO_FAKE/${AUTOOPT_CACHE:-}" in
    mixed/*-second-*) t=50.0 ;;
    mismatch/*) sum=0x2 ;;
    esac
fi
[ "${PMI_RANK:-0}" != 0 ] ||
    echo "sor: n=8 grid=1x2 mode=sendrecv iters=1 avg_iter_us=$t residual=1.0e+00 checksum=$sum"
EOF
chmod +x "$work/examples/sor"
run() {       # DEMO_FAKE -> output in $work/$1.out, status in rc (ctest's AUTOOPT_CACHE=off unset)
    env -u AUTOOPT_CACHE DEMO_FAKE=$1 AUTOOPT_STATS=1 AUTOOPT_VERBOSE=1 "$demo" --build "$work" -n 2 \
        --examples sor --no-explain --min-rounds 2 >"$work/$1.out" 2>&1
    rc=$?
    sed "s/^/[$1] /" "$work/$1.out"
}
run mixed
[ $rc -eq 0 ] || fail "mixed: exit $rc"
[ "$(grep -c '^  round ' "$work/mixed.out")" -eq 2 ] || fail "mixed: not 2 rounds"
grep -q "^  first   no measurable difference (95 % interval 1.000-1.000, 2 rounds)$" \
    "$work/mixed.out" || fail "mixed: no 'no measurable difference' for the first run"
grep -q "^  second  0.500 x native's time (95 % interval 0.500-0.500, 2 rounds): 50.0 % less time$" \
    "$work/mixed.out" || fail "mixed: no 0.500 for the second run"
grep -q '^  settings: .*removed from the environment: AUTOOPT_STATS AUTOOPT_VERBOSE$' \
    "$work/mixed.out" || fail "mixed: the removed variables are not named"
run mismatch
[ $rc -eq 1 ] || fail "mismatch: exit $rc, expected 1"
grep -q "^autoopt-demo: sor: the first run's result differs from native's:$" \
    "$work/mismatch.out" || fail "mismatch: not reported"
grep -q "^    first: residual=1.0e+00 checksum=0x2$" "$work/mismatch.out" \
    || fail "mismatch: the differing result is not shown"
echo "ok: demo decisions on the fake build"
