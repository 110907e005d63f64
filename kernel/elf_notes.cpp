#include "kernel/elf_format.h"

namespace kernel::elf {

uint32_t find_build_id(const uint8_t* notes, uint64_t bytes, uint8_t* id, uint32_t capacity) {
  uint64_t offset = 0;
  while (offset + 12 <= bytes) {
    uint32_t name_size, desc_size, type;
    __builtin_memcpy(&name_size, notes + offset, 4);
    __builtin_memcpy(&desc_size, notes + offset + 4, 4);
    __builtin_memcpy(&type, notes + offset + 8, 4);
    const uint64_t name_at = offset + 12;
    const uint64_t desc_at = name_at + ((uint64_t{name_size} + 3) & ~uint64_t{3});
    const uint64_t next = desc_at + ((uint64_t{desc_size} + 3) & ~uint64_t{3});
    if (next > bytes) return 0;
    if (type == kNtGnuBuildId && name_size == 4 && notes[name_at] == 'G' &&
        notes[name_at + 1] == 'N' && notes[name_at + 2] == 'U' && notes[name_at + 3] == 0) {
      const uint32_t n = desc_size < capacity ? desc_size : capacity;
      for (uint32_t i = 0; i < n; ++i) id[i] = notes[desc_at + i];
      return n;
    }
    offset = next;
  }
  return 0;
}

uint32_t file_build_id(const uint8_t* file, uint64_t size, uint8_t* id, uint32_t capacity) {
  if (size < sizeof(Header)) return 0;
  Header h;
  __builtin_memcpy(&h, file, sizeof h);
  for (uint16_t i = 0; i < h.phnum && h.phentsize == sizeof(ProgramHeader); ++i) {
    const uint64_t at = h.phoff + uint64_t{i} * sizeof(ProgramHeader);
    if (at + sizeof(ProgramHeader) > size) break;
    ProgramHeader p;
    __builtin_memcpy(&p, file + at, sizeof p);
    if (p.type != kPtNote || p.offset + p.filesz > size) continue;
    if (const uint32_t n = find_build_id(file + p.offset, p.filesz, id, capacity)) return n;
  }
  for (uint16_t i = 0; i < h.shnum && h.shentsize == sizeof(SectionHeader); ++i) {
    const uint64_t at = h.shoff + uint64_t{i} * sizeof(SectionHeader);
    if (at + sizeof(SectionHeader) > size) break;
    SectionHeader s;
    __builtin_memcpy(&s, file + at, sizeof s);
    if (s.type != kShtNote || s.offset + s.size > size) continue;
    if (const uint32_t n = find_build_id(file + s.offset, s.size, id, capacity)) return n;
  }
  return 0;
}

}  // namespace kernel::elf
