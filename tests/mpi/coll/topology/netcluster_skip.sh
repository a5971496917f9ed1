#!/bin/sh
# netcluster_skip.sh NETCLUSTER command...: runs the command, or exits 77 (CTest's skip) with
# the reason when this machine cannot emulate a cluster ("NETCLUSTER check").
# SPDX-License-Identifier: GPL-2.0-or-later
nc=$1
shift
"$nc" check >/dev/null 2>&1 || { "$nc" check | tail -n 1; exit 77; }
exec "$@"
