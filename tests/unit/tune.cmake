# SPDX-License-Identifier: GPL-2.0-or-later
# The pure cores of the empirical tuner (tools/lib/aot_tuner_core.h) and of online tuning
# (collectives/aot_online.h).
aot_add_unit_test(test_tune test_tune.c)
target_link_libraries(test_tune PRIVATE autoopt-tools)
aot_add_unit_test(test_online test_online.c)
