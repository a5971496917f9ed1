# SPDX-License-Identifier: GPL-2.0-or-later
# chains/: the learner's pure logic, and the cost of a signature lookup (no MPI).
if(TARGET autoopt-objs AND EXISTS ${CMAKE_SOURCE_DIR}/chains/learn.c)
  aot_add_unit_test(test_chains_learn test_chains_learn.c)
  aot_add_unit_test(test_chains_sigcost test_chains_sigcost.c)
  set_tests_properties(unit.test_chains_learn unit.test_chains_sigcost PROPERTIES
                       LABELS "unit;chains")
endif()
