# SPDX-License-Identifier: GPL-2.0-or-later
# readme_table.cmake: README.md's settings table against `autoopt-settings --markdown`.
#   cmake -DMODE=check|update -DREADME=README.md -DTOOL=bin/autoopt-settings -P readme_table.cmake
# check fails (with a diff) when the text between the markers differs from what the tool prints;
# update replaces that text.
set(begin_marker "<!-- settings: generated from src/settings.def by autoopt-settings --markdown (cmake --build build --target settings-readme); do not edit here -->\n")
set(end_marker "<!-- end of settings -->")

execute_process(COMMAND ${TOOL} --markdown OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TOOL} --markdown failed (${rc})")
endif()
file(READ ${README} text)
string(FIND "${text}" "${begin_marker}" b)
string(FIND "${text}" "${end_marker}" e)
if(b EQUAL -1 OR e EQUAL -1 OR e LESS b)
  message(FATAL_ERROR "${README}: the settings markers are missing; the table goes between\n"
                      "${begin_marker}and\n${end_marker}")
endif()
string(LENGTH "${begin_marker}" blen)
math(EXPR start "${b} + ${blen}")
math(EXPR len "${e} - ${start}")
string(SUBSTRING "${text}" ${start} ${len} current)

if(MODE STREQUAL "update")
  if(NOT current STREQUAL table)
    string(SUBSTRING "${text}" 0 ${start} head)
    string(SUBSTRING "${text}" ${e} -1 tail)
    file(WRITE ${README} "${head}${table}${tail}")
    message(STATUS "${README}: settings table rewritten")
  endif()
elseif(NOT current STREQUAL table)
  set(dir ${CMAKE_CURRENT_BINARY_DIR})   # the working directory
  file(WRITE ${dir}/settings-readme.md "${current}")
  file(WRITE ${dir}/settings-generated.md "${table}")
  execute_process(COMMAND diff -u ${dir}/settings-readme.md ${dir}/settings-generated.md)
  message(FATAL_ERROR "${README}: the settings table differs from src/settings.def (diff above); "
                      "cmake --build <build> --target settings-readme rewrites it")
endif()
