#include "kernel/elf_loader.h"

#include "kernel/elf.h"
#include "kernel/errno.h"
#include "kernel/page_alloc.h"

namespace kernel {
namespace {

constexpr uint64_t kPageMask = pages::kPageBytes - 1;
constexpr uint16_t kMaxSegments = 16;

bool overflows(uint64_t a, uint64_t b) { return a + b < a; }

}  // namespace

int load_elf(AddressSpace& space, const uint8_t* file, uint64_t size, LoadedImage* image) {
  elf::Header h;
  if (size < sizeof h) return ENOEXEC;
  __builtin_memcpy(&h, file, sizeof h);
  if (h.ident[0] != 0x7f || h.ident[1] != 'E' || h.ident[2] != 'L' || h.ident[3] != 'F' ||
      h.ident[4] != 2 /* ELFCLASS64 */ || h.ident[5] != 1 /* little endian */ ||
      h.type != elf::kTypeExec || h.machine != elf::kMachineAlpha ||
      h.phentsize != sizeof(elf::ProgramHeader) || h.phnum == 0 || h.phnum > kMaxSegments ||
      overflows(h.phoff, uint64_t{h.phnum} * sizeof(elf::ProgramHeader)) ||
      h.phoff + uint64_t{h.phnum} * sizeof(elf::ProgramHeader) > size)
    return ENOEXEC;

  elf::ProgramHeader ph[kMaxSegments];
  __builtin_memcpy(ph, file + h.phoff, h.phnum * sizeof(elf::ProgramHeader));
  uint64_t low = ~uint64_t{0}, high = 0;
  for (uint16_t i = 0; i < h.phnum; ++i) {
    const elf::ProgramHeader& p = ph[i];
    if (p.type != elf::kPtLoad || p.memsz == 0) continue;
    if (p.filesz > p.memsz || overflows(p.offset, p.filesz) || p.offset + p.filesz > size ||
        overflows(p.vaddr, p.memsz) || p.vaddr < kUserBottom || p.vaddr + p.memsz > kUserTop)
      return ENOEXEC;
    if (p.vaddr < low) low = p.vaddr;
    if (p.vaddr + p.memsz > high) high = p.vaddr + p.memsz;
  }
  if (high == 0 || h.entry < low || h.entry >= high) return ENOEXEC;

  for (uint16_t i = 0; i < h.phnum; ++i) {
    const elf::ProgramHeader& p = ph[i];
    if (p.type != elf::kPtLoad || p.memsz == 0) continue;
    const bool writable = (p.flags & elf::kPfW) != 0;
    for (uint64_t va = p.vaddr & ~kPageMask; va < p.vaddr + p.memsz; va += pages::kPageBytes) {
      const uint64_t page = map_user_page(space, va, writable);
      if (page == 0) return ENOMEM;
      // The part of this page that the file supplies.
      const uint64_t from = va > p.vaddr ? va : p.vaddr;
      uint64_t to = va + pages::kPageBytes;
      if (to > p.vaddr + p.filesz) to = p.vaddr + p.filesz;
      if (from < to)
        __builtin_memcpy(reinterpret_cast<void*>(page + (from - va)),
                         file + p.offset + (from - p.vaddr), to - from);
    }
  }

  image->entry = h.entry;
  image->low = low;
  image->high = high;
  image->phnum = h.phnum;
  image->phdr = 0;
  for (uint16_t i = 0; i < h.phnum; ++i) {  // headers inside a loaded segment
    const elf::ProgramHeader& p = ph[i];
    if (p.type == elf::kPtLoad && h.phoff >= p.offset && h.phoff < p.offset + p.filesz)
      image->phdr = p.vaddr + (h.phoff - p.offset);
  }
  image->build_id_bytes = elf::file_build_id(file, size, image->build_id, sizeof image->build_id);
  return 0;
}

}  // namespace kernel
