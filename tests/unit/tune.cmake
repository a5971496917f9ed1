# SPDX-License-Identifier: GPL-2.0-or-later
# collectives/: the pure core of the empirical tuner (aot_tune.h).
aot_add_unit_test(test_tune test_tune.c)
