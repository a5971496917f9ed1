# SPDX-License-Identifier: GPL-2.0-or-later
# The Python tools: one package, autoopt_tools (one module per program and the parts they
# share), and the programs that run it (cmake/AotPythonTools.cmake).
include(AotPythonTools)
aot_python_package(${CMAKE_CURRENT_LIST_DIR}/autoopt_tools)

# autoopt-bench: the benchmark harness (examples x sizes x modes x platforms).
# See docs/benchmarks.md.
aot_python_tool(autoopt-bench bench)
# autoopt-netcluster: an emulated 100 Mbit/s Ethernet cluster (tools/netcluster builds the
# ping-pong program that calibrates it).  See docs/netcluster.md.
aot_python_tool(autoopt-netcluster netcluster)
# autoopt-validate: runs real MPI programs written elsewhere (Debian's BLACS testers, NetPIPE,
# optionally the ScaLAPACK test suite) under autoopt and compares them with native runs.
aot_python_tool(autoopt-validate validate)
# autoopt-maps: pictures of the decision maps `autoopt-tune encode --dump-map` writes
# (docs/benchmarks.md, "autoopt-maps"); needs matplotlib.
aot_python_tool(autoopt-maps maps)
# autoopt-trace: analysis of AUTOOPT_TRACE directories (docs/trace-format.md).
aot_python_tool(autoopt-trace trace)
