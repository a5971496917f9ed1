#!/bin/sh
# files.sh MPIEXEC PROGRAM WORKDIR: the files autoopt writes cannot be redirected by another
# user (issue 15, finding 6); a symbolic link of ours is followed (issue 55, item 1).  LD_PRELOAD holds libautoopt.so.  Prints "No Errors" or FAIL lines.
# SPDX-License-Identifier: GPL-2.0-or-later
mpiexec=$1; prog=$2; w=$3
errors=0
fail() { echo "FAIL: $*"; errors=$((errors + 1)); }
rm -rf "$w"; mkdir -p "$w"; chmod 700 "$w"

# 1. A symbolic link planted where rank 0's trace goes by another user (root only: chown -h):
#    the run stops, the target is untouched.  A link of ours is followed (issue 55, item 1).
mkdir -m 700 "$w/t1"; echo precious > "$w/victim1"
ln -s "$w/victim1" "$w/t1/rank-00000.aottrace"
if chown -h nobody "$w/t1/rank-00000.aottrace" 2>/dev/null; then
    out=$(AUTOOPT_TRACE="$w/t1" timeout 60 "$mpiexec" -n 2 "$prog" 2>&1); rc=$?
    [ "$rc" -ne 0 ] || fail "1: exit status 0 with another user's symbolic link at the trace file"
    echo "$out" | grep -q "rank-00000.aottrace: refused: it is a symbolic link of another user" ||
        fail "1: no message naming the link: $out"
    [ "$(cat "$w/victim1")" = precious ] || fail "1: the link's target was changed"
else
    echo "files.sh: not root: another user's link at the trace file is not tried"
fi

# 2. A directory others may write into, not sticky: refused, nothing written.
mkdir "$w/t2"; chmod 777 "$w/t2"
out=$(AUTOOPT_TRACE="$w/t2" timeout 60 "$mpiexec" -n 2 "$prog" 2>&1); rc=$?
[ "$rc" -ne 0 ] || fail "2: exit status 0 in a world-writable directory"
echo "$out" | grep -q "not sticky" || fail "2: no message about the directory: $out"
[ -z "$(ls "$w/t2")" ] || fail "2: files were written: $(ls "$w/t2")"

# 3. Sticky and world-writable, as /tmp: the traces are written.
mkdir "$w/t3"; chmod 1777 "$w/t3"
AUTOOPT_TRACE="$w/t3" timeout 60 "$mpiexec" -n 2 "$prog" > /dev/null 2>&1 || fail "3: run failed"
[ -f "$w/t3/rank-00001.aottrace" ] || fail "3: no trace written in a sticky directory"

# 4. A directory autoopt creates is private (0700).
AUTOOPT_TRACE="$w/t4/sub" timeout 60 "$mpiexec" -n 2 "$prog" > /dev/null 2>&1 || fail "4: run failed"
[ "$(stat -c %a "$w/t4/sub")" = 700 ] || fail "4: new directory has mode $(stat -c %a "$w/t4/sub")"
[ "$(stat -c %a "$w/t4")" = 700 ] || fail "4: new parent has mode $(stat -c %a "$w/t4")"

# 5. Statistics JSON: a symbolic link of ours at the name is followed: its target gets the
#    whole file, the link stays (issue 55, item 1); no temporary file is left.
mkdir -m 700 "$w/s"; echo precious > "$w/s/victim5"; ln -s victim5 "$w/s/stats.json"
AUTOOPT_STATS="$w/s/stats.json" timeout 60 "$mpiexec" -n 2 "$prog" > /dev/null 2>&1 ||
    fail "5: run failed"
[ -L "$w/s/stats.json" ] || fail "5: the link was replaced"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="autoopt-stats"' \
    "$w/s/victim5" 2>/dev/null || fail "5: the link's target is not the statistics JSON"
[ "$(ls "$w/s" | wc -l)" -eq 2 ] || fail "5: temporary files left: $(ls "$w/s")"

if [ "$errors" -eq 0 ]; then echo "No Errors"; else echo "Found $errors errors"; exit 1; fi
