#!/bin/sh
# unwrapped_check.sh LIBAUTOOPT LIBMPICH UNWRAPPED_MD: every MPI_ and MPIX_ function the MPI
# library exports is either one of libautoopt's entry points or listed, with its reason, in the
# generated unwrapped.md (issue 55, item 10: MPI-IO was in neither).
# SPDX-License-Identifier: GPL-2.0-or-later
set -eu
aot=$1 mpi=$2 md=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$mpi" | awk '$2 == "T" || $2 == "W" {print $3}' | sed 's/@.*//' |
    grep -E '^MPIX?_' | sort -u > "$tmp/mpi"
nm -D --defined-only "$aot" | awk '{print $3}' | grep -E '^MPIX?_' | sort -u > "$tmp/aot"
grep -o '^| `MPIX\{0,1\}_[A-Za-z0-9_]*`' "$md" | tr -d '|` ' | sort -u > "$tmp/listed"
[ -s "$tmp/mpi" ] || { echo "unwrapped_check: $mpi exports no MPI_ function"; exit 1; }
sort -u "$tmp/aot" "$tmp/listed" > "$tmp/known"
missing=$(comm -23 "$tmp/mpi" "$tmp/known")
if [ -n "$missing" ]; then
    echo "unwrapped_check: neither wrapped nor in $md:"; echo "$missing"; exit 1
fi
echo "unwrapped_check: all $(wc -l < "$tmp/mpi") MPI functions of $mpi are wrapped or listed"
