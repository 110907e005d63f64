# The real mix (issue 15, 29): lua, bzip2, minigzip, dash, xz and sqlite3 cross-built from Debian
# source packages by toolchain/build-real-programs.sh (cached in
# ~/.cache/dcpi, instant when the build for the current recipe exists; the
# first build downloads the sources with apt-get source). The build directory
# gets mixes/real -> that prefix, where `dcpi run --mix real` finds them.
# -DDCPI_REAL_PROGRAMS=OFF builds without them (no real-mix tests).
option(DCPI_REAL_PROGRAMS "Cross-build the real mix from Debian sources" ON)
if(NOT DCPI_REAL_PROGRAMS)
  return()
endif()
# Configuring only asks where the mix goes (seconds); building it is the
# `real-programs` target, outside `all` (~6 min the first time, cached), so
# the first ./run.sh, which runs the default mix, does not wait for it
# (issue 31). ./test.sh builds it; `dcpi run --mix real` says how when it is
# missing.
execute_process(
  COMMAND ${PROJECT_SOURCE_DIR}/toolchain/build-real-programs.sh --prefix-only
  OUTPUT_VARIABLE _dcpi_real_out
  RESULT_VARIABLE _dcpi_real_rc)
if(NOT _dcpi_real_rc EQUAL 0)
  message(FATAL_ERROR "toolchain/build-real-programs.sh --prefix-only failed (${_dcpi_real_rc}); run "
                      "toolchain/install-deps.sh (deb-src line) or configure with "
                      "-DDCPI_REAL_PROGRAMS=OFF")
endif()
string(STRIP "${_dcpi_real_out}" _dcpi_real_out)
string(REGEX REPLACE ".*\n" "" DCPI_REAL_PREFIX "${_dcpi_real_out}")
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/mixes)
file(CREATE_LINK ${DCPI_REAL_PREFIX} ${CMAKE_BINARY_DIR}/mixes/real SYMBOLIC)
# The stamp names the recipe's hash: a changed recipe is a new, missing file.
add_custom_command(
  OUTPUT ${DCPI_REAL_PREFIX}/.complete
  COMMAND ${PROJECT_SOURCE_DIR}/toolchain/build-real-programs.sh
  COMMENT "Cross-building the real mix from Debian sources (cached; ~6 min the first time)"
  USES_TERMINAL)
add_custom_target(real-programs DEPENDS ${DCPI_REAL_PREFIX}/.complete)
file(GLOB _dcpi_real_recipe ${PROJECT_SOURCE_DIR}/workloads/real/*)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/toolchain/build-real-programs.sh ${_dcpi_real_recipe})
