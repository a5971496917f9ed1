# SPDX-License-Identifier: GPL-2.0-or-later
# autoopt-bench-overhead: time added per call, native and intercepted calls interleaved.
add_executable(autoopt-bench-overhead ${CMAKE_CURRENT_LIST_DIR}/autoopt_bench_overhead.c)
target_link_libraries(autoopt-bench-overhead PRIVATE MPI::MPI_C)
set_target_properties(autoopt-bench-overhead PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
install(TARGETS autoopt-bench-overhead RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# autoopt-instr-loop: a one-rank loop of chain-shaped phases for counting instructions per
# call with callgrind (docs/chains.md); built, not installed.
add_executable(autoopt-instr-loop ${CMAKE_CURRENT_LIST_DIR}/autoopt_instr_loop.c)
target_link_libraries(autoopt-instr-loop PRIVATE MPI::MPI_C)
set_target_properties(autoopt-instr-loop PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
