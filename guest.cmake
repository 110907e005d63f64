# Guest half of the build (Alpha, cross-compiled). Selected by
# toolchain/alpha-freestanding.cmake, which sets DCPI_GUEST.
enable_language(ASM)
add_subdirectory(isa)
add_subdirectory(palcode)
add_subdirectory(driver)
add_subdirectory(tests/guest/selftest)
add_subdirectory(kernel)
add_subdirectory(workloads)
add_subdirectory(tests/guest/user)
