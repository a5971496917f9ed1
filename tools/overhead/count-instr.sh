#!/bin/bash
# count-instr.sh: instructions per phase of autoopt-instr-loop, by shared object, counted with
# callgrind (docs/chains.md, "Cost per call, counted").  Needs valgrind (apt-get install
# valgrind); not part of the test suite.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: tools/overhead/count-instr.sh BUILD-DIR MODE [VAR=VALUE...]
#   MODE        native-isend | native-sendrecv | chains | autoopt-isend |
#               native-sendself | autoopt-sendself
#   VAR=VALUE   extra environment for the ranks (e.g. AUTOOPT_SITE_DEPTH=2)
# Runs 20000 and 40000 phases, one rank each, and prints (count(40000) - count(20000)) / 20000
# per object: start-up, learning and MPI_Finalize cancel out.
set -eu
if [ $# -lt 2 ]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
build=$1 mode=$2
shift 2
loop=$build/bin/autoopt-instr-loop
lib=$build/src/libautoopt.so
command -v valgrind >/dev/null || { echo "count-instr.sh: valgrind is not installed" >&2; exit 1; }
[ -x "$loop" ] || { echo "count-instr.sh: $loop: not built" >&2; exit 1; }
case $mode in
    native-isend)      env=() prog=isend ;;
    native-sendrecv)   env=() prog=sendrecv ;;
    chains)            env=(LD_PRELOAD="$lib" AUTOOPT_CONVERT=1 AUTOOPT_CHAINS=1) prog=sendrecv ;;
    autoopt-isend) env=(LD_PRELOAD="$lib" AUTOOPT_CONVERT=1 AUTOOPT_CHAINS=1) prog=isend ;;
    native-sendself)   env=() prog=sendself ;;
    autoopt-sendself)  env=(LD_PRELOAD="$lib" AUTOOPT_CONVERT=1 AUTOOPT_CHAINS=1) prog=sendself ;;
    *) echo "count-instr.sh: MODE '$mode': not one of native-isend, native-sendrecv, chains, autoopt-isend, native-sendself, autoopt-sendself" >&2
       exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 20000 40000; do
    env "${env[@]}" "$@" valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n" \
        "$loop" $n $prog >"$tmp/out.$n" 2>"$tmp/err.$n" \
        || { echo "count-instr.sh: the run of $n phases failed:" >&2; cat "$tmp/err.$n" >&2; exit 1; }
    # per object: the "ob=" lines of the profile name the object of the cost lines that follow
    callgrind_annotate --auto=no --threshold=100 "$tmp/cg.$n" 2>/dev/null \
        | awk '/\[/ { gsub(",", "", $1); obj = $NF; gsub(/[][]/, "", obj); k = split(obj, a, "/");
                      s[a[k]] += $1; t += $1 }
               END { for (o in s) print o, s[o]; print "TOTAL", t }' | sort >"$tmp/obj.$n"
done
case $prog in isend) calls="9 calls" ;; sendself) calls="12 calls" ;; *) calls="4 calls" ;; esac
echo "instructions per phase ($calls), $mode:"
join "$tmp/obj.20000" "$tmp/obj.40000" | awk '{ d = ($3 - $2) / 20000; if (d >= 1) printf "  %-28s %8.1f\n", $1, d }'
