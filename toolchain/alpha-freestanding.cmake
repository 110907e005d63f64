# CMake toolchain file: Debian's Alpha cross compiler, freestanding C++20 for
# guest code (PALcode, kernel, driver). User programs link newlib instead; see
# toolchain/build-newlib.sh.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR alpha)
set(DCPI_GUEST ON)

set(CMAKE_C_COMPILER alpha-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER alpha-linux-gnu-g++)
set(CMAKE_ASM_COMPILER alpha-linux-gnu-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# -mcpu=ev56: the 21164A (EV5 with BWX), the processor DCPI's numbers describe.
# QEMU emulates an EV67, which executes every EV56 instruction.
set(DCPI_GUEST_ARCH_FLAGS "-mcpu=ev56 -mno-fp-regs")
set(CMAKE_C_FLAGS_INIT "${DCPI_GUEST_ARCH_FLAGS} -ffreestanding -fno-builtin -fno-pic -fno-stack-protector")
set(CMAKE_CXX_FLAGS_INIT "${CMAKE_C_FLAGS_INIT} -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
# -m21264 lets GNU as accept the hw_* PALmode instructions in QEMU's (EV6) encoding.
set(CMAKE_ASM_FLAGS_INIT "-Wa,-m21264")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostdlib -static -Wl,--build-id=sha1 -Wl,-z,noexecstack")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
