#!/bin/sh
# this_host.sh command...: runs the command with AUTOOPT_TOPOLOGY naming a topology.conf that
# puts this machine's host name (what MPI_Get_processor_name reports on one node) under
# switch s1 below s0.
# SPDX-License-Identifier: GPL-2.0-or-later
dir=$(mktemp -d "${TMPDIR:-/tmp}/aot-topo-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
printf 'SwitchName=s0 Switches=s1\nSwitchName=s1 Nodes=%s\n' "$(hostname)" > "$dir/topology.conf"
AUTOOPT_TOPOLOGY=$dir/topology.conf "$@"
