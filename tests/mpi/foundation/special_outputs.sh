#!/bin/sh
# special_outputs.sh MPIEXEC PROGRAM WORKDIR: the files autoopt writes (issue 55, item 1).
# AUTOOPT_STATS=FILE.json, AUTOOPT_TUNE_SAVE (with AUTOOPT_TUNE=online) and AUTOOPT_TRACE's
# rank files each named a character device (mknod: root only), a FIFO, a socket and a
# directory: the job stops at MPI_Init (the program prints nothing) with one line naming the
# variable and the path, and the special file is still there with the same kind, inode and
# device numbers.  Each named a symbolic link to a regular file: the job runs, the target gets
# the contents, the link is still a link.  LD_PRELOAD holds libautoopt.so.
# SPDX-License-Identifier: GPL-2.0-or-later
mpiexec=$1; prog=$2; w=$3
errors=0
fail() { echo "FAIL: $*"; errors=$((errors + 1)); }
rm -rf "$w"; mkdir -p "$w"; chmod 700 "$w"
kinds="fifo socket dir"
if [ "$(id -u)" = 0 ]; then
    kinds="chardev $kinds"
else
    echo "special_outputs: not root: the character device (mknod) is skipped"
fi

# make KIND PATH: a special file of that kind at PATH.
make() {
    case $1 in
    chardev) mknod "$2" c 1 3 ;;
    fifo) mkfifo "$2" ;;
    socket) python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$2" ;;
    dir) mkdir "$2" ;;
    esac
}
ident() { stat -c '%F %i %t %T' "$1"; }

# refused NAME FILE PREFIX VAR=VALUE...: the run must stop with one line that begins with
# "autoopt: PREFIX: refused: " (the variable and the path), before the program did anything,
# and leave FILE as it was.
refused() {
    name=$1 file=$2 prefix=$3; shift 3
    before=$(ident "$file")
    out=$(env "$@" timeout 60 "$mpiexec" -n 2 "$prog" 2>&1); rc=$?
    [ "$rc" -ne 0 ] || fail "$name: exit status 0"
    [ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] || fail "$name: not one line: $out"
    case $out in
    "autoopt: $prefix: refused: "*) ;;
    *) fail "$name: the line does not begin with 'autoopt: $prefix: refused: ': $out" ;;
    esac
    [ "$(ident "$file")" = "$before" ] || fail "$name: $file changed: $before -> $(ident "$file")"
}

for k in $kinds; do
    make "$k" "$w/$k.json" || fail "cannot make $k"
    refused "stats/$k" "$w/$k.json" "AUTOOPT_STATS=$w/$k.json" AUTOOPT_STATS="$w/$k.json"
    make "$k" "$w/$k.tune" || fail "cannot make $k"
    refused "save/$k" "$w/$k.tune" "AUTOOPT_TUNE_SAVE=$w/$k.tune" \
        AUTOOPT_TUNE_SAVE="$w/$k.tune" AUTOOPT_TUNE=online
    mkdir -m 700 "$w/trace-$k"
    make "$k" "$w/trace-$k/rank-00000.aottrace" && make "$k" "$w/trace-$k/rank-00001.aottrace" ||
        fail "cannot make $k"
    # AUTOOPT_TRACE names a directory: its line names the variable and rank 0's file
    refused "trace/$k" "$w/trace-$k/rank-00000.aottrace" \
        "AUTOOPT_TRACE: $w/trace-$k/rank-00000.aottrace" AUTOOPT_TRACE="$w/trace-$k"
done

# Symbolic links to regular files: followed.
echo old > "$w/stats-target.json"; ln -s stats-target.json "$w/link.json"
AUTOOPT_STATS="$w/link.json" timeout 60 "$mpiexec" -n 2 "$prog" > /dev/null 2>&1 ||
    fail "stats/link: run failed"
[ -L "$w/link.json" ] || fail "stats/link: the link was replaced"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="autoopt-stats"' \
    "$w/stats-target.json" 2>/dev/null || fail "stats/link: the target is not the statistics JSON"
echo old > "$w/save-target.tune"; ln -s save-target.tune "$w/link.tune"
AUTOOPT_TUNE=online AUTOOPT_TUNE_SAVE="$w/link.tune" timeout 60 "$mpiexec" -n 2 "$prog" \
    > /dev/null 2>&1 || fail "save/link: run failed"
[ -L "$w/link.tune" ] || fail "save/link: the link was replaced"
[ "$(cat "$w/save-target.tune")" != old ] || fail "save/link: the target was not written"
mkdir -m 700 "$w/trace-link"; echo old > "$w/trace-target"
ln -s ../trace-target "$w/trace-link/rank-00000.aottrace"
AUTOOPT_TRACE="$w/trace-link" timeout 60 "$mpiexec" -n 2 "$prog" > /dev/null 2>&1 ||
    fail "trace/link: run failed"
[ -L "$w/trace-link/rank-00000.aottrace" ] || fail "trace/link: the link was replaced"
[ "$(head -c 8 "$w/trace-target")" = AOTTRACE ] || fail "trace/link: the target is not a trace"
[ "$(ls "$w" | grep -c 'XXXXXX\|\.json\.\|\.tune\.')" = 0 ] || fail "temporary files left: $(ls "$w")"

if [ "$errors" -eq 0 ]; then echo "No Errors"; else echo "Found $errors errors"; exit 1; fi
