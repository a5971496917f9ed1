# Finds every dependency and stops the configure step with the Debian package to install
# when one is missing.
# SPDX-License-Identifier: GPL-2.0-or-later

function(aot_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "autoopt: ${what} not found: install the Debian package '${package}' "
                        "(apt-get install ${package})")
  endif()
endfunction()

# MPICH by name: on a machine where a package pulled in Open MPI, plain mpicc is Open MPI's.
if(NOT MPI_C_COMPILER)
  find_program(AOT_MPICC_MPICH mpicc.mpich)
  aot_require(AOT_MPICC_MPICH "MPICH compiler wrapper mpicc.mpich" "libmpich-dev")
  set(MPI_C_COMPILER ${AOT_MPICC_MPICH} CACHE FILEPATH "MPI C compiler wrapper")
endif()
if(NOT MPIEXEC_EXECUTABLE)
  find_program(AOT_MPIEXEC_MPICH mpiexec.mpich)
  aot_require(AOT_MPIEXEC_MPICH "MPICH launcher mpiexec.mpich" "mpich")
  set(MPIEXEC_EXECUTABLE ${AOT_MPIEXEC_MPICH} CACHE FILEPATH "MPI launcher")
endif()
find_program(AOT_MPIF90_MPICH mpif90.mpich)
if(AOT_MPIF90_MPICH AND NOT MPI_Fortran_COMPILER)
  set(MPI_Fortran_COMPILER ${AOT_MPIF90_MPICH} CACHE FILEPATH "MPI Fortran compiler wrapper")
endif()
find_package(MPI COMPONENTS C)
aot_require(MPI_C_FOUND "MPI (MPICH)" "libmpich-dev")
set(AOT_HAVE_FORTRAN OFF)
if(AOT_MPIF90_MPICH)
  include(CheckLanguage)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER)
    enable_language(Fortran)
    find_package(MPI COMPONENTS Fortran)
    if(MPI_Fortran_FOUND)
      set(AOT_HAVE_FORTRAN ON)
    endif()
  endif()
endif()
if(NOT AOT_HAVE_FORTRAN)
  message(STATUS "autoopt: no Fortran MPI compiler (gfortran + mpif90.mpich): Fortran tests are off")
endif()

# The real mpi_proto.h the wrappers are generated from.
find_file(AOT_MPI_PROTO_H mpi_proto.h PATHS ${MPI_C_INCLUDE_DIRS} NO_DEFAULT_PATH)
aot_require(AOT_MPI_PROTO_H "MPICH's mpi_proto.h" "libmpich-dev")

find_package(Python3 COMPONENTS Interpreter)
aot_require(Python3_Interpreter_FOUND "python3 (wrapper generator)" "python3")

find_package(PkgConfig)
aot_require(PKG_CONFIG_FOUND "pkg-config" "pkg-config")

find_path(AOT_SIGSEGV_INCLUDE sigsegv.h)
find_library(AOT_SIGSEGV_LIB sigsegv)
aot_require(AOT_SIGSEGV_LIB "libsigsegv" "libsigsegv-dev")
aot_require(AOT_SIGSEGV_INCLUDE "sigsegv.h" "libsigsegv-dev")

pkg_check_modules(AOT_UNWIND libunwind)
aot_require(AOT_UNWIND_FOUND "libunwind" "libunwind-dev")

find_path(AOT_UTHASH_INCLUDE uthash.h)
aot_require(AOT_UTHASH_INCLUDE "uthash.h" "uthash-dev")

# Slurm's host-list parser for topology.conf (collectives/topology_conf.c): the header at build
# time only; libautoopt.so loads libslurm.so.38 with dlopen() when it reads a topology file.
find_path(AOT_SLURM_INCLUDE slurm/slurm.h)
aot_require(AOT_SLURM_INCLUDE "slurm/slurm.h (Slurm's host-list parser, for topology files)"
            "libslurm-dev")

pkg_check_modules(AOT_CHECK check)
aot_require(AOT_CHECK_FOUND "Check unit-test framework" "check")

find_package(Threads REQUIRED)
