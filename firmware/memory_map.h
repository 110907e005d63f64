/* The machine's address map and size limits, shared by PALcode (assembly),
 * the kernel and driver (C++), user programs (C) and the host tools (C++):
 * defined once here (issue 13). Plain #defines for the assembler and C; the
 * C++ names below are the same values.
 *
 * KSEG is the kernel's direct map of physical memory (Alpha AXP System
 * Reference Manual, OSF/1 PALcode): virtual KSEG_BASE + physical, 2^41
 * bytes, reachable only in kernel mode. The kernel runs there, and the host
 * turns a kernel symbol into the physical address QEMU's GDB stub reads
 * (DESIGN §3). */
#ifndef DCPI_FIRMWARE_MEMORY_MAP_H
#define DCPI_FIRMWARE_MEMORY_MAP_H

#define KSEG_BASE 0xfffffc0000000000
#define DCPI_KSEG_SIZE_SHIFT 41
/* PALcode occupies physical [0, 1 MB), the kernel starts above it
 * (palcode/palcode.ld, kernel/kernel.ld): the ev5 model tells PAL mode from
 * the PC with it. */
#define DCPI_PALCODE_REGION_BYTES 0x100000
/* Alpha's 8 KB page (the kernel's page tables and allocator). */
#define DCPI_PAGE_SHIFT 13
/* The emulated machine (clipper, Typhoon) has at most four CPUs; every
 * per-CPU array on the guest and the host readers are this long. */
#define DCPI_MAX_CPUS 4

#if defined(__cplusplus) && !defined(__ASSEMBLER__)
#include <cstdint>

namespace dcpi {

inline constexpr uint64_t kKsegBase = KSEG_BASE;
inline constexpr uint64_t kKsegSize = uint64_t{1} << DCPI_KSEG_SIZE_SHIFT;
inline constexpr uint32_t kMaxCpus = DCPI_MAX_CPUS;
inline constexpr uint64_t kPageShift = DCPI_PAGE_SHIFT;
inline constexpr uint64_t kPageBytes = uint64_t{1} << DCPI_PAGE_SHIFT;

// What guest memory must hold beside the initrd (QEMU puts it at the top):
// the kernel image, its tables and the workloads' own pages. The host refuses
// an initrd or a --file that leaves less before boot (issue 30).
inline constexpr uint64_t kGuestMemoryBesideInitrd = uint64_t{32} << 20;

constexpr bool is_palcode_address(uint64_t address) {
  return address - kKsegBase < DCPI_PALCODE_REGION_BYTES;
}
constexpr bool is_kseg_address(uint64_t address) { return address - kKsegBase < kKsegSize; }
// For an address inside KSEG (is_kseg_address); the caller checks.
constexpr uint64_t kseg_to_physical(uint64_t address) { return address - kKsegBase; }
constexpr uint64_t physical_to_kseg(uint64_t physical) { return physical + kKsegBase; }

}  // namespace dcpi
#endif

#endif
