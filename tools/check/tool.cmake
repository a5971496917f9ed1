# SPDX-License-Identifier: GPL-2.0-or-later
# The checkers: each reads a file with the library's own reader and prints its first error.
#   aot-tuning-check FILE...         tuning files (docs/tuning-format.md); the build runs it on
#                                    AUTOOPT_BUILTIN_TUNING (collectives/CMakeLists.txt)
#   aot-topology-check FILE [HOST]   Slurm's topology.conf (docs/topology.md)
foreach(check tuning topology)
  add_executable(aot-${check}-check ${CMAKE_CURRENT_LIST_DIR}/${check}_check.c)
  target_link_libraries(aot-${check}-check PRIVATE autoopt-internal)
  set_target_properties(aot-${check}-check PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
endforeach()
