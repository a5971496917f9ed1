#!/bin/sh
# One line per collective from autoopt-bench-coll's tuned table: sizes where tuned <= native,
# the smallest tuned/native, the sizes where tuned lost, and the tool's own within-10 % line.
# usage: summarize-verify.sh FILE...
# SPDX-License-Identifier: GPL-2.0-or-later
for f in "$@"; do
    awk -v f="$f" '/tuned\/native and tuned\/best/{t=1; next}
        t && /^[0-9]/ {n++; if ($5 <= 1.0) le++; else loss = loss " " $1 "(" $5 ")";
                       if (min == "" || $5 < min) {min = $5; ms = $1}}
        t && /within/ {w = $0; sub(/^# /, "", w)}
        END {printf "%s: tuned <= native at %d of %d; best tuned/native %s at %s B; %s; lost at:%s\n",
             f, le, n, min, ms, w, loss}' "$f"
done
