#!/bin/sh
# netcluster_teardown.sh NETCLUSTER PINGPONG
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Interrupts an emulated-cluster run half-way (SIGINT, as Ctrl-C would) and checks that it left
# nothing behind: none of its namespaces, none of its processes.  Exit 77 (skip) when the
# machine cannot emulate a cluster.
nc=$1
pp=$2
if ! "$nc" check >/dev/null 2>&1; then
    "$nc" check | tail -n 1
    exit 77
fi

# A run that takes far longer than the 4 s it is given: 4 ranks, two switches, 4 MiB messages.
"$nc" run -n 4 --switches 2 -- "$pp" -a 1048576 -b 4194304 -t 5 >/dev/null &
run=$!
i=0
while [ $i -lt 40 ] && ! ip netns list | grep -q "^aotnc$run-"; do
    sleep 0.1
    i=$((i + 1))
done
if ! ip netns list | grep -q "^aotnc$run-"; then
    echo "FAIL: the run (pid $run) created no namespace aotnc$run-* within 4 s"
    kill -INT $run 2>/dev/null
    wait $run
    exit 1
fi
sleep 4
kill -INT $run
wait $run
status=$?
echo "run exited with status $status after SIGINT"

left=$(ip netns list | grep "^aotnc$run-")
if [ -n "$left" ]; then
    echo "FAIL: namespaces left behind: $left"
    exit 1
fi
procs=$(ps -eo args | grep -c "[a]ot_pingpong -a 1048576 -b 4194304 -t 5")
if [ "$procs" -ne 0 ]; then
    echo "FAIL: $procs ping-pong processes left running"
    exit 1
fi
if [ "$status" -ne 130 ]; then
    echo "FAIL: expected exit status 130 (SIGINT), got $status"
    exit 1
fi
echo "ok: nothing left behind"
