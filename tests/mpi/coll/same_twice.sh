#!/bin/sh
# same_twice.sh command...: runs an MPI job twice, the second time with a different waiting
# policy (AUTOOPT_YIELD_SPINS), so that messages arrive in other orders; both runs must pass
# and print the same "digest of the double sums" line (AUTOOPT_REPRODUCIBLE=1 run to run).
# SPDX-License-Identifier: GPL-2.0-or-later
out1=$(AUTOOPT_YIELD_SPINS=0 "$@" 2>&1) || { printf '%s\n' "$out1"; echo "same_twice: first run failed"; exit 1; }
out2=$(AUTOOPT_YIELD_SPINS=50 "$@" 2>&1) || { printf '%s\n' "$out2"; echo "same_twice: second run failed"; exit 1; }
d1=$(printf '%s\n' "$out1" | grep '^digest of the double sums')
d2=$(printf '%s\n' "$out2" | grep '^digest of the double sums')
printf '%s\n%s\n' "$d1" "$d2"
if [ -z "$d1" ] || [ "$d1" != "$d2" ]; then echo "same_twice: the results differ between runs"; exit 1; fi
echo "same_twice: identical results, No Errors"
