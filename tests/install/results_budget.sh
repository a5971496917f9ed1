#!/bin/sh
# results_budget.sh SOURCE_DIR: the measurements kept in the tree stay within issue 30's budget:
# docs/results at most 60 files, the source tree (without .git and build folders) at most
# 6 MB.  Raw data beyond that belongs to git history (docs/measurements.md says where).
# SPDX-License-Identifier: GPL-2.0-or-later
src=$1
n=$(find "$src/docs/results" -type f | wc -l)
kb=$(du -sk --exclude=.git --exclude='build*' "$src" | cut -f1)
echo "docs/results: $n files (at most 60); tree: $kb KiB (at most 6144)"
[ "$n" -le 60 ] || { echo "FAIL: docs/results holds $n files, more than 60"; exit 1; }
[ "$kb" -le 6144 ] || { echo "FAIL: the tree holds $kb KiB, more than 6 MB"; exit 1; }
echo "ok: within budget"
