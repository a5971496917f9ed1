# SPDX-License-Identifier: GPL-2.0-or-later
# autoopt-demo: the README's demonstration (build tree only: it runs the built examples).
configure_file(${CMAKE_CURRENT_LIST_DIR}/autoopt-demo.in ${CMAKE_BINARY_DIR}/bin/autoopt-demo @ONLY
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
