# SPDX-License-Identifier: GPL-2.0-or-later
# src/govern*.c: the benefit governor on synthetic period streams (pure, no MPI);
# src/calib.c: self-calibration of a guard's and a copy's cost on this machine.
aot_add_unit_test(test_govern test_govern.c)
set_tests_properties(unit.test_govern PROPERTIES LABELS "unit;govern")
aot_add_unit_test(test_calib test_calib.c)
set_tests_properties(unit.test_calib PROPERTIES LABELS "unit;govern")
# Under the sanitizers 5 of the 20 seeds (the first five: the main suite runs all 20 with the
# same code): AddressSanitizer made the 20 seeds the sanitizer stage's longest test (36 s).
if(AUTOOPT_SANITIZE)
  target_compile_definitions(test_govern PRIVATE NSEEDS=5)
endif()
