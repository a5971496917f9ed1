# Helpers for MPI tests run through CTest and mpiexec.mpich.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# aot_add_mpi_executable(<name> <sources...> [LINK <libs...>])
#   Builds <name> against MPICH only, and <name>-inject against autoopt's compile-time mpi.h
#   (the same sources, as autoopt-mpicc would build them).
#
# aot_add_mpi_test(<name> NP <n> COMMAND <target-or-path> [args...]
#                  [MODES native|preload|inject ...]   default: preload
#                  [ENV VAR=value ...] [LABELS ...] [TIMEOUT s]
#                  [PASS_REGEX re] [FAIL_REGEX re] [WILL_FAIL] [EXIT_NONZERO])
#   Registers one CTest test per mode, named <name>.<mode>. "preload" puts libautoopt.so in
#   LD_PRELOAD of mpiexec (so mpiexec itself runs with it, as users run it); "inject" runs the
#   <target>-inject build. With more ranks than AOT_TEST_YIELD_ABOVE every mode also preloads
#   the yield-when-idle library from tools/yield (the same policy for every mode; see below).
#   With PASS_REGEX a non-zero exit status fails the test too (CTest alone would ignore it);
#   EXIT_NONZERO: the program must exit non-zero (a usage error, a failed check it reports).
#   A test of label paging, chains or fault with a preload mode also gets <name>.baremetal
#   (below), unless it sets AUTOOPT_STATS, AUTOOPT_CHAINS=unguarded or AUTOOPT_CHAIN_VERIFY.

# The default configuration as it behaves where a guard is cheap (issue 55, item 11).  On this
# project's virtual machines a guard has been measured at 2.4-31 us, and the benefit governor
# may never choose the guarded mode there; a bare-metal node protects a page in 1-3 us, and
# there the default's governor does choose it.  <name>.baremetal runs the preload test with
# every point-to-point setting of the test dropped (the default configuration) and the figures
# of such a node given as the calibration, and writes the statistics JSON beside it, so that
# tests/baremetal_check.py can show that the governors ran the guarded mode somewhere.
set(AOT_BAREMETAL_CALIB "guard=2000,page=200,copy=100" CACHE STRING
    "AUTOOPT_CALIB of the .baremetal tests: a bare-metal node's guard, page and copy costs (ns)")
set(AOT_BAREMETAL_DROP AUTOOPT_P2P_MODE AUTOOPT_CALIB AUTOOPT_CONVERT AUTOOPT_CONVERT_MIN
    AUTOOPT_LEARN_TOUCH AUTOOPT_CHAINS AUTOOPT_CHAIN_CONFIRM AUTOOPT_CHAIN_MAX_BREAKS)

# Test jobs of more ranks than AOT_TEST_YIELD_ABOVE preload the yield-when-idle library.  The
# suite runs its jobs side by side (ctest -j4 on 2 cores), so a job has fewer cores than ranks
# even when the machine has as many: its spinning ranks took the time slices of the jobs
# beside it (a 2-rank loop of 6000 allreduces took 73 s instead of 0.5 s in one CI run).
# Default 1: every job of 2 ranks or more yields when idle; the tests judge results, never
# time.  -DAOT_TEST_YIELD_ABOVE=<cores> keeps busy polling while a job fits the cores.
set(AOT_TEST_YIELD_ABOVE 1 CACHE STRING
    "MPI test jobs of more ranks than this preload the yield-when-idle library")

# aot_add_mpi_executable(name sources... [FORTRAN] [LINK libs...] [INCLUDE dirs...]
#                        [OPTIONS flags...]): the program and its -inject twin (built against
# the injection header and libautoopt), both with the same libraries, include directories and
# compile options.
function(aot_add_mpi_executable name)
  cmake_parse_arguments(E "FORTRAN" "" "LINK;INCLUDE;OPTIONS" ${ARGN})
  set(srcs ${E_UNPARSED_ARGUMENTS})
  foreach(variant "" "-inject")
    set(t ${name}${variant})
    add_executable(${t} ${srcs})
    if(E_INCLUDE)
      target_include_directories(${t} PRIVATE ${E_INCLUDE})
    endif()
    if(E_OPTIONS)
      target_compile_options(${t} PRIVATE ${E_OPTIONS})
    endif()
    if(E_FORTRAN)
      target_link_libraries(${t} PRIVATE MPI::MPI_Fortran ${E_LINK})
    else()
      target_link_libraries(${t} PRIVATE MPI::MPI_C ${E_LINK})
    endif()
    if(variant STREQUAL "-inject")
      target_include_directories(${t} BEFORE PRIVATE ${AOT_INJECT_INCLUDE_DIR})
      target_link_libraries(${t} PRIVATE autoopt)
      add_dependencies(${t} aot_inject_header)
    endif()
  endforeach()
