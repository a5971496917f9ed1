# SPDX-License-Identifier: GPL-2.0-or-later
# src/aot_mem.h: the private arena, the mapping query (PROCMAP_QUERY and the /proc/self/maps
# fallback, the cache and its invalidation by the exported munmap, mprotect and mmap), stacks.
# UCX_MEM_MMAP_HOOK_MODE=none: libucm (loaded with MPICH) otherwise patches the first bytes of
# the exported munmap, mmap and mremap with a jump to its own (bistro mode), and the wrappers of
# paging/syscalls.c under test never run (docs/paging.md, "Private memory and mapping queries").
aot_add_unit_test(test_mem test_mem.c)
set_tests_properties(unit.test_mem PROPERTIES
                     ENVIRONMENT "CK_FORK=yes;CK_DEFAULT_TIMEOUT=100;UCX_MEM_MMAP_HOOK_MODE=none")
