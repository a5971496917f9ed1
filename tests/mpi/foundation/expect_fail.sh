#!/bin/sh
# expect_fail.sh REGEX LINES command...: the command must exit non-zero, and its combined
# output must be exactly LINES lines, one of which matches REGEX (grep -E).
# SPDX-License-Identifier: GPL-2.0-or-later
regex=$1; lines=$2; shift 2
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then echo "expect_fail: exit status 0, expected failure"; exit 1; fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then echo "expect_fail: no line matches /$regex/"; exit 1; fi
n=$(printf '%s\n' "$out" | grep -c .)
if [ "$n" -ne "$lines" ]; then echo "expect_fail: $n lines of output, expected $lines"; exit 1; fi
echo "expect_fail: failed as expected (status $rc)"
