# `cmake --install build --prefix P`: dcpi and everything it needs at run
# time under P, laid out so the installed dcpi finds its guest files
# (analysis/cli/command_run.cpp, default_build_directory):
#   P/bin/dcpi
#   P/share/dcpi/guest/palcode/palcode.elf, guest/kernel/kernel.elf,
#   P/share/dcpi/guest/workloads/initrd.cpio and the unstripped workloads
#     (their debug twins, which dcpi run records for the reports)
#   P/lib/dcpi/libdcpi_values_*.so (customization plug-ins), libdcpi_exec_counts.so,
#   libdcpi_ev5.so and qemu-system-alpha-ev5 (the ev5 machine)
#   P/share/doc/dcpi/ (README, docs/), P/share/man/man1/dcpi*.1 (help2man)
install(TARGETS dcpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS dcpi_values_address dcpi_values_latency dcpi_exec_counts
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/dcpi)
if(TARGET dcpi_ev5)  # the ev5 machine: the 21164 model (its QEMU: qemu/CMakeLists.txt)
  install(TARGETS dcpi_ev5 LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/dcpi)
endif()
set(DCPI_INSTALL_GUEST ${CMAKE_INSTALL_DATADIR}/dcpi/guest)
install(FILES ${DCPI_PALCODE_ELF} DESTINATION ${DCPI_INSTALL_GUEST}/palcode)
install(FILES ${DCPI_KERNEL_ELF} DESTINATION ${DCPI_INSTALL_GUEST}/kernel)
install(FILES ${DCPI_INITRD} DESTINATION ${DCPI_INSTALL_GUEST}/workloads)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
if(DCPI_HELP2MAN)  # analysis/cli/CMakeLists.txt generates them
  install(DIRECTORY ${CMAKE_BINARY_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          FILES_MATCHING PATTERN "*.1")
endif()
