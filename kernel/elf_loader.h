// Loads a static ET_EXEC Alpha executable (held in memory, e.g. an initrd
// file) into an address space.
#pragma once
#include <cstdint>

#include "kernel/address_space.h"

namespace kernel {

struct LoadedImage {
  uint64_t entry;
  uint64_t low;   // lowest PT_LOAD vaddr (load = link address: ET_EXEC)
  uint64_t high;  // end of the highest PT_LOAD (memsz)
  uint64_t phdr;  // user VA of the program headers (0 if not mapped)
  uint16_t phnum;
  uint32_t build_id_bytes;
  uint8_t build_id[32];
};

// 0, or a positive errno: ENOEXEC for anything malformed, ENOMEM.
int load_elf(AddressSpace& space, const uint8_t* file, uint64_t size, LoadedImage* image);

}  // namespace kernel
