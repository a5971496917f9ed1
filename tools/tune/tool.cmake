# SPDX-License-Identifier: GPL-2.0-or-later
# autoopt-tune: the empirical tuner (docs/tuning.md).  It calls the repository's algorithms
# directly, so it links the tools' library (tools/lib/), which brings the library's objects (the
# static archive the unit tests use).
add_executable(autoopt-tune ${CMAKE_CURRENT_LIST_DIR}/autoopt_tune.c ${CMAKE_CURRENT_LIST_DIR}/export.c
               ${CMAKE_CURRENT_LIST_DIR}/encode.c)
target_link_libraries(autoopt-tune PRIVATE autoopt-tools)
set_target_properties(autoopt-tune PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
install(TARGETS autoopt-tune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# autoopt-maps, the pictures of the decision maps `autoopt-tune encode --dump-map` writes, is
# Python: tools/python/autoopt_tools/maps.py.
