# SPDX-License-Identifier: GPL-2.0-or-later
# Included by ctest (TEST_INCLUDE_FILES, tests/CMakeLists.txt) before it runs any test: no test
# reads or writes the user's cache of decisions (docs/cache.md), whose verdicts of earlier runs
# would change what the governors do.  A test that sets AUTOOPT_CACHE in its ENVIRONMENT
# (the cache.* tests) uses its own directory.
set(ENV{AUTOOPT_CACHE} off)
