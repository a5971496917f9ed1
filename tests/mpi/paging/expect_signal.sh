#!/bin/sh
# expect_signal.sh [-e REGEX]... [-x REGEX]... SECONDS command...: the MPI job must die of
# SIGSEGV within SECONDS; its output must match every -e REGEX and no -x REGEX (grep -E).
# SPDX-License-Identifier: GPL-2.0-or-later
# mpiexec.mpich reports a rank killed by signal 11 as "EXIT CODE: 11" / "signal 11" and exits
# non-zero; a hang is killed by timeout (status 124) and fails.
want=; avoid=; nl='
'
while :; do
  case $1 in
    -e) want="$want$2$nl"; shift 2 ;;
    -x) avoid="$avoid$2$nl"; shift 2 ;;
    *) break ;;
  esac
done
limit=$1; shift
out=$(timeout -s KILL "$limit" "$@" 2>&1); rc=$?
printf '%s\n' "$out" | tail -n 30
case $rc in
  0) echo "expect_signal: the job succeeded, expected death by SIGSEGV"; exit 1 ;;
  124|137) echo "expect_signal: the job hung (killed after $limit s)"; exit 1 ;;
esac
if printf '%s\n' "$out" | grep -q "survived"; then
  echo "expect_signal: the faulting write went through"; exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq "signal 11|Segmentation fault|EXIT CODE: 11|EXIT CODE: 139"; then
  echo "expect_signal: no sign of SIGSEGV in the output (status $rc)"; exit 1
fi
status=0
printf '%s' "$want" | { while IFS= read -r re; do
  if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
    echo "expect_signal: missing from the output: $re"; exit 1
  fi
done; } || status=1
printf '%s' "$avoid" | { while IFS= read -r re; do
  if printf '%s\n' "$out" | grep -Eq -- "$re"; then
    echo "expect_signal: unexpected in the output: $re"; exit 1
  fi
done; } || status=1
[ $status = 0 ] || exit 1
echo "expect_signal: died of SIGSEGV as expected (status $rc)"
