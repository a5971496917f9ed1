# SPDX-License-Identifier: GPL-2.0-or-later
configure_file(${CMAKE_CURRENT_LIST_DIR}/autoopt-demo.in ${CMAKE_BINARY_DIR}/bin/autoopt-demo @ONLY)
