#!/bin/bash
# quickstart.sh: set up a fresh Debian 12 machine for autoopt, build it, and run either the
# demonstration or the whole test suite.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: ./quickstart.sh demo | test | build   [--no-install] [--werror] [--no-sanitize]
#   demo    install, build, run the examples natively and under autoopt with nothing set, in
#           a first and a second run, until each ratio is known to +-3 % (autoopt-demo)
#   test    install, build, run the whole test suite (ctest), then the sanitizer suite: a
#           second build with AddressSanitizer and UndefinedBehaviorSanitizer (BUILD_DIR-sanitize,
#           built while the first suite runs) and the tests that can run under it
#           (docs/testing.md); --no-sanitize skips it.  Tests run side by side (ctest -j
#           TEST_JOBS); each stage's time is printed
#   build   install and build only
# Environment: BUILD_DIR (default ./build), JOBS (default: cores), TEST_JOBS (default: 2 x JOBS).
set -euo pipefail

usage() { sed -n '2,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//'; }
what=${1:-}
case "$what" in
demo|test|build) shift ;;
-h|--help) usage; exit 0 ;;
*) echo "quickstart.sh: expected 'demo', 'test' or 'build' as the first argument (see --help)" >&2; exit 2 ;;
esac
install=1 werror=OFF sanitize=1
for a in "$@"; do
    case "$a" in
    --no-install) install=0 ;;
    --werror) werror=ON ;;
    --no-sanitize) sanitize=0 ;;
    *) echo "quickstart.sh: unknown option '$a' (see --help)" >&2; exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$here/build}
jobs=${JOBS:-$(nproc)}
test_jobs=${TEST_JOBS:-$((2 * jobs))}
# Prints how long the stage that just ended took.
stage_start=$SECONDS
stage_done() { echo "== $1 took $((SECONDS - stage_start)) s"; stage_start=$SECONDS; }

# Every Debian package autoopt needs to build, test and measure itself.
packages=(build-essential cmake pkg-config python3 gfortran
          mpich libmpich-dev libsigsegv-dev libunwind-dev uthash-dev check libslurm-dev
          iproute2 procps scalapack-mpi-test netpipe-mpich2 libopenmpi-dev
          python3-matplotlib)

if [ "$install" = 1 ]; then
    sudo=""
    if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
    echo "== installing Debian packages: ${packages[*]}"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${packages[@]}"
fi

echo "== building in $build"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAUTOOPT_WERROR=$werror
cmake --build "$build" -j "$jobs"
stage_done "installing and building"

case "$what" in
build) ;;
test)
    sbuild=$build-sanitize slog=$build-sanitize.log
    if [ "$sanitize" = 1 ]; then
        echo "== building the sanitizer build in $sbuild while the suite runs (log: $slog)"
        ( cmake -S "$here" -B "$sbuild" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAUTOOPT_WERROR=$werror \
                -DAUTOOPT_LTO=OFF -DAUTOOPT_SANITIZE=address,undefined &&
          nice -n 10 cmake --build "$sbuild" -j "$jobs" ) > "$slog" 2>&1 &
        spid=$!
    fi
    echo "== running the test suite"
    status=0
    ( cd "$build" && ctest --output-on-failure --timeout 600 -j "$test_jobs" ) || status=1
    stage_done "the test suite"
    if [ "$sanitize" = 1 ]; then
        if ! wait "$spid"; then
            tail -50 "$slog"
            echo "quickstart.sh: the sanitizer build failed (log: $slog)" >&2
            exit 1
        fi
        stage_done "waiting for the sanitizer build"
        echo "== running the sanitizer suite (docs/testing.md, \"Sanitizers\")"
        ( cd "$sbuild" && "$here/tests/sanitize.sh" -j "$test_jobs" ) || status=1
        stage_done "the sanitizer suite"
    fi
    exit $status ;;
demo)
    exec "$build/bin/autoopt-demo" ;;
esac
