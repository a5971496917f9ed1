# SPDX-License-Identifier: GPL-2.0-or-later
# src/cache.c: the cache of decisions' table, file text, damage and merge (pure, no MPI).
aot_add_unit_test(test_cache test_cache.c)
