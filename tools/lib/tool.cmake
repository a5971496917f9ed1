# SPDX-License-Identifier: GPL-2.0-or-later
# libautoopt-tools.a: the library of the offline tools (aot_tools.h), kept out of libautoopt.so:
# the narrow interface to the collectives the tools use (the set-up a tool does in place of the
# library's MPI_Init, the registry by name, the timed calls and a communicator to run them on),
# the tuner's pure core and the decision encodings.  It sits above collectives/ (it links the
# internal archive for the algorithms and the tuning file); the runtime never includes its
# headers, and the tools include no collectives/coll_*.h (tests/include_graph.py).
add_library(autoopt-tools STATIC ${CMAKE_CURRENT_LIST_DIR}/tools.c
            ${CMAKE_CURRENT_LIST_DIR}/registry.c ${CMAKE_CURRENT_LIST_DIR}/calls.c
            ${CMAKE_CURRENT_LIST_DIR}/tuner_core.c ${CMAKE_CURRENT_LIST_DIR}/coll_encode.c)
target_include_directories(autoopt-tools PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(autoopt-tools PUBLIC autoopt-internal)
