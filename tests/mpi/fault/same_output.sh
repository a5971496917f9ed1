#!/bin/sh
# same_output.sh LIB COMMAND...: runs COMMAND natively and with LD_PRELOAD=LIB; both must exit
# 0 and print the same standard output (the reference is the native run).  Prints "No Errors"
# when they do, the difference otherwise.
# SPDX-License-Identifier: GPL-2.0-or-later
lib=$1
shift
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
env -u LD_PRELOAD "$@" >"$dir/native" || { echo "native run: exit status $?"; exit 1; }
LD_PRELOAD=$lib "$@" >"$dir/preload" || { echo "preloaded run: exit status $?"; exit 1; }
if diff "$dir/native" "$dir/preload"; then
    echo "$(wc -l <"$dir/native") lines the same"
    echo "No Errors"
else
    echo "the preloaded run differs from the native one (< native, > preload)"
    exit 1
fi
