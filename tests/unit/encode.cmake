# SPDX-License-Identifier: GPL-2.0-or-later
# tools/lib/: decision encodings of measured maps (aot_encode.h; autoopt-tune encode).
aot_add_unit_test(test_encode test_encode.c)
target_link_libraries(test_encode PRIVATE autoopt-tools)