endfunction()

# Sanitizer build: mpiexec is not instrumented, so a preloaded libautoopt.so needs the
# sanitizer runtimes ahead of it in LD_PRELOAD; MPICH and UCX keep memory to the end of the
# process, so leak checking is off (docs/testing.md, "Sanitizers").
set(AOT_SANITIZER_PRELOAD "")
set(AOT_SANITIZER_ENV "")
if(AUTOOPT_SANITIZE)
  foreach(rt asan ubsan)
    if((rt STREQUAL "asan" AND AUTOOPT_SANITIZE MATCHES "address")
       OR (rt STREQUAL "ubsan" AND AUTOOPT_SANITIZE MATCHES "undefined"))
      execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=lib${rt}.so
                      OUTPUT_VARIABLE rtpath OUTPUT_STRIP_TRAILING_WHITESPACE)
      list(APPEND AOT_SANITIZER_PRELOAD ${rtpath})
    endif()
  endforeach()
  list(JOIN AOT_SANITIZER_PRELOAD ":" AOT_SANITIZER_PRELOAD)
  set(AOT_SANITIZER_ENV "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allow_user_segv_handler=1"
                        "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()

# What tests put in LD_PRELOAD for libautoopt.so and the yield-when-idle library (with the
# sanitizer runtimes in front of them in a sanitizer build).
if(AOT_SANITIZER_PRELOAD)
  set(AOT_PRELOAD_LIB "${AOT_SANITIZER_PRELOAD}:$<TARGET_FILE:autoopt>")
  set(AOT_PRELOAD_YIELD "${AOT_SANITIZER_PRELOAD}:$<TARGET_FILE:autoopt-yield>")
else()
  set(AOT_PRELOAD_LIB "$<TARGET_FILE:autoopt>")
  set(AOT_PRELOAD_YIELD "$<TARGET_FILE:autoopt-yield>")
endif()

function(aot_add_mpi_test name)
  cmake_parse_arguments(T "WILL_FAIL;EXIT_NONZERO" "NP;TIMEOUT;PASS_REGEX;FAIL_REGEX"
                        "COMMAND;MODES;ENV;LABELS" ${ARGN})
  if(NOT T_NP)
    set(T_NP 1)
  endif()
  if(NOT T_MODES)
    set(T_MODES preload)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  list(POP_FRONT T_COMMAND exe)
  set(bare_env "")
  set(bare 0)
  if("preload" IN_LIST T_MODES AND NOT T_WILL_FAIL AND NOT T_EXIT_NONZERO AND T_PASS_REGEX)
    foreach(l paging chains fault)
      if(l IN_LIST T_LABELS)
        set(bare 1)
      endif()
    endforeach()
  endif()
  foreach(e IN LISTS T_ENV)
    string(REGEX REPLACE "=.*" "" var "${e}")
    if(var STREQUAL "AUTOOPT_STATS" OR var STREQUAL "AUTOOPT_CHAIN_VERIFY"
       OR e STREQUAL "AUTOOPT_CHAINS=unguarded")
      set(bare 0)
    elseif(NOT var IN_LIST AOT_BAREMETAL_DROP)
      list(APPEND bare_env "${e}")
    endif()
  endforeach()
  set(bare_modes "")
  if(bare)
    # variants of one test that differ only in the settings dropped run once
    string(MD5 bare_key "${exe};${T_NP};${T_COMMAND};${bare_env}")
    get_property(bare_keys GLOBAL PROPERTY AOT_BAREMETAL_KEYS)
    if(NOT bare_key IN_LIST bare_keys)
      set_property(GLOBAL APPEND PROPERTY AOT_BAREMETAL_KEYS ${bare_key})
      set(bare_modes baremetal)
    endif()
  endif()
  foreach(mode IN LISTS T_MODES bare_modes)
    set(prog ${exe})
    # no test reads or writes the user's cache of decisions (docs/cache.md) unless it says so:
    # a verdict cached by an earlier run would change what a governor does (the later wins)
    set(env AUTOOPT_CACHE=off ${T_ENV} ${AOT_SANITIZER_ENV})
    set(preload "")
    if(mode STREQUAL "inject")
      set(prog "${exe}-inject")
    elseif(mode STREQUAL "preload")
      set(preload "$<TARGET_FILE:autoopt>")
    elseif(mode STREQUAL "baremetal")
      set(preload "$<TARGET_FILE:autoopt>")
      set(env AUTOOPT_CACHE=off ${bare_env} ${AOT_SANITIZER_ENV} "AUTOOPT_CALIB=${AOT_BAREMETAL_CALIB}"
              "AUTOOPT_STATS=${CMAKE_BINARY_DIR}/baremetal/${name}.json")
      set_property(GLOBAL APPEND PROPERTY AOT_BAREMETAL_TESTS ${name}.baremetal)
    elseif(NOT mode STREQUAL "native")
      message(FATAL_ERROR "aot_add_mpi_test(${name}): unknown mode '${mode}'")
    endif()
    if(TARGET ${prog})
      set(prog "$<TARGET_FILE:${prog}>")
    endif()
    if(T_NP GREATER AOT_TEST_YIELD_ABOVE)
      if(preload)
        set(preload "${preload}:$<TARGET_FILE:autoopt-yield>")
      else()
        set(preload "$<TARGET_FILE:autoopt-yield>")
      endif()
    endif()
    if(preload AND AOT_SANITIZER_PRELOAD)
      set(preload "${AOT_SANITIZER_PRELOAD}:${preload}")
    endif()
    if(preload)
      list(APPEND env "LD_PRELOAD=${preload}")
    endif()
    if(T_EXIT_NONZERO)
      # a usage error or a failed check that the program must report with a non-zero status
      add_test(NAME ${name}.${mode}
               COMMAND sh -c "\"$@\"; rc=$?; [ $rc -ne 0 ] || echo \"aot-test: exit status 0, expected non-zero\"; exit 0"
                       sh ${MPIEXEC_EXECUTABLE} -n ${T_NP} ${prog} ${T_COMMAND})
    elseif(T_PASS_REGEX)
      # CTest ignores the exit status of a test that has a pass regex: a rank that printed
      # "No Errors" would hide another that crashed, hung until mpiexec gave up, or failed a
      # sanitizer check at exit.  The status is printed, and a non-zero one fails the test.
      add_test(NAME ${name}.${mode}
               COMMAND sh -c "\"$@\"; rc=$?; [ $rc -eq 0 ] || echo \"aot-test: exit status $rc\"; exit $rc"
                       sh ${MPIEXEC_EXECUTABLE} -n ${T_NP} ${prog} ${T_COMMAND})
    else()
      add_test(NAME ${name}.${mode}
               COMMAND ${MPIEXEC_EXECUTABLE} -n ${T_NP} ${prog} ${T_COMMAND})
    endif()
    set_tests_properties(${name}.${mode} PROPERTIES
      TIMEOUT ${T_TIMEOUT} PROCESSORS 2 ENVIRONMENT "${env}" LABELS "mpi;${mode};${T_LABELS}")
    if(T_PASS_REGEX)
      set_tests_properties(${name}.${mode} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS_REGEX}")
    endif()
    set(fail_regex ${T_FAIL_REGEX})
    if(T_EXIT_NONZERO)
      list(APPEND fail_regex "aot-test: exit status 0, expected non-zero")
    elseif(T_PASS_REGEX AND NOT T_WILL_FAIL)
      list(APPEND fail_regex "aot-test: exit status [1-9]")
    endif()
    if(fail_regex)
      set_tests_properties(${name}.${mode} PROPERTIES FAIL_REGULAR_EXPRESSION "${fail_regex}")
    endif()
    if(T_WILL_FAIL)
      set_tests_properties(${name}.${mode} PROPERTIES WILL_FAIL TRUE)
    endif()
  endforeach()
endfunction()
