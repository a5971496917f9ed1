#!/bin/sh
# netcluster-2sw.sh: autoopt-netcluster with two switches of 4 hosts, a 100 Mbit/s uplink and
# the cluster's topology.conf in AUTOOPT_TOPOLOGY, for autoopt-bench-coll --netcluster (which
# calls "PROG run -n N ... -- worker").  NC: the autoopt-netcluster to run.
# SPDX-License-Identifier: GPL-2.0-or-later
nc=${NC:-autoopt-netcluster}
topo=${TOPO:-${TMPDIR:-/tmp}/aot-bench-topology.conf}
if [ "$1" = run ]; then
    shift
    exec "$nc" run --switches 2 --uplink 100mbit --topology-out "$topo" "$@"
fi
exec "$nc" "$@"
