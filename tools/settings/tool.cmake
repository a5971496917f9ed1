# SPDX-License-Identifier: GPL-2.0-or-later
# autoopt-settings: the AUTOOPT_* settings (src/settings.def), their values in this environment,
# a check of an environment as MPI_Init does it, and the README's settings table.  It compiles
# the library's pure settings parser and needs nothing of MPI.
add_executable(autoopt-settings ${CMAKE_CURRENT_LIST_DIR}/autoopt_settings.c
               ${PROJECT_SOURCE_DIR}/src/config.c ${PROJECT_SOURCE_DIR}/src/number.c
               ${PROJECT_SOURCE_DIR}/src/quote.c)
target_include_directories(autoopt-settings PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(autoopt-settings PRIVATE AOT_VERSION_STRING="${PROJECT_VERSION}")
set_target_properties(autoopt-settings PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
install(TARGETS autoopt-settings RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# README.md's settings table, between its markers, is what `autoopt-settings --markdown` prints
# (the test docs.settings_up_to_date checks it); this target rewrites it after a change to
# src/settings.def.
add_custom_target(settings-readme
  COMMAND ${CMAKE_COMMAND} -DMODE=update -DREADME=${PROJECT_SOURCE_DIR}/README.md
          -DTOOL=$<TARGET_FILE:autoopt-settings> -P ${CMAKE_CURRENT_LIST_DIR}/readme_table.cmake
  DEPENDS autoopt-settings
  COMMENT "Writing the settings table of README.md from src/settings.def")
