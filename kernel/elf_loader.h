// Loads an Alpha ELF executable or shared object (held in memory, e.g. an
// initrd file) into an address space: ET_EXEC at its link address, ET_DYN
// (PIE programs, the dynamic loader) at a chosen base.
#pragma once
#include <cstdint>

#include "kernel/address_space.h"

namespace kernel {

inline constexpr uint64_t kInterpreterPathMax = 128;

struct LoadedImage {
  uint64_t entry;  // run-time address
  uint64_t bias;   // run-time address - link address (0 for ET_EXEC)
  uint64_t low;    // lowest PT_LOAD link vaddr
  uint64_t high;   // end of the highest PT_LOAD (memsz), link vaddr
  uint64_t phdr;   // run-time VA of the program headers (0 if not mapped)
  uint16_t phnum;
  uint32_t build_id_bytes;
  uint8_t build_id[32];
  char interpreter[kInterpreterPathMax];  // PT_INTERP, "" for a static program
  const char* failure;                    // why it did not load (console text)
};

// 0, or a positive errno: ENOEXEC for anything malformed or not for this
// machine (image->failure says what), ENOMEM. An ET_DYN image is placed at
// `dyn_base` (page aligned).
int load_elf(AddressSpace& space, const uint8_t* file, uint64_t size, uint64_t dyn_base,
             LoadedImage* image);

// The link address of file offset `offset` in an ELF file held in memory
// (the PT_LOAD that maps it), or `offset` itself if no segment does: what a
// loader notification for a file mapping records (DCPI §4.3.2).
uint64_t elf_link_address_of_offset(const uint8_t* file, uint64_t size, uint64_t offset);

}  // namespace kernel
