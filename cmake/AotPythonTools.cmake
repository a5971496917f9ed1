# AotPythonTools.cmake: the Python tools (the package tools/python/autoopt_tools) in the build
# tree and in the installation.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# aot_python_package(<package source dir>)
#   Copies the package's modules into ${CMAKE_BINARY_DIR}/python/autoopt_tools (CMake runs again
#   when one changes) and installs them into ${CMAKE_INSTALL_DATADIR}/autoopt/python.  Each copy
#   gets its _paths.py, the one module CMake writes: the version, the MPICH launcher, the
#   collective algorithms of the registry, and where the libraries, the examples and the
#   ping-pong program are -- this build's files (exact paths, through generator expressions) in
#   the build tree, where `cmake --install` puts them in the installed copy.
# aot_python_tool(<name> <module>)
#   bin/<name> and an installed <name>: a few lines that put the package found next to them
#   (../python, ../share/autoopt/python) on sys.path and exit with
#   autoopt_tools.<module>.run(sys.argv).
include_guard(GLOBAL)
include(${PROJECT_SOURCE_DIR}/collectives/coll_registry.cmake)

set(AOT_PYTHON_BUILD_DIR ${CMAKE_BINARY_DIR}/python)
set(AOT_PYTHON_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/autoopt/python)
set(AOT_PYTHON_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                           WORLD_READ WORLD_EXECUTE)

# _paths.py; the @AOT_PATHS_*@ values are filled in by string(CONFIGURE).
set(AOT_PYTHON_PATHS_TEMPLATE [=[# _paths.py: where autoopt's parts are, for autoopt_tools.config.
# Written by cmake/AotPythonTools.cmake (@AOT_PATHS_WHAT@); do not edit.
VERSION = "@PROJECT_VERSION@"
MPIEXEC = "@MPIEXEC_EXECUTABLE@"
AUTOOPT_LIB = "@AOT_PATHS_AUTOOPT_LIB@"
YIELD_LIB = "@AOT_PATHS_YIELD_LIB@"
TCPCLOSE_LIB = "@AOT_PATHS_TCPCLOSE_LIB@"
PINGPONG = "@AOT_PATHS_PINGPONG@"
EXAMPLES_DIR = "@AOT_PATHS_EXAMPLES_DIR@"
COLL_ALGORITHMS = "@AOT_PATHS_COLL_ALGORITHMS@"
]=])

function(aot_python_package src)
  file(GLOB modules CONFIGURE_DEPENDS ${src}/*.py)
  foreach(m IN LISTS modules)
    get_filename_component(f ${m} NAME)
    configure_file(${m} ${AOT_PYTHON_BUILD_DIR}/autoopt_tools/${f} COPYONLY)
  endforeach()
  install(FILES ${modules} DESTINATION ${AOT_PYTHON_INSTALL_DIR}/autoopt_tools)

  # The forced-collective configurations of autoopt-validate: "coll:name" for every
  # registered algorithm but MPI's own.
  aot_coll_registry(reg)
  set(AOT_PATHS_COLL_ALGORITHMS "")
  foreach(entry IN LISTS reg_ALGS)
    if(NOT entry MATCHES ":native$")
      string(APPEND AOT_PATHS_COLL_ALGORITHMS "${entry} ")
    endif()
  endforeach()
  string(STRIP "${AOT_PATHS_COLL_ALGORITHMS}" AOT_PATHS_COLL_ALGORITHMS)

  # Build tree.
  set(AOT_PATHS_WHAT "build tree")
  set(AOT_PATHS_AUTOOPT_LIB
      "$<$<TARGET_EXISTS:autoopt>:$<TARGET_FILE:autoopt>>$<$<NOT:$<TARGET_EXISTS:autoopt>>:${CMAKE_BINARY_DIR}/src/libautoopt.so>")
  set(AOT_PATHS_YIELD_LIB "$<TARGET_FILE:autoopt-yield>")
  set(AOT_PATHS_TCPCLOSE_LIB "$<$<TARGET_EXISTS:autoopt-tcpclose>:$<TARGET_FILE:autoopt-tcpclose>>")
  set(AOT_PATHS_PINGPONG "$<TARGET_FILE:aot_pingpong>")
  set(AOT_PATHS_EXAMPLES_DIR ${CMAKE_BINARY_DIR}/examples)
  string(CONFIGURE "${AOT_PYTHON_PATHS_TEMPLATE}" text @ONLY)
  file(GENERATE OUTPUT ${AOT_PYTHON_BUILD_DIR}/autoopt_tools/_paths.py CONTENT "${text}")

  # Installation.
  set(AOT_PATHS_WHAT "installation")
  set(AOT_PATHS_AUTOOPT_LIB ${CMAKE_INSTALL_FULL_LIBDIR}/libautoopt.so)
  set(AOT_PATHS_YIELD_LIB ${CMAKE_INSTALL_FULL_LIBDIR}/libautoopt-yield.so)
  set(AOT_PATHS_TCPCLOSE_LIB ${CMAKE_INSTALL_FULL_LIBDIR}/libautoopt-tcpclose.so)
  set(AOT_PATHS_PINGPONG ${CMAKE_INSTALL_FULL_LIBEXECDIR}/autoopt/aot_pingpong)
  set(AOT_PATHS_EXAMPLES_DIR ${CMAKE_INSTALL_FULL_LIBEXECDIR}/autoopt/examples)
  file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/python-install/_paths.py
       CONTENT "${AOT_PYTHON_PATHS_TEMPLATE}" @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/python-install/_paths.py
          DESTINATION ${AOT_PYTHON_INSTALL_DIR}/autoopt_tools)
endfunction()

function(aot_python_tool name module)
  set(template [=[#!/usr/bin/python3
# @name@: runs autoopt_tools.@module@ (tools/python/autoopt_tools/@module@.py).
# Written by cmake/AotPythonTools.cmake; the package is at @rel@ from this file.
import os
import sys

here = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(here, "@rel@"))
from autoopt_tools import @module@  # noqa: E402

sys.exit(@module@.run(sys.argv))
]=])
  # Build tree: bin/<name>.
  file(RELATIVE_PATH rel ${CMAKE_BINARY_DIR}/bin ${AOT_PYTHON_BUILD_DIR})
  string(CONFIGURE "${template}" text @ONLY)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/bin/${name} CONTENT "${text}"
       FILE_PERMISSIONS ${AOT_PYTHON_PERMISSIONS})
  # Installation.
  file(RELATIVE_PATH rel ${CMAKE_INSTALL_FULL_BINDIR}
       ${CMAKE_INSTALL_FULL_DATADIR}/autoopt/python)
  file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/python-install/${name}
       CONTENT "${template}" @ONLY)
  install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/python-install/${name}
          DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()
