#!/bin/bash
# sanitize.sh: the test suite of a sanitizer build (-DAUTOOPT_SANITIZE=address,undefined), run
# from its build directory.  docs/testing.md, "Sanitizers", says why each excluded test cannot
# run under the sanitizers.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: cd build-sanitize && ../tests/sanitize.sh [ctest options, e.g. -j4...]
set -euo pipefail
# Every sanitizer error ends the test; autoopt's fault handler must see SIGSEGV first.
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
opts=abort_on_error=1:allow_user_segv_handler=1
# The unit tests and fuzz drivers, with leak checking (tests/lsan.supp: libslurm's own leak of
# a host list it rejects).
status=0
supp=$(cd "$(dirname "$0")" && pwd)/lsan.supp
# Not the Python checks (unit.include_graph, fuzz.trace): nothing of theirs is instrumented.
LSAN_OPTIONS=suppressions=$supp ASAN_OPTIONS=$opts ctest --output-on-failure --timeout 600 -L "unit|fuzz" \
    -E "^unit\.include_graph$|^fuzz\.trace$" "$@" || status=1
# Everything else that can run: MPICH, UCX and mpiexec keep memory to the end of the process,
# so no leak report.  Excluded:
#   tools (bench, validate, netcluster, tune), label netcluster (coll.hier.netcluster.*),
#     coll.bench, coll.bench.tuned, .b2b, .options and .paired: they start runs with their own
#     LD_PRELOAD, without the sanitizer runtimes that an uninstrumented mpiexec needs first;
#   install.consumer: builds a program against the installed, uninstrumented package;
#   external (ScaLAPACK's BLACS tester): uninstrumented programs;
#   native runs: they do not load autoopt;
#   the .baremetal runs (label baremetal): the same programs and the same library as their
#     .preload runs, under another calibration; the guarded path they reach is covered by the
#     forced-guarded runs of paging and chains;
#   paging.false_sharing.stats: it counts faults, and instrumented code makes other accesses;
#   the documents' checks (label docs, docs.*): no C code;
#   the examples' -inject runs (examples.*.inject): the same example and the same library as
#     their .preload runs, entered through the compile-time mpi.h instead; the call-site entry
#     points stay covered by the -inject runs of foundation, paging, chains and fault.
#   paging.syswrap_all: its LD_PRELOAD puts a stub library between autoopt and the C library,
#     without the sanitizer runtimes first;
#   fault.jump_out.*: its handlers recover from NULL stores, which UndefinedBehaviorSanitizer
#     stops first;
#   fault.null.* and fault.overflow.*: they check how an uninstrumented program dies of a real
#     fault (UCX's backtrace, autoopt's stack-overflow line); instrumented, UndefinedBehavior-
#     Sanitizer stops the NULL store first and AddressSanitizer reports the overflow itself.
ASAN_OPTIONS=$opts:detect_leaks=0 ctest --output-on-failure --timeout 600 \
    -LE "unit|fuzz|tools|netcluster|install|external|native|docs|baremetal" \
    -E "^coll\.bench(\.tuned|\.b2b|\.options|\.paired)?$|^paging\.false_sharing\.stats$|^fault\.(null|overflow|jump_out)\.|^paging\.syswrap_all\.|^docs\.|^examples\..*\.inject$" \
    "$@" || status=1
exit $status
