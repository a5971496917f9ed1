# coll_registry.cmake: reads the algorithm registry (coll_algorithms.def) for CMake.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# aot_coll_registry(<prefix>) sets
#   <prefix>_ALGS          list of "coll:name" for every registered algorithm (natives too)
#   <prefix>_PARAM_<coll>_<name>   parameter name, empty when the algorithm has none
#   <prefix>_TUNE_<coll>_<name>    list of the values a tuner tries
#   <prefix>_RESTR_<coll>_<name>   the restriction field (AOT_R_NONE, AOT_R_POF2, ...)
#   <prefix>_PROPS_<coll>_<name>   the properties field (AOT_P_NONE, AOT_P_ORDERED)
# The .def keeps one entry per line exactly so that this parse stays trivial.
set(AOT_COLL_DEF ${CMAKE_CURRENT_LIST_DIR}/coll_algorithms.def)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${AOT_COLL_DEF})

function(aot_coll_registry prefix)
  file(STRINGS ${AOT_COLL_DEF} lines REGEX "^AOT_ALG")
  set(algs "")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^AOT_ALG(_P)?\\(([a-z]+), ([a-z0-9_]+), ([A-Z0-9_| ]+), ([A-Z0-9_| ]+),")
      message(FATAL_ERROR "coll_algorithms.def: cannot read '${line}'")
    endif()
    set(coll ${CMAKE_MATCH_2})
    set(name ${CMAKE_MATCH_3})
    string(STRIP "${CMAKE_MATCH_4}" restr)
    string(STRIP "${CMAKE_MATCH_5}" props)
    list(APPEND algs "${coll}:${name}")
    set(param "")
    set(tune "")
    if(line MATCHES "^AOT_ALG_P\\(.*\", ([a-z_]+), [-0-9]+, [-0-9]+, [-0-9]+, \\(([-0-9, ]+)\\)\\)")
      set(param ${CMAKE_MATCH_1})
      string(REPLACE "," ";" tune "${CMAKE_MATCH_2}")
      string(REPLACE " " "" tune "${tune}")
    elseif(line MATCHES "^AOT_ALG_P")
      message(FATAL_ERROR "coll_algorithms.def: cannot read the parameter of '${line}'")
    endif()
    set(${prefix}_PARAM_${coll}_${name} "${param}" PARENT_SCOPE)
    set(${prefix}_TUNE_${coll}_${name} "${tune}" PARENT_SCOPE)
    set(${prefix}_RESTR_${coll}_${name} "${restr}" PARENT_SCOPE)
    set(${prefix}_PROPS_${coll}_${name} "${props}" PARENT_SCOPE)
  endforeach()
  set(${prefix}_ALGS "${algs}" PARENT_SCOPE)
endfunction()
