# SPDX-License-Identifier: GPL-2.0-or-later
# src/files.c: the one writer of every file autoopt and its tools write (issue 55, item 1).
aot_add_unit_test(test_files test_files.c)
