#include "symbols/elf_load_check.h"

#include <cstring>
#include <optional>

namespace dcpi {
namespace {

std::string segment_name(const GElf_Phdr& segment, size_t index) {
  switch (segment.p_type) {
    case PT_LOAD:
      return "PT_LOAD " + std::to_string(index);
    case PT_DYNAMIC:
      return "PT_DYNAMIC";
    case PT_INTERP:
      return "PT_INTERP";
    default:
      return "program header " + std::to_string(index);
  }
}

// The file offset of virtual address `address`, through the PT_LOADs.
std::optional<uint64_t> file_offset(const std::vector<GElf_Phdr>& segments, uint64_t address) {
  for (const GElf_Phdr& s : segments)
    if (s.p_type == PT_LOAD && address >= s.p_vaddr && address - s.p_vaddr < s.p_filesz)
      return s.p_offset + (address - s.p_vaddr);
  return std::nullopt;
}

// The DT_NEEDED names of the dynamic segment at [offset, offset + size).
std::string dynamic_problem(std::string_view file, const std::vector<GElf_Phdr>& segments,
                            uint64_t offset, uint64_t size) {
  std::optional<uint64_t> strtab, strsz;
  std::vector<uint64_t> needed;
  for (uint64_t at = offset; at + sizeof(Elf64_Dyn) <= offset + size; at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn entry;
    std::memcpy(&entry, file.data() + at, sizeof entry);
    if (entry.d_tag == DT_NULL) break;
    if (entry.d_tag == DT_STRTAB) strtab = entry.d_un.d_ptr;
    if (entry.d_tag == DT_STRSZ) strsz = entry.d_un.d_val;
    if (entry.d_tag == DT_NEEDED) needed.push_back(entry.d_un.d_val);
  }
  if (needed.empty()) return {};
  if (!strtab || !strsz) return "the dynamic section has DT_NEEDED but no string table";
  const std::optional<uint64_t> table = file_offset(segments, *strtab);
  if (!table || *table > file.size() || *strsz > file.size() - *table)
    return "the dynamic string table is outside the file";
  for (uint64_t name : needed)
    if (name >= *strsz || std::memchr(file.data() + *table + name, 0, *strsz - name) == nullptr)
      return "a DT_NEEDED name is outside the dynamic string table";
  return {};
}

}  // namespace

// A file cut after its segments still loads, but it is not the file that
// was built: its section headers (symbols, debug information) are gone.
std::string section_table_problem(std::string_view file) {
  Elf64_Ehdr header;
  if (file.size() < sizeof header) return "shorter than an ELF header";
  std::memcpy(&header, file.data(), sizeof header);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shoff == 0) return {};
  const uint64_t table = uint64_t{header.e_shnum} * header.e_shentsize;
  if (header.e_shoff > file.size() || table > file.size() - header.e_shoff)
    return "the section header table ends at byte " + std::to_string(header.e_shoff + table) +
           " of a " + std::to_string(file.size()) + "-byte file (truncated?)";
  return {};
}

std::string loader_problem(std::string_view file, const std::vector<GElf_Phdr>& segments) {
  const uint64_t size = file.size();
  if (std::string problem = section_table_problem(file); !problem.empty()) return problem;
  bool loadable = false;
  for (size_t i = 0; i < segments.size(); ++i) {
    const GElf_Phdr& s = segments[i];
    if (s.p_type != PT_LOAD && s.p_type != PT_DYNAMIC && s.p_type != PT_INTERP) continue;
    if (s.p_offset > size || s.p_filesz > size - s.p_offset)
      return segment_name(s, i) + " ends at byte " + std::to_string(s.p_offset + s.p_filesz) +
             " of a " + std::to_string(size) + "-byte file (truncated?)";
    if (s.p_type == PT_LOAD) {
      loadable = true;
      if (s.p_filesz > s.p_memsz)
        return segment_name(s, i) + " is larger in the file than in memory";
    }
    if (s.p_type == PT_INTERP &&
        (s.p_filesz == 0 || std::memchr(file.data() + s.p_offset, 0, s.p_filesz) == nullptr))
      return "PT_INTERP is not a terminated path";
    if (s.p_type == PT_DYNAMIC) {
      const std::string problem = dynamic_problem(file, segments, s.p_offset, s.p_filesz);
      if (!problem.empty()) return problem;
    }
  }
  if (!loadable) return "no PT_LOAD segment";
  return {};
}

}  // namespace dcpi
