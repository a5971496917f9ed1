# SPDX-License-Identifier: GPL-2.0-or-later
# autoopt-bench: the benchmark harness (examples x sizes x modes x platforms).
# See docs/benchmarks.md.
include(${CMAKE_CURRENT_LIST_DIR}/../netcluster/aot_tool_script.cmake)
aot_tool_script(autoopt-bench ${CMAKE_CURRENT_LIST_DIR}/autoopt-bench.in)
