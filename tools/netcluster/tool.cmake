# SPDX-License-Identifier: GPL-2.0-or-later
# autoopt-netcluster: an emulated 100 Mbit/s Ethernet cluster (network namespaces, veth pairs,
# Linux bridges, tbf) and the ping-pong program that calibrates it.  See docs/netcluster.md.
# The program itself is Python: tools/python/autoopt_tools/netcluster.py.

add_executable(aot_pingpong ${CMAKE_CURRENT_LIST_DIR}/aot_pingpong.c)
target_link_libraries(aot_pingpong PRIVATE MPI::MPI_C)
install(TARGETS aot_pingpong RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/autoopt)

# The finalize workaround for UCX's TCP transport (see aot_tcp_close.c), preloaded by the
# emulated cluster into every rank.  UCX's headers come with libmpich-dev (libucx-dev).
find_path(AOT_UCP_INCLUDE ucp/api/ucp.h)
find_library(AOT_UCP_LIB ucp)
if(AOT_UCP_INCLUDE AND AOT_UCP_LIB)
  add_library(autoopt-tcpclose SHARED ${CMAKE_CURRENT_LIST_DIR}/aot_tcp_close.c)
  target_include_directories(autoopt-tcpclose PRIVATE ${AOT_UCP_INCLUDE})
  target_link_libraries(autoopt-tcpclose PRIVATE ${AOT_UCP_LIB} ${CMAKE_DL_LIBS})
  set_target_properties(autoopt-tcpclose PROPERTIES C_VISIBILITY_PRESET hidden)
  install(TARGETS autoopt-tcpclose LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
else()
  message(STATUS "autoopt: UCX headers not found (libucx-dev): autoopt-netcluster runs "
                 "without its MPI_Finalize workaround for UCX over TCP")
endif()

# netcluster-2sw.sh: autoopt-netcluster with two switches of 4 hosts and AUTOOPT_TOPOLOGY, in the
# form autoopt-bench-coll --netcluster calls (docs/measurements.md, the topology algorithms).
file(COPY ${CMAKE_CURRENT_LIST_DIR}/netcluster-2sw.sh DESTINATION ${CMAKE_BINARY_DIR}/bin
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                      WORLD_READ WORLD_EXECUTE)
