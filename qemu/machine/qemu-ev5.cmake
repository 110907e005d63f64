# Finds the `ev5` machine's patched qemu-system-alpha (qemu/machine/build-qemu.sh,
# cached outside the tree, keyed by QEMU version and patch hash) and the real
# qemu-plugin.h of that source tree. Sets
#   DCPI_EV5_QEMU             the patched binary
#   DCPI_QEMU_PLUGIN_INCLUDE  the directory holding qemu-plugin.h
# setup.sh builds it first; on a fresh clone this builds it (~4 min).
# -DDCPI_EV5=OFF skips it: `dcpi run --machine ev5` then says what to build.
option(DCPI_EV5 "Build the ev5 machine (patched QEMU + the 21164 model plugin)" ON)
set(DCPI_EV5_QEMU "")
set(DCPI_QEMU_PLUGIN_INCLUDE "")
if(DCPI_EV5)
  execute_process(
    COMMAND ${PROJECT_SOURCE_DIR}/qemu/machine/build-qemu.sh
    OUTPUT_VARIABLE _dcpi_qemu_out
    RESULT_VARIABLE _dcpi_qemu_rc)
  if(NOT _dcpi_qemu_rc EQUAL 0)
    message(FATAL_ERROR "qemu/machine/build-qemu.sh failed (${_dcpi_qemu_rc}); "
                        "configure with -DDCPI_EV5=OFF to build without the ev5 machine")
  endif()
  string(STRIP "${_dcpi_qemu_out}" _dcpi_qemu_out)
  string(REGEX REPLACE ".*\n" "" _dcpi_qemu_prefix "${_dcpi_qemu_out}")
  set(DCPI_EV5_QEMU ${_dcpi_qemu_prefix}/bin/qemu-system-alpha)
  set(DCPI_QEMU_PLUGIN_INCLUDE ${_dcpi_qemu_prefix}/include)
  foreach(f ${DCPI_EV5_QEMU} ${DCPI_QEMU_PLUGIN_INCLUDE}/qemu-plugin.h)
    if(NOT EXISTS ${f})
      message(FATAL_ERROR "build-qemu.sh prefix ${_dcpi_qemu_prefix} has no ${f}")
    endif()
  endforeach()
  file(GLOB _dcpi_qemu_patches ${PROJECT_SOURCE_DIR}/qemu/machine/patches/*.patch)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${PROJECT_SOURCE_DIR}/qemu/machine/build-qemu.sh ${_dcpi_qemu_patches})
endif()
