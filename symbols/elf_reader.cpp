// The one ELF reader behind ElfSymbols and ElfImage: the file is read into
// memory once and parsed with libelf (sections, symbols, build-id) and, when
// asked, libdw (line tables). Malformed ELF structure throws ElfError; damaged
// DWARF is only recorded, since symbols alone are useful.
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <span>
#include <unordered_map>

#include "symbols/demangle.h"
#include "symbols/elf_image.h"
#include "symbols/elf_load_check.h"

namespace dcpi {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
constexpr uint16_t kMachineAlpha = 0x9026;  // EM_ALPHA as binutils writes it

std::string hex_string(std::span<const uint8_t> bytes) {
  std::string out;
  for (uint8_t b : bytes) {
    out.push_back(kHexDigits[b >> 4]);
    out.push_back(kHexDigits[b & 0xf]);
  }
  return out;
}

// The whole file in memory: libelf then parses a buffer whose size it knows,
// so a truncated file cannot make it read past the end.
std::vector<char> read_whole_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ElfError("cannot open " + path + ": " + std::strerror(errno));
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw ElfError(path + " is not a regular file");
  }
  std::vector<char> bytes(static_cast<size_t>(info.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  bytes.resize(done);
  return bytes;
}

size_t leading_underscores(const std::string& name) {
  return std::min(name.find_first_not_of('_'), name.size());
}

// Which of two aliases names their code, as perf's choose_best_symbol
// decides: a global, non-weak symbol, then the fewest leading underscores,
// then the longest name (libc's memcmp over __memcmpeq and bcmp).
bool preferred_alias(const ElfSymbol& a, const ElfSymbol& b) {
  if (a.weak != b.weak) return !a.weak;
  if (a.local != b.local) return !a.local;
  const size_t underscores_a = leading_underscores(a.name);
  const size_t underscores_b = leading_underscores(b.name);
  if (underscores_a != underscores_b) return underscores_a < underscores_b;
  if (a.name.size() != b.name.size()) return a.name.size() > b.name.size();
  return a.name < b.name;
}

bool address_order(const ElfSymbol& a, const ElfSymbol& b) {
  if (a.address != b.address) return a.address < b.address;
  if (a.size != b.size) return a.size > b.size;  // sized aliases first
  return preferred_alias(a, b);
}

bool line_order(const ElfImage::LineRow& a, const ElfImage::LineRow& b) {
  if (a.address != b.address) return a.address < b.address;
  return a.end_sequence && !b.end_sequence;  // a sequence ending here yields to one starting
}

// A file name from a line table, absolute where the unit's compile directory
// is known: compilers run through ccache with CCACHE_BASEDIR record names
// relative to it ("../../workloads/copy.c"), which listings could not open.
std::string source_path(const char* file, const char* comp_dir) {
  const std::filesystem::path name(file);
  if (name.is_absolute() || comp_dir == nullptr || *comp_dir != '/') return file;
  return (std::filesystem::path(comp_dir) / name).lexically_normal().string();
}

}  // namespace

