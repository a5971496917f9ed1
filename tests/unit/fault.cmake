# SPDX-License-Identifier: GPL-2.0-or-later
# src/fault.c: the forwarding rules (pure) and the entry on real faults in one process (no MPI).
aot_add_unit_test(test_fault test_fault.c)
