# Finds the Alpha newlib build for user programs: sets DCPI_NEWLIB_PREFIX to
# the install prefix printed (last stdout line) by toolchain/build-newlib.sh.
# The script returns at once when the cached build for the current recipe
# exists (setup.sh builds it before configuring) and builds it otherwise
# (~1 min), so this also works on a fresh clone. The prefix is not cached:
# it changes with the recipe, and CMake re-runs this on any change to the
# recipe files (CMAKE_CONFIGURE_DEPENDS).
if(NOT DCPI_NEWLIB_PREFIX)
  execute_process(
    COMMAND ${PROJECT_SOURCE_DIR}/toolchain/build-newlib.sh
    OUTPUT_VARIABLE _dcpi_newlib_out
    RESULT_VARIABLE _dcpi_newlib_rc)
  if(NOT _dcpi_newlib_rc EQUAL 0)
    message(FATAL_ERROR "toolchain/build-newlib.sh failed (${_dcpi_newlib_rc})")
  endif()
  string(STRIP "${_dcpi_newlib_out}" _dcpi_newlib_out)
  string(REGEX REPLACE ".*\n" "" DCPI_NEWLIB_PREFIX "${_dcpi_newlib_out}")
endif()
foreach(f libc.a libm.a)
  if(NOT EXISTS ${DCPI_NEWLIB_PREFIX}/lib/${f})
    message(FATAL_ERROR "newlib prefix ${DCPI_NEWLIB_PREFIX} has no lib/${f}")
  endif()
endforeach()
file(GLOB _dcpi_newlib_recipe ${PROJECT_SOURCE_DIR}/toolchain/newlib/*)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/toolchain/build-newlib.sh ${_dcpi_newlib_recipe})
