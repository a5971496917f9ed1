# SPDX-License-Identifier: GPL-2.0-or-later
# aot_tool_script(<name> <template>)
#   Turns the script template <template> into two programs:
#   - ${CMAKE_BINARY_DIR}/bin/<name>, which finds the libraries, the examples and the
#     ping-pong program of this build tree (exact paths, through generator expressions), and
#   - an installed copy in ${CMAKE_INSTALL_BINDIR} that finds them where `make install` puts them.
#   The template sees @AOT_TOOL_*@ variables (configure_file @ONLY) and, in the build-tree copy,
#   generator expressions (file(GENERATE)); scripts must therefore contain neither "@NAME@"
#   pairs nor a dollar sign followed by "<" of their own.
include_guard(GLOBAL)

function(aot_tool_script name template)
  set(AOT_TOOL_NAME ${name})
  set(AOT_TOOL_VERSION ${PROJECT_VERSION})
  set(AOT_TOOL_MPIEXEC ${MPIEXEC_EXECUTABLE})

  # Build tree: bin/<name>.
  set(AOT_TOOL_INSTALLED 0)
  set(AOT_TOOL_BUILD_DIR ${CMAKE_BINARY_DIR})
  set(AOT_TOOL_AUTOOPT_LIB
      "$<$<TARGET_EXISTS:autoopt>:$<TARGET_FILE:autoopt>>$<$<NOT:$<TARGET_EXISTS:autoopt>>:${CMAKE_BINARY_DIR}/src/libautoopt.so>")
  set(AOT_TOOL_YIELD_LIB "$<TARGET_FILE:autoopt-yield>")
  set(AOT_TOOL_TCPCLOSE_LIB "$<$<TARGET_EXISTS:autoopt-tcpclose>:$<TARGET_FILE:autoopt-tcpclose>>")
  set(AOT_TOOL_PINGPONG "$<TARGET_FILE:aot_pingpong>")
  set(AOT_TOOL_EXAMPLES_DIR ${CMAKE_BINARY_DIR}/examples)
  configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/scripts/${name}.build @ONLY)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/bin/${name}
       INPUT ${CMAKE_CURRENT_BINARY_DIR}/scripts/${name}.build
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                        WORLD_READ WORLD_EXECUTE)

  # Installed copy.
  set(AOT_TOOL_INSTALLED 1)
  set(AOT_TOOL_BUILD_DIR "")
  set(AOT_TOOL_AUTOOPT_LIB ${CMAKE_INSTALL_FULL_LIBDIR}/libautoopt.so)
  set(AOT_TOOL_YIELD_LIB ${CMAKE_INSTALL_FULL_LIBDIR}/libautoopt-yield.so)
  set(AOT_TOOL_TCPCLOSE_LIB ${CMAKE_INSTALL_FULL_LIBDIR}/libautoopt-tcpclose.so)
  set(AOT_TOOL_PINGPONG ${CMAKE_INSTALL_FULL_LIBEXECDIR}/autoopt/aot_pingpong)
  set(AOT_TOOL_EXAMPLES_DIR ${CMAKE_INSTALL_FULL_LIBEXECDIR}/autoopt/examples)
  configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/scripts/install/${name} @ONLY)
  install(PROGRAMS ${CMAKE_CURRENT_BINARY_DIR}/scripts/install/${name}
          DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()
