# Install rules, the pkg-config file and the CMake package config (find_package(autoopt)).
# SPDX-License-Identifier: GPL-2.0-or-later
include(CMakePackageConfigHelpers)

install(TARGETS autoopt EXPORT autoopt-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_SOURCE_DIR}/src/include/autoopt.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT autoopt-targets NAMESPACE autoopt::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/autoopt)

file(WRITE ${CMAKE_BINARY_DIR}/autoopt-config.cmake.in [=[
@PACKAGE_INIT@
# autoopt::autoopt links libautoopt.so (link it before MPI).  AUTOOPT_INJECT_INCLUDE_DIR holds
# the compile-time mpi.h that autoopt-mpicc puts in front of MPICH's.
include("${CMAKE_CURRENT_LIST_DIR}/autoopt-targets.cmake")
set_and_check(AUTOOPT_INJECT_INCLUDE_DIR "@PACKAGE_CMAKE_INSTALL_INCLUDEDIR@/autoopt/inject")
check_required_components(autoopt)
]=])
configure_package_config_file(${CMAKE_BINARY_DIR}/autoopt-config.cmake.in
  ${CMAKE_BINARY_DIR}/autoopt-config.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/autoopt
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/autoopt-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/autoopt-config.cmake ${CMAKE_BINARY_DIR}/autoopt-config-version.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/autoopt)

file(WRITE ${CMAKE_BINARY_DIR}/autoopt.pc.in [=[
prefix=${pcfiledir}/../..
libdir=${prefix}/@CMAKE_INSTALL_LIBDIR@
includedir=${prefix}/@CMAKE_INSTALL_INCLUDEDIR@
injectdir=${includedir}/autoopt/inject

Name: autoopt
Description: transparent run-time optimizer for MPI programs (MPICH)
Version: @PROJECT_VERSION@
Requires.private: mpich
Cflags: -I${includedir}
Libs: -L${libdir} -lautoopt
]=])
configure_file(${CMAKE_BINARY_DIR}/autoopt.pc.in ${CMAKE_BINARY_DIR}/autoopt.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/autoopt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/COPYING
        DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)
