# Host half of the build (native). Builds the guest half as an ExternalProject.
include(ExternalProject)
include(GNUInstallDirs)  # install.cmake; workloads/ installs its programs
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE RelWithDebInfo)
endif()
add_compile_options(-Wall -Wextra)

set(DCPI_GUEST_BINARY_DIR ${CMAKE_BINARY_DIR}/guest)
ExternalProject_Add(guest
  SOURCE_DIR ${CMAKE_SOURCE_DIR}
  BINARY_DIR ${DCPI_GUEST_BINARY_DIR}
  CMAKE_ARGS -DCMAKE_TOOLCHAIN_FILE=${CMAKE_SOURCE_DIR}/toolchain/alpha-freestanding.cmake
             -DCMAKE_BUILD_TYPE=Release
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON
  USES_TERMINAL_BUILD ON)
set(DCPI_PALCODE_ELF ${DCPI_GUEST_BINARY_DIR}/palcode/palcode.elf)
set(DCPI_KERNEL_ELF ${DCPI_GUEST_BINARY_DIR}/kernel/kernel.elf)
# The workloads: Alpha ELFs (unstripped, with build-ids) and the initrd that
# carries them (/bin/<workload>, /etc/*.mix); native builds for comparison.
set(DCPI_WORKLOADS_ALPHA_DIR ${DCPI_GUEST_BINARY_DIR}/workloads)
set(DCPI_INITRD ${DCPI_WORKLOADS_ALPHA_DIR}/initrd.cpio)
set(DCPI_WORKLOADS_NATIVE_DIR ${CMAKE_BINARY_DIR}/workloads/native)
include(${CMAKE_SOURCE_DIR}/toolchain/real-programs.cmake)  # build/mixes/real
include(${CMAKE_SOURCE_DIR}/qemu/machine/qemu-ev5.cmake)      # the ev5 machine's QEMU

enable_testing()
# elfutils: symbols reads images with it, qemu/bundle programs to run.
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET GLOBAL libelf)
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET GLOBAL libdw)
# {fmt} (Debian's libfmt-dev): hex and padded numbers in messages and file
# names for the rooms below analysis/ (issue 24 item 5; GCC 12 has no
# std::format). The report helpers stay in analysis/reports/report_output.h.
find_package(fmt REQUIRED)
add_subdirectory(qemu)
add_subdirectory(isa)
add_subdirectory(profiledb)
add_subdirectory(symbols)
add_subdirectory(hostdump)
add_subdirectory(analysis)
add_subdirectory(workloads)
add_subdirectory(tests)
include(install.cmake)

# What `./run.sh` needs for the default run and its report (issue 31: the
# first report sooner): dcpi, the guest (PALcode, kernel, initrd, workloads)
# and the small plug-ins `dcpi run` loads for --values, --truth and
# --contexts. Tests, benchmarks and the ev5 machine (target ev5-qemu, with
# libdcpi_ev5.so) are built by `./test.sh` or when first asked for.
add_custom_target(dcpi-run)
add_dependencies(dcpi-run dcpi guest dcpi_values_address dcpi_values_latency dcpi_exec_counts)
if(TARGET dcpi_contexts)
  add_dependencies(dcpi-run dcpi_contexts)
endif()
