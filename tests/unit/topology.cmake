# SPDX-License-Identifier: GPL-2.0-or-later
# collectives/topology_conf.c: the reader of Slurm's topology.conf and its resolution against a job.
aot_add_unit_test(test_topology test_topology.c)
