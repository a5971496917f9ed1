# SPDX-License-Identifier: GPL-2.0-or-later
# autoopt-trace: analysis of AUTOOPT_TRACE directories (docs/trace-format.md).  Python 3,
# standard library only.
configure_file(${CMAKE_CURRENT_LIST_DIR}/autoopt-trace.py ${CMAKE_BINARY_DIR}/bin/autoopt-trace
               COPYONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
               GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
install(PROGRAMS ${CMAKE_BINARY_DIR}/bin/autoopt-trace DESTINATION ${CMAKE_INSTALL_BINDIR})
