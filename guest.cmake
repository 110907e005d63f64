# Guest half of the build (Alpha, cross-compiled). Selected by
# toolchain/alpha-freestanding.cmake, which sets DCPI_GUEST.
enable_language(ASM)
add_subdirectory(isa)
add_subdirectory(palcode)
add_subdirectory(kernel)
