#include "kernel/elf_loader.h"

#include "kernel/elf_format.h"
#include "kernel/linux_errno.h"
#include "kernel/page_alloc.h"

namespace kernel {
namespace {

constexpr uint64_t kPageMask = pages::kPageBytes - 1;
constexpr uint16_t kMaxSegments = 16;

bool overflows(uint64_t a, uint64_t b) { return a + b < a; }

// The header checks every loader shares; nullptr if fine, else why not.
const char* check_header(const elf::Header& h, uint64_t size) {
  if (h.ident[0] != 0x7f || h.ident[1] != 'E' || h.ident[2] != 'L' || h.ident[3] != 'F')
    return "not an ELF file";
  if (h.ident[4] != 2 /* ELFCLASS64 */ || h.ident[5] != 1 /* little endian */ ||
      h.machine != elf::kMachineAlpha)
    return "not an Alpha ELF (wrong architecture)";
  if (h.type != elf::kTypeExec && h.type != elf::kTypeDyn) return "not an executable";
  if (h.phentsize != sizeof(elf::ProgramHeader) || h.phnum == 0 || h.phnum > kMaxSegments ||
      overflows(h.phoff, uint64_t{h.phnum} * sizeof(elf::ProgramHeader)) ||
      h.phoff + uint64_t{h.phnum} * sizeof(elf::ProgramHeader) > size)
    return "malformed program headers";
  return nullptr;
}

bool read_headers(const uint8_t* file, uint64_t size, elf::Header* h, elf::ProgramHeader* ph) {
  if (size < sizeof *h) return false;
  __builtin_memcpy(h, file, sizeof *h);
  if (check_header(*h, size) != nullptr) return false;
  __builtin_memcpy(ph, file + h->phoff, h->phnum * sizeof(elf::ProgramHeader));
  return true;
}

// Copies one PT_LOAD into fresh pages at vaddr + bias.
int map_segment(AddressSpace& space, const uint8_t* file, const elf::ProgramHeader& p,
                uint64_t bias) {
  const UserAccess access = (p.flags & elf::kPfW) ? UserAccess::kReadWrite : UserAccess::kRead;
  const uint64_t start = p.vaddr + bias;
  for (uint64_t va = start & ~kPageMask; va < start + p.memsz; va += pages::kPageBytes) {
    // Two segments may share a page (the end of text, the start of data).
    uint64_t page = user_page_kseg(space, va);
    if (page == 0)
      page = map_fresh_user_page(space, va, access);
    else if (access == UserAccess::kReadWrite)
      set_user_page_access(space, va, access);
    if (page == 0) return ENOMEM;
    const uint64_t from = va > start ? va : start;
    uint64_t to = va + pages::kPageBytes;
    if (to > start + p.filesz) to = start + p.filesz;
    if (from < to)
      __builtin_memcpy(reinterpret_cast<void*>(page + (from - va)),
                       file + p.offset + (from - start), to - from);
  }
  return 0;
}

void read_interpreter(const uint8_t* file, const elf::ProgramHeader& p, LoadedImage* image) {
  uint64_t n = p.filesz < kInterpreterPathMax ? p.filesz : kInterpreterPathMax - 1;
  __builtin_memcpy(image->interpreter, file + p.offset, n);
  image->interpreter[n] = 0;
}

}  // namespace

int load_elf(AddressSpace& space, const uint8_t* file, uint64_t size, uint64_t dyn_base,
             LoadedImage* image) {
  *image = LoadedImage{};
  elf::Header h;
  if (size < sizeof h) return image->failure = "not an ELF file", ENOEXEC;
  __builtin_memcpy(&h, file, sizeof h);
  if ((image->failure = check_header(h, size)) != nullptr) return ENOEXEC;
  elf::ProgramHeader ph[kMaxSegments];
  __builtin_memcpy(ph, file + h.phoff, h.phnum * sizeof(elf::ProgramHeader));
  uint64_t low = ~uint64_t{0}, high = 0;
  for (uint16_t i = 0; i < h.phnum; ++i) {
    const elf::ProgramHeader& p = ph[i];
    if (p.type == elf::kPtInterp && p.offset + p.filesz <= size && p.filesz > 1)
      read_interpreter(file, p, image);
    if (p.type != elf::kPtLoad || p.memsz == 0) continue;
    if (p.filesz > p.memsz || overflows(p.offset, p.filesz) || p.offset + p.filesz > size ||
        overflows(p.vaddr, p.memsz) || p.vaddr + p.memsz > kUserTop)
      return image->failure = "a segment outside the file or the user half", ENOEXEC;
    if (p.vaddr < low) low = p.vaddr;
    if (p.vaddr + p.memsz > high) high = p.vaddr + p.memsz;
  }
  const uint64_t bias = h.type == elf::kTypeDyn ? dyn_base - (low & ~kPageMask) : 0;
  if (high == 0 || h.entry < low || h.entry >= high || low + bias < kUserBottom ||
      high + bias > kUserTop)
    return image->failure = "no loadable segment holds the entry point", ENOEXEC;
  for (uint16_t i = 0; i < h.phnum; ++i)
    if (ph[i].type == elf::kPtLoad && ph[i].memsz != 0)
      if (const int error = map_segment(space, file, ph[i], bias); error != 0)
        return image->failure = "out of memory", error;

  image->entry = h.entry + bias;
  image->bias = bias;
  image->low = low;
  image->high = high;
  image->phnum = h.phnum;
  for (uint16_t i = 0; i < h.phnum; ++i) {  // headers inside a loaded segment
    const elf::ProgramHeader& p = ph[i];
    if (p.type == elf::kPtLoad && h.phoff >= p.offset && h.phoff < p.offset + p.filesz)
      image->phdr = p.vaddr + (h.phoff - p.offset) + bias;
  }
  image->build_id_bytes = elf::file_build_id(file, size, image->build_id, sizeof image->build_id);
  return 0;
}

uint64_t elf_link_address_of_offset(const uint8_t* file, uint64_t size, uint64_t offset) {
  elf::Header h;
  elf::ProgramHeader ph[kMaxSegments];
  if (!read_headers(file, size, &h, ph)) return offset;
  for (uint16_t i = 0; i < h.phnum; ++i) {
    const elf::ProgramHeader& p = ph[i];
    if (p.type != elf::kPtLoad) continue;
    // Mappings start on a page boundary, so the offset may be just below p.offset.
    const uint64_t first = p.offset & ~kPageMask;
    if (offset >= first && offset < p.offset + p.filesz) return p.vaddr - (p.offset - offset);
  }
  return offset;
}

}  // namespace kernel
