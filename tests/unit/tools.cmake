# SPDX-License-Identifier: GPL-2.0-or-later
# The pure part of the offline tools' narrow header (tools/lib/aot_tools.h): the registry seen
# through it and the sizes of the timed calls.
aot_add_unit_test(test_tools test_tools.c)
target_link_libraries(test_tools PRIVATE autoopt-tools)
