# SPDX-License-Identifier: GPL-2.0-or-later
# collectives/: the pure cores of the empirical tuner (aot_tuner_core.h) and of online tuning
# (aot_online.h).
aot_add_unit_test(test_tune test_tune.c)
aot_add_unit_test(test_online test_online.c)
