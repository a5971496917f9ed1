#!/bin/sh
# online_roundtrip.sh PYTHON STATS_CHECK TUNING_CHECK DECIDED command...: AUTOOPT_TUNE_SAVE then
# AUTOOPT_TUNING.
# The first run tunes online (at least DECIDED keys decided) and saves its decisions; the file
# must be a tuning file the library
# reads (aot-tuning-check); the second run loads it with online tuning off, and every algorithm
# the file chose must run there (its statistics counter above zero) and no other, for the
# collectives the file has rules for.
# SPDX-License-Identifier: GPL-2.0-or-later
python=$1 stats_check=$2 tuning_check=$3 decided=$4
shift 4
dir=$(mktemp -d "${TMPDIR:-/tmp}/aot-online-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
file=$dir/saved.tune

AUTOOPT_TUNE=online AUTOOPT_TUNE_SAVE=$file "$python" "$stats_check" --output-regex "No Errors" \
    --online-decided "$decided" -- "$@" || { echo "online_roundtrip: the tuning run failed"; exit 1; }
[ -s "$file" ] || { echo "online_roundtrip: $file was not written"; exit 1; }
ls "$dir" | grep -v '^saved.tune$' && { echo "online_roundtrip: a temporary file was left"; exit 1; }
cat "$file"
$tuning_check "$file" || { echo "online_roundtrip: the saved file does not read back"; exit 1; }

# every non-native choice of the file must run in the second job
expects=$(awk '/^collective /{c=$2} /^ *bytes /{split($3, a, ":"); if (a[1] != "native") print "counters.coll." c "." a[1] ">0"}' "$file" | sort -u)
[ -n "$expects" ] || echo "online_roundtrip: every rule chose native"
args=""
for e in $expects; do args="$args --expect $e"; done
# shellcheck disable=SC2086
AUTOOPT_TUNE=off AUTOOPT_TUNING=$file "$python" "$stats_check" --output-regex "No Errors" \
    --expect "counters.coll.online.agreements==0" $args -- "$@" \
    || { echo "online_roundtrip: the run with the saved file failed"; exit 1; }
echo "online_roundtrip: saved, read back and used, No Errors"
