#!/bin/sh
# special_files.sh EXPECT_FAIL command...: AUTOOPT_TUNING and AUTOOPT_TOPOLOGY naming a FIFO, a
# socket and a character device.  MPI_Init must stop on every rank with one line naming the
# setting and the file; it must not block in open() on the FIFO (whose writer never comes), so
# every run has 60 seconds.
# SPDX-License-Identifier: GPL-2.0-or-later
expect_fail=$1
shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/aot-special-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
mkfifo "$dir/fifo" || exit 1
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$dir/socket" \
    || exit 1
failed=0
for var in AUTOOPT_TUNING AUTOOPT_TOPOLOGY; do
    for entry in "$dir/fifo|a FIFO" "$dir/socket|a socket" "/dev/null|a character device"; do
        file=${entry%%|*} kind=${entry#*|}
        echo "== $var=$file ($kind)"
        env "$var=$file" "$expect_fail" "^autoopt: $var=$file: not a regular file \\($kind\\)\$" 1 \
            timeout 60 "$@" || failed=$((failed + 1))
    done
done
[ "$failed" = 0 ] || { echo "special_files: $failed of 6 runs not refused as expected"; exit 1; }
echo "special_files: 6 runs refused with one line each, No Errors"