// Owns the libelf handle while an ElfImage is being filled in.
class ElfReader {
 public:
  explicit ElfReader(const std::string& path) : path_(path), bytes_(read_whole_file(path)) {
    elf_version(EV_CURRENT);
    elf_ = elf_memory(bytes_.data(), bytes_.size());
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) fail_plain(path_ + " is not an ELF file");
    if (!gelf_getehdr(elf_, &header_)) fail("bad ELF header");
  }
  ~ElfReader() { elf_end(elf_); }
  ElfReader(const ElfReader&) = delete;
  ElfReader& operator=(const ElfReader&) = delete;

  // Sections, build-id and symbols; with `options`, contents and line tables.
  void read(ElfImage& image, ElfReadOptions options) {
    ElfSymbols& symbols = image.symbols_;
    symbols.path_ = path_;
    size_t section_count = 0;
    if (elf_getshdrnum(elf_, &section_count) != 0) fail("bad section headers");
    size_t names_index = 0;
    const bool have_names = elf_getshdrstrndx(elf_, &names_index) == 0;
    Elf_Scn* symbol_table = nullptr;
    for (Elf_Scn* section = nullptr; (section = elf_nextscn(elf_, section));) {
      const GElf_Shdr header = section_header(section);
      visit_section(section, header, symbols, symbol_table);
      if (header.sh_type == SHT_DYNAMIC) read_needed(section, header, image.load_info_.needed);
      if (options.section_contents && have_names) add_contents(section, header, names_index, image);
    }
    if (!have_names)
      image.sections_problem_ = "no section names";
    else if (header_.e_ident[EI_DATA] != ELFDATA2LSB)
      image.sections_problem_ = "not little-endian";
    read_load_info(image.load_info_);
    if (symbol_table) read_symbols(symbol_table, symbols);
    if (options.procedures) index_code_symbols(image), read_plt_stubs(image);
    if (options.line_tables) read_line_tables(image);
  }

  [[noreturn]] void fail_plain(const std::string& message) {
    elf_end(elf_);
    elf_ = nullptr;
    throw ElfError(message);
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    fail_plain("malformed ELF file " + path_ + ": " + what + " (" + elf_errmsg(-1) + ")");
  }

  GElf_Shdr section_header(Elf_Scn* section) {
    GElf_Shdr header;
    if (!gelf_getshdr(section, &header)) fail("bad section header");
    return header;
  }

  // Remembers code ranges, the build-id, and the best symbol table
  // (.symtab, or .dynsym for stripped files).
  void visit_section(Elf_Scn* section, const GElf_Shdr& header, ElfSymbols& result,
                     Elf_Scn*& symbol_table) {
    const bool is_code = (header.sh_flags & SHF_ALLOC) && (header.sh_flags & SHF_EXECINSTR);
    if (is_code && header.sh_addr + header.sh_size >= header.sh_addr)
      result.code_ranges_.push_back({header.sh_addr, header.sh_addr + header.sh_size});
    if (header.sh_type == SHT_NOTE && !result.build_id_) result.build_id_ = read_build_id(section);
    if (header.sh_type == SHT_SYMTAB || (header.sh_type == SHT_DYNSYM && !symbol_table))
      symbol_table = section;
  }

  // The file header and the program headers, as a loader reads them. A
  // program header libelf cannot read is skipped, not an error: symbols
  // alone are still useful.
  void read_load_info(ElfLoadInfo& load) {
    load.alpha = header_.e_ident[EI_CLASS] == ELFCLASS64 &&
                 header_.e_ident[EI_DATA] == ELFDATA2LSB && header_.e_machine == kMachineAlpha;
    load.executable = header_.e_type == ET_EXEC || header_.e_type == ET_DYN;
    load.entry = header_.e_entry;
    size_t count = 0;
    if (elf_getphdrnum(elf_, &count) != 0) {
      load.problem = "the program headers cannot be read";
      return;
    }
    std::vector<GElf_Phdr> segments;
    for (size_t i = 0; i < count; ++i) {
      GElf_Phdr segment;
      if (gelf_getphdr(elf_, static_cast<int>(i), &segment) == nullptr) {
        load.problem = "program header " + std::to_string(i) + " cannot be read";
        continue;
      }
      segments.push_back(segment);
      if (segment.p_type == PT_TLS) load.has_tls = true;
      if (segment.p_type == PT_LOAD && segment.p_offset == 0) load.header_address = segment.p_vaddr;
      if (segment.p_type == PT_INTERP && segment.p_offset < bytes_.size() &&
          segment.p_filesz <= bytes_.size() - segment.p_offset) {
        const char* text = bytes_.data() + segment.p_offset;
        load.interpreter.assign(text, strnlen(text, segment.p_filesz));
      }
    }
    if (load.problem.empty() && load.executable)
      load.problem = loader_problem({bytes_.data(), bytes_.size()}, segments);
  }

  // DT_NEEDED entries of a dynamic section, named through its string table.
  void read_needed(Elf_Scn* section, const GElf_Shdr& header, std::vector<std::string>& needed) {
    Elf_Data* data = elf_getdata(section, nullptr);
    if (data == nullptr || header.sh_entsize == 0) return;
    for (size_t i = 0; i < header.sh_size / header.sh_entsize; ++i) {
      GElf_Dyn entry;
      if (gelf_getdyn(data, static_cast<int>(i), &entry) == nullptr) break;
      if (entry.d_tag != DT_NEEDED) continue;
      if (const char* name = elf_strptr(elf_, header.sh_link, entry.d_un.d_val))
        needed.emplace_back(name);
    }
  }

  // The raw bytes of a loaded section (SHT_PROGBITS, allocated or executable).
  void add_contents(Elf_Scn* section, const GElf_Shdr& header, size_t names_index,
                    ElfImage& image) {
    if (header.sh_type != SHT_PROGBITS || (header.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == 0)
      return;
    Elf_Data* data = elf_rawdata(section, nullptr);
    if (data == nullptr || data->d_buf == nullptr) return;
    const char* name = elf_strptr(elf_, names_index, header.sh_name);
    const auto* p = static_cast<const uint8_t*>(data->d_buf);
    image.sections_.push_back({.name = name != nullptr ? name : "",
                               .address = header.sh_addr,
                               .allocated = (header.sh_flags & SHF_ALLOC) != 0,
                               .executable = (header.sh_flags & SHF_EXECINSTR) != 0,
                               .writable = (header.sh_flags & SHF_WRITE) != 0,
                               .bytes = {p, p + data->d_size}});
  }

  std::optional<std::string> read_build_id(Elf_Scn* section) {
    Elf_Data* data = elf_getdata(section, nullptr);
    if (!data || !data->d_buf) return std::nullopt;
    const auto* bytes = static_cast<const uint8_t*>(data->d_buf);
    GElf_Nhdr note;
    size_t name_offset = 0, desc_offset = 0;
    for (size_t offset = 0;
         (offset = gelf_getnote(data, offset, &note, &name_offset, &desc_offset)) != 0;) {
      const bool is_gnu = note.n_namesz == 4 && name_offset + 4 <= data->d_size &&
                          std::memcmp(bytes + name_offset, "GNU", 4) == 0;
      if (is_gnu && note.n_type == NT_GNU_BUILD_ID && desc_offset + note.n_descsz <= data->d_size)
        return hex_string({bytes + desc_offset, note.n_descsz});
    }
    return std::nullopt;
  }

  void read_symbols(Elf_Scn* section, ElfSymbols& result) {
    result.has_symbol_table_ = true;
    const GElf_Shdr header = section_header(section);
    result.dynamic_symbols_only_ = header.sh_type == SHT_DYNSYM;
    Elf_Data* data = elf_getdata(section, nullptr);
    if (!data) fail("unreadable symbol table");
    const size_t entry_size = gelf_fsize(elf_, ELF_T_SYM, 1, EV_CURRENT);
    const size_t count = entry_size ? data->d_size / entry_size : 0;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym symbol;
      if (!gelf_getsym(data, static_cast<int>(i), &symbol)) fail("bad symbol entry");
      add_symbol(symbol, elf_strptr(elf_, header.sh_link, symbol.st_name), result);
    }
    result.functions_.clear();
    for (const ElfSymbol& symbol : result.symbols_)
      if (symbol.is_function) result.functions_.push_back(symbol);
    std::sort(result.functions_.begin(), result.functions_.end(), address_order);
  }

  static void add_symbol(const GElf_Sym& symbol, const char* name, ElfSymbols& result) {
    const int type = GELF_ST_TYPE(symbol.st_info);
    if (!name || !*name || symbol.st_shndx == SHN_UNDEF) return;  // imports, unnamed
    if (type == STT_SECTION || type == STT_FILE) return;
    const int binding = GELF_ST_BIND(symbol.st_info);
    result.symbols_.push_back({name, symbol.st_value, symbol.st_size, type == STT_FUNC,
                               binding == STB_WEAK, binding == STB_LOCAL});
  }

  // Every symbol inside code, by address, functions first: the fallbacks of
  // procedure_at for hand-written assembly with labels only.
  static void index_code_symbols(ElfImage& image) {
    for (const ElfSymbol& symbol : image.symbols_.symbols())
      if (image.code_range_of(symbol.address)) image.code_symbols_.push_back(symbol);
    std::sort(image.code_symbols_.begin(), image.code_symbols_.end(),
              [](const ElfSymbol& a, const ElfSymbol& b) {
                if (a.address != b.address) return a.address < b.address;
                if (a.is_function != b.is_function) return a.is_function;  // prefer functions
                return preferred_alias(a, b);
              });
  }

  // PLT stubs as `foo@plt` (as perf and gdb name them): each lazy-binding
  // relocation (R_ALPHA_JMP_SLOT) names the function whose GOT slot it
  // fills, and the slot's initial contents in the file are the stub a call
  // enters until ld.so resolves it (with Alpha's read-only PLT, one `br` a
  // stub). Without this the stubs take the name of the symbol before .plt
  // (_init).
  void read_plt_stubs(ElfImage& image) {
    constexpr uint32_t kJumpSlot = 26;  // R_ALPHA_JMP_SLOT
    if (header_.e_machine != kMachineAlpha) return;
    size_t names_index = 0;
    if (elf_getshdrstrndx(elf_, &names_index) != 0) return;
    for (Elf_Scn* section = nullptr; (section = elf_nextscn(elf_, section));) {
      const GElf_Shdr header = section_header(section);
      const char* section_name = elf_strptr(elf_, names_index, header.sh_name);
      if (header.sh_type != SHT_RELA || !section_name || std::strcmp(section_name, ".rela.plt"))
        continue;
      Elf_Data* data = elf_getdata(section, nullptr);
      Elf_Scn* symbols = elf_getscn(elf_, header.sh_link);
      if (data == nullptr || symbols == nullptr || header.sh_entsize == 0) continue;
      const GElf_Shdr symbols_header = section_header(symbols);
      Elf_Data* symbol_data = elf_getdata(symbols, nullptr);
      for (size_t i = 0; i < header.sh_size / header.sh_entsize; ++i) {
        GElf_Rela rela;
        GElf_Sym symbol;
        if (gelf_getrela(data, static_cast<int>(i), &rela) == nullptr) break;
        if (GELF_R_TYPE(rela.r_info) != kJumpSlot || symbol_data == nullptr) continue;
        if (!gelf_getsym(symbol_data, static_cast<int>(GELF_R_SYM(rela.r_info)), &symbol)) continue;
        const char* name = elf_strptr(elf_, symbols_header.sh_link, symbol.st_name);
        const std::optional<uint64_t> stub = quadword_at(rela.r_offset);
        if (name && *name && stub && image.code_range_of(*stub))
          image.plt_stubs_.push_back({demangle(name) + "@plt", *stub, 0, true});
      }
    }
    std::sort(image.plt_stubs_.begin(), image.plt_stubs_.end(), address_order);
    // A stub ends where the next begins, the last one 4 bytes on (one `br`).
    for (size_t i = 0; i < image.plt_stubs_.size(); ++i)
      image.plt_stubs_[i].size = i + 1 < image.plt_stubs_.size()
                                     ? image.plt_stubs_[i + 1].address - image.plt_stubs_[i].address
                                     : 4;
  }

  // The quadword the file holds at virtual address `address` (a GOT slot).
  std::optional<uint64_t> quadword_at(uint64_t address) {
    for (Elf_Scn* section = nullptr; (section = elf_nextscn(elf_, section));) {
      const GElf_Shdr header = section_header(section);
      if (header.sh_type != SHT_PROGBITS || address < header.sh_addr ||
          address - header.sh_addr + 8 > header.sh_size)
        continue;
      Elf_Data* data = elf_rawdata(section, nullptr);
      if (data == nullptr || data->d_buf == nullptr || address - header.sh_addr + 8 > data->d_size)
        return std::nullopt;
      uint64_t value;
      std::memcpy(&value, static_cast<const uint8_t*>(data->d_buf) + (address - header.sh_addr), 8);
      return value;
    }
    return std::nullopt;
  }

  void read_line_tables(ElfImage& image) {
    Dwarf* dwarf = dwarf_begin_elf(elf_, DWARF_C_READ, nullptr);
    if (!dwarf) {
      image.dwarf_problem_ = std::string("no DWARF debug info (") + dwarf_errmsg(-1) + ")";
      return;
    }
    std::map<std::string, uint32_t> file_indexes;
    Dwarf_CU* unit = nullptr;
    Dwarf_Die unit_die;
    int status;
    while ((status = dwarf_get_units(dwarf, unit, &unit, nullptr, nullptr, &unit_die, nullptr)) ==
           0)
      read_unit_lines(unit_die, file_indexes, image);
    if (status < 0) image.dwarf_problem_ = std::string("damaged DWARF: ") + dwarf_errmsg(-1);
    dwarf_end(dwarf);
    std::stable_sort(image.line_rows_.begin(), image.line_rows_.end(), line_order);
    if (image.line_rows_.empty() && image.dwarf_problem_.empty())
      image.dwarf_problem_ = "DWARF has no line tables";
  }

  static void read_unit_lines(Dwarf_Die& unit_die, std::map<std::string, uint32_t>& file_indexes,
                              ElfImage& image) {
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    if (dwarf_getsrclines(&unit_die, &lines, &count) != 0) return;  // a unit without lines
    Dwarf_Attribute attribute;
    const char* comp_dir = dwarf_formstring(dwarf_attr(&unit_die, DW_AT_comp_dir, &attribute));
    // libdw hands back the same string for every row of one file of the
    // unit: each file's path is made and looked up once, not once per row
    // (issue 31: source_path's std::filesystem work was most of the load).
    std::unordered_map<const char*, uint32_t> unit_files;
    for (size_t i = 0; i < count; ++i) {
      Dwarf_Line* line = dwarf_onesrcline(lines, i);
      Dwarf_Addr address = 0;
      int number = 0;
      bool end_sequence = false;
      if (!line || dwarf_lineaddr(line, &address) != 0 || dwarf_lineno(line, &number) != 0 ||
          dwarf_lineendsequence(line, &end_sequence) != 0)
        continue;
      const char* file = dwarf_linesrc(line, nullptr, nullptr);
      auto known = unit_files.find(file);
      if (known == unit_files.end()) {
        const std::string name = file ? source_path(file, comp_dir) : "??";
        const auto [entry, added] =
            file_indexes.emplace(name, static_cast<uint32_t>(image.source_files_.size()));
        if (added) image.source_files_.push_back(name);
        known = unit_files.emplace(file, entry->second).first;
      }
      image.line_rows_.push_back({address, known->second, number, end_sequence});
    }
  }

  std::string path_;
  std::vector<char> bytes_;
  Elf* elf_ = nullptr;
  GElf_Ehdr header_{};
};

ElfImage ElfImage::open(const std::string& path, ElfReadOptions options) {
  ElfImage image{ElfSymbols{}};
  ElfReader(path).read(image, options);
  return image;
}

ElfSymbols ElfSymbols::open(const std::string& path, bool allow_stripped) {
  ElfImage image{ElfSymbols{}};
  ElfReader reader(path);
  reader.read(image, {.section_contents = false, .line_tables = false, .procedures = false});
  if (!image.symbols_.has_symbol_table_ && !allow_stripped)
    reader.fail_plain(path + " has no symbol table");
  return std::move(image.symbols_);
}

}  // namespace dcpi
