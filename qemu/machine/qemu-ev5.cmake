# Finds the `ev5` machine's patched qemu-system-alpha (qemu/machine/build-qemu.sh,
# cached outside the tree, keyed by QEMU version and patch hash) and the real
# qemu-plugin.h of that source tree. Sets
#   DCPI_EV5_QEMU             the patched binary (built by the target below)
#   DCPI_QEMU_PLUGIN_INCLUDE  the directory holding qemu-plugin.h
# Configuring needs only the patched header (seconds); the binary is the
# `ev5-qemu` target, outside `all` (~5 min on two cores, cached), so the
# first ./run.sh, which runs the qemu machine, does not wait for it (issue
# 31). ./test.sh builds it; `dcpi run --machine ev5` says how when it is
# missing. -DDCPI_EV5=OFF skips the machine altogether.
option(DCPI_EV5 "Build the ev5 machine (patched QEMU + the 21164 model plugin)" ON)
set(DCPI_EV5_QEMU "")
set(DCPI_QEMU_PLUGIN_INCLUDE "")
if(DCPI_EV5)
  execute_process(
    COMMAND ${PROJECT_SOURCE_DIR}/qemu/machine/build-qemu.sh --header-only
    OUTPUT_VARIABLE _dcpi_qemu_out
    RESULT_VARIABLE _dcpi_qemu_rc)
  if(NOT _dcpi_qemu_rc EQUAL 0)
    message(FATAL_ERROR "qemu/machine/build-qemu.sh --header-only failed (${_dcpi_qemu_rc}); "
                        "configure with -DDCPI_EV5=OFF to build without the ev5 machine")
  endif()
  string(STRIP "${_dcpi_qemu_out}" _dcpi_qemu_out)
  string(REGEX REPLACE ".*\n" "" _dcpi_qemu_prefix "${_dcpi_qemu_out}")
  set(DCPI_EV5_QEMU ${_dcpi_qemu_prefix}/bin/qemu-system-alpha)
  set(DCPI_QEMU_PLUGIN_INCLUDE ${_dcpi_qemu_prefix}/include)
  if(NOT EXISTS ${DCPI_QEMU_PLUGIN_INCLUDE}/qemu-plugin.h)
    message(FATAL_ERROR "build-qemu.sh prefix ${_dcpi_qemu_prefix} has no include/qemu-plugin.h")
  endif()
  file(GLOB _dcpi_qemu_patches ${PROJECT_SOURCE_DIR}/qemu/machine/patches/*.patch)
  add_custom_command(
    OUTPUT ${DCPI_EV5_QEMU}
    COMMAND ${PROJECT_SOURCE_DIR}/qemu/machine/build-qemu.sh
    COMMENT "Building the ev5 machine's patched qemu-system-alpha (cached; ~5 min the first time)"
    USES_TERMINAL)
  # The path names the patches' hash: a changed patch is a new, missing file.
  add_custom_target(ev5-qemu DEPENDS ${DCPI_EV5_QEMU})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${PROJECT_SOURCE_DIR}/qemu/machine/build-qemu.sh ${_dcpi_qemu_patches})
endif()
