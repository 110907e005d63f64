// The ELF64 structures the kernel reads (executables, shared objects, notes).
#pragma once
#include <cstdint>

namespace kernel::elf {

struct Header {
  uint8_t ident[16];
  uint16_t type, machine;
  uint32_t version;
  uint64_t entry, phoff, shoff;
  uint32_t flags;
  uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct ProgramHeader {
  uint32_t type, flags;
  uint64_t offset, vaddr, paddr, filesz, memsz, align;
};
struct SectionHeader {
  uint32_t name, type;
  uint64_t flags, addr, offset, size;
  uint32_t link, info;
  uint64_t addralign, entsize;
};

inline constexpr uint16_t kTypeExec = 2;
inline constexpr uint16_t kTypeDyn = 3;
inline constexpr uint16_t kMachineAlpha = 0x9026;
inline constexpr uint32_t kPtLoad = 1;
inline constexpr uint32_t kPtInterp = 3;
inline constexpr uint32_t kPtNote = 4;
inline constexpr uint32_t kShtNote = 7;
inline constexpr uint32_t kPfW = 2;
inline constexpr uint32_t kNtGnuBuildId = 3;

// Finds an NT_GNU_BUILD_ID note in [notes, notes + bytes); copies up to
// `capacity` bytes of the ID and returns its length (0 if none).
uint32_t find_build_id(const uint8_t* notes, uint64_t bytes, uint8_t* id, uint32_t capacity);
// The build-id of an ELF file held in memory (PT_NOTE segments, then SHT_NOTE
// sections); 0 if it has none.
uint32_t file_build_id(const uint8_t* file, uint64_t size, uint8_t* id, uint32_t capacity);

}  // namespace kernel::elf
