# SPDX-License-Identifier: GPL-2.0-or-later
# The Python tools' package (tools/python/autoopt_tools, cmake/AotPythonTools.cmake).
# tools.python.compile: every module, the entry scripts and this test byte-compile (a syntax
# error fails here, whatever test runs the tool); the cache goes to the build tree.
file(GLOB aot_py_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tools/python/autoopt_tools/*.py)
add_test(NAME tools.python.compile
         COMMAND ${Python3_EXECUTABLE} -X pycache_prefix=${CMAKE_CURRENT_BINARY_DIR}/pycache
                 -m py_compile ${aot_py_sources} ${PROJECT_SOURCE_DIR}/tools/bench-coll/summarize.py
                 ${CMAKE_CURRENT_SOURCE_DIR}/test_tools_py.py
                 ${CMAKE_BINARY_DIR}/python/autoopt_tools/_paths.py)
set_tests_properties(tools.python.compile PROPERTIES LABELS "tools;python" TIMEOUT 60)
# tools.python.unit: the parser of autoopt-bench-coll output, the configuration lookup, exit
# statuses and stopping jobs, on the build tree's copy of the package; every module imports.
add_test(NAME tools.python.unit
         COMMAND ${Python3_EXECUTABLE} -X pycache_prefix=${CMAKE_CURRENT_BINARY_DIR}/pycache
                 ${CMAKE_CURRENT_SOURCE_DIR}/test_tools_py.py ${CMAKE_BINARY_DIR}/python
                 ${PROJECT_VERSION})
set_tests_properties(tools.python.unit PROPERTIES LABELS "tools;python" TIMEOUT 60
                     PASS_REGULAR_EXPRESSION "\nOK\n" FAIL_REGULAR_EXPRESSION "FAILED")
