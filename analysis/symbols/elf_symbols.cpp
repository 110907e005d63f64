#include "analysis/symbols/elf_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>

namespace dcpi {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

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

bool address_order(const ElfSymbol& a, const ElfSymbol& b) {
  if (a.address != b.address) return a.address < b.address;
  if (a.size != b.size) return a.size > b.size;  // sized aliases first
  return a.name < b.name;
}

}  // namespace

// Owns the libelf handle while an ElfSymbols is being filled in.
class ElfReader {
 public:
  explicit ElfReader(const std::string& path) : path_(path), bytes_(read_whole_file(path)) {
    elf_version(EV_CURRENT);
    elf_ = elf_memory(bytes_.data(), bytes_.size());
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) fail_plain(path_ + " is not an ELF file");
    GElf_Ehdr header;
    if (!gelf_getehdr(elf_, &header)) fail("bad ELF header");
  }
  ~ElfReader() { elf_end(elf_); }
  ElfReader(const ElfReader&) = delete;
  ElfReader& operator=(const ElfReader&) = delete;

  ElfSymbols read(bool allow_stripped) {
    ElfSymbols result;
    result.path_ = path_;
    size_t section_count = 0;
    if (elf_getshdrnum(elf_, &section_count) != 0) fail("bad section headers");
    Elf_Scn* symbol_table = nullptr;
    for (Elf_Scn* section = nullptr; (section = elf_nextscn(elf_, section));)
      visit_section(section, result, symbol_table);
    if (!symbol_table) {
      if (allow_stripped) return result;
      fail_plain(path_ + " has no symbol table");
    }
    read_symbols(symbol_table, result);
    return result;
  }

 private:
  [[noreturn]] void fail_plain(const std::string& message) {
    elf_end(elf_);
    elf_ = nullptr;
    throw ElfError(message);
  }
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
  void visit_section(Elf_Scn* section, ElfSymbols& result, Elf_Scn*& symbol_table) {
    const GElf_Shdr header = section_header(section);
    const bool is_code = (header.sh_flags & SHF_ALLOC) && (header.sh_flags & SHF_EXECINSTR);
    if (is_code && header.sh_addr + header.sh_size >= header.sh_addr)
      result.code_ranges_.push_back({header.sh_addr, header.sh_addr + header.sh_size});
    if (header.sh_type == SHT_NOTE && !result.build_id_) result.build_id_ = read_build_id(section);
    if (header.sh_type == SHT_SYMTAB || (header.sh_type == SHT_DYNSYM && !symbol_table))
      symbol_table = section;
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
    const GElf_Shdr header = section_header(section);
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
    result.symbols_.push_back({name, symbol.st_value, symbol.st_size, type == STT_FUNC});
  }

  std::string path_;
  std::vector<char> bytes_;
  Elf* elf_ = nullptr;
};

ElfSymbols ElfSymbols::open(const std::string& path, bool allow_stripped) {
  return ElfReader(path).read(allow_stripped);
}

const ElfSymbol* ElfSymbols::find(std::string_view name) const {
  for (const ElfSymbol& symbol : symbols_)
    if (symbol.name == name) return &symbol;
  return nullptr;
}

const ElfSymbol& ElfSymbols::lookup(std::string_view name) const {
  if (const ElfSymbol* symbol = find(name)) return *symbol;
  throw ElfError("symbol '" + std::string(name) + "' not found in " + path_);
}

bool ElfSymbols::in_code(uint64_t address) const {
  if (code_ranges_.empty()) return true;  // no section headers to go by
  return std::any_of(code_ranges_.begin(), code_ranges_.end(), [&](const CodeRange& range) {
    return address >= range.start && address < range.end;
  });
}

const ElfSymbol* ElfSymbols::function_containing(uint64_t address) const {
  if (!in_code(address)) return nullptr;
  auto after = std::upper_bound(
      functions_.begin(), functions_.end(), address,
      [](uint64_t value, const ElfSymbol& symbol) { return value < symbol.address; });
  if (after == functions_.begin()) return nullptr;
  const uint64_t start = std::prev(after)->address;
  // The first symbol at `start` is the largest alias (see address_order).
  const auto first = std::lower_bound(
      functions_.begin(), after, start,
      [](const ElfSymbol& symbol, uint64_t value) { return symbol.address < value; });
  if (first->size == 0) return &*first;  // size unknown: nearest preceding function
  return address - start < first->size ? &*first : nullptr;
}

}  // namespace dcpi
