# SPDX-License-Identifier: GPL-2.0-or-later
# autoopt-validate: runs real MPI programs written elsewhere (Debian's BLACS testers, NetPIPE,
# optionally the ScaLAPACK test suite) under autoopt and compares them with native runs.
include(${CMAKE_CURRENT_LIST_DIR}/../netcluster/aot_tool_script.cmake)

# The forced-collective configurations come from the algorithm registry
# (collectives/coll_algorithms.def, one AOT_ALG line per algorithm), as "coll:name" words.
set(AOT_VALIDATE_ALGS "")
set(aot_alg_def ${CMAKE_CURRENT_LIST_DIR}/../../collectives/coll_algorithms.def)
if(EXISTS ${aot_alg_def})
  file(STRINGS ${aot_alg_def} aot_alg_lines REGEX "^AOT_ALG(_P)?\\(")
  foreach(line IN LISTS aot_alg_lines)
    if(line MATCHES "^AOT_ALG(_P)?\\(([a-z]+), *([a-z0-9_]+),")
      if(NOT CMAKE_MATCH_3 STREQUAL "native")
        string(APPEND AOT_VALIDATE_ALGS "${CMAKE_MATCH_2}:${CMAKE_MATCH_3} ")
      endif()
    endif()
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${aot_alg_def})
endif()
aot_tool_script(autoopt-validate ${CMAKE_CURRENT_LIST_DIR}/autoopt-validate.in)
