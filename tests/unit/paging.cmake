# SPDX-License-Identifier: GPL-2.0-or-later
# paging/: byte-range and page-run arithmetic, and the page table on real mappings (no MPI).
aot_add_unit_test(test_paging_ranges test_paging_ranges.c)
# paging/insn.c: the access width of faulting instructions, on encodings assembled by GNU as.
aot_add_unit_test(test_paging_insn test_paging_insn.c)
