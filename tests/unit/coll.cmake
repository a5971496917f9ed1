# SPDX-License-Identifier: GPL-2.0-or-later
# collectives/: the registry, the decision, its bytes and the tuning-file reader and writer.
aot_add_unit_test(test_coll_select test_coll_select.c)
aot_add_unit_test(test_coll_tuning test_coll_tuning.c)
aot_add_unit_test(test_coll_bytes test_coll_bytes.c)
