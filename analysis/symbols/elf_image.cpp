#include "analysis/symbols/elf_image.h"

#include <elf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>

#include "analysis/symbols/demangle.h"

namespace dcpi {
namespace {

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ElfError("cannot open " + path);
  return {std::istreambuf_iterator<char>(in), {}};
}

bool line_order(const ElfImage::LineRow& a, const ElfImage::LineRow& b) {
  if (a.address != b.address) return a.address < b.address;
  return a.end_sequence && !b.end_sequence;  // a sequence ending here yields to one starting
}

Procedure from_symbol(const ElfSymbol& symbol, ProcedureSource source) {
  return {demangle(symbol.name), symbol.address, symbol.size, source};
}

}  // namespace

// Reads the DWARF line tables and the code bytes with libelf/libdw. Damaged
// DWARF is recorded as a problem, never thrown: symbols alone are useful.
class ElfImageReader {
 public:
  ElfImageReader(const std::string& path, ElfImage& image) : image_(image) {
    bytes_ = read_bytes(path);
    elf_version(EV_CURRENT);
    elf_ = elf_memory(bytes_.data(), bytes_.size());
  }
  ~ElfImageReader() {
    if (elf_) elf_end(elf_);
  }
  ElfImageReader(const ElfImageReader&) = delete;
  ElfImageReader& operator=(const ElfImageReader&) = delete;

  void read() {
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) return;  // ElfSymbols already accepted it
    read_code_bytes();
    read_line_tables();
  }

 private:
  void read_code_bytes() {
    for (Elf_Scn* section = nullptr; (section = elf_nextscn(elf_, section));) {
      GElf_Shdr header;
      if (!gelf_getshdr(section, &header)) return;
      const bool is_code = (header.sh_flags & SHF_ALLOC) && (header.sh_flags & SHF_EXECINSTR);
      if (!is_code || header.sh_type != SHT_PROGBITS) continue;
      Elf_Data* data = elf_rawdata(section, nullptr);
      if (!data || !data->d_buf) continue;
      const auto* begin = static_cast<const uint8_t*>(data->d_buf);
      image_.code_.push_back({header.sh_addr, {begin, begin + data->d_size}});
    }
  }

  void read_line_tables() {
    Dwarf* dwarf = dwarf_begin_elf(elf_, DWARF_C_READ, nullptr);
    if (!dwarf) {
      image_.dwarf_problem_ = std::string("no DWARF debug info (") + dwarf_errmsg(-1) + ")";
      return;
    }
    std::map<std::string, uint32_t> file_indexes;
    Dwarf_CU* unit = nullptr;
    Dwarf_Die unit_die;
    int status;
    while ((status = dwarf_get_units(dwarf, unit, &unit, nullptr, nullptr, &unit_die, nullptr)) ==
           0)
      read_unit_lines(unit_die, file_indexes);
    if (status < 0) image_.dwarf_problem_ = std::string("damaged DWARF: ") + dwarf_errmsg(-1);
    dwarf_end(dwarf);
    std::stable_sort(image_.line_rows_.begin(), image_.line_rows_.end(), line_order);
    if (image_.line_rows_.empty() && image_.dwarf_problem_.empty())
      image_.dwarf_problem_ = "DWARF has no line tables";
  }

  void read_unit_lines(Dwarf_Die& unit_die, std::map<std::string, uint32_t>& file_indexes) {
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    if (dwarf_getsrclines(&unit_die, &lines, &count) != 0) return;  // a unit without lines
    for (size_t i = 0; i < count; ++i) {
      Dwarf_Line* line = dwarf_onesrcline(lines, i);
      Dwarf_Addr address = 0;
      int number = 0;
      bool end_sequence = false;
      if (!line || dwarf_lineaddr(line, &address) != 0 || dwarf_lineno(line, &number) != 0 ||
          dwarf_lineendsequence(line, &end_sequence) != 0)
        continue;
      const char* file = dwarf_linesrc(line, nullptr, nullptr);
      const std::string name = file ? file : "??";
      const auto [entry, added] =
          file_indexes.emplace(name, static_cast<uint32_t>(image_.source_files_.size()));
      if (added) image_.source_files_.push_back(name);
      image_.line_rows_.push_back({address, entry->second, number, end_sequence});
    }
  }

  ElfImage& image_;
  std::vector<char> bytes_;
  Elf* elf_ = nullptr;
};

ElfImage ElfImage::open(const std::string& path) {
  ElfImage image(ElfSymbols::open(path, /*allow_stripped=*/true));
  for (const ElfSymbol& symbol : image.symbols_.symbols())
    if (image.code_range_of(symbol.address)) image.code_symbols_.push_back(symbol);
  std::sort(image.code_symbols_.begin(), image.code_symbols_.end(),
            [](const ElfSymbol& a, const ElfSymbol& b) {
              if (a.address != b.address) return a.address < b.address;
              if (a.is_function != b.is_function) return a.is_function;  // prefer functions
              return a.name < b.name;
            });
  ElfImageReader(path, image).read();
  return image;
}

const CodeRange* ElfImage::code_range_of(uint64_t address) const {
  for (const CodeRange& range : symbols_.code_ranges())
    if (address >= range.start && address < range.end) return &range;
  return nullptr;
}

std::optional<Procedure> ElfImage::procedure_at(uint64_t address) const {
  if (const ElfSymbol* function = symbols_.function_containing(address))
    return from_symbol(*function, ProcedureSource::kFunctionSymbol);
  const CodeRange* range = code_range_of(address);
  if (!range) return std::nullopt;
  auto after = std::upper_bound(
      code_symbols_.begin(), code_symbols_.end(), address,
      [](uint64_t value, const ElfSymbol& symbol) { return value < symbol.address; });
  // Walk back to the first symbol at that address (functions sort first).
  if (after == code_symbols_.begin()) return std::nullopt;
  const uint64_t start = std::prev(after)->address;
  if (start < range->start) return std::nullopt;  // a symbol of another section
  const auto first = std::lower_bound(
      code_symbols_.begin(), after, start,
      [](const ElfSymbol& symbol, uint64_t value) { return symbol.address < value; });
  Procedure procedure = from_symbol(*first, ProcedureSource::kNearestSymbol);
  procedure.size = 0;  // the symbol's own size (if any) does not cover `address`
  return procedure;
}

std::optional<Procedure> ElfImage::procedure_named(const std::string& name) const {
  for (const ElfSymbol& function : symbols_.functions())
    if (function.name == name || demangle(function.name) == name)
      return from_symbol(function, ProcedureSource::kFunctionSymbol);
  for (const ElfSymbol& symbol : code_symbols_)
    if (symbol.name == name || demangle(symbol.name) == name)
      return from_symbol(symbol, ProcedureSource::kNearestSymbol);
  return std::nullopt;
}

uint64_t ElfImage::procedure_end(const Procedure& procedure) const {
  if (procedure.size != 0) return procedure.start + procedure.size;
  const CodeRange* range = code_range_of(procedure.start);
  const uint64_t section_end = range ? range->end : procedure.start;
  auto next = std::upper_bound(
      code_symbols_.begin(), code_symbols_.end(), procedure.start,
      [](uint64_t value, const ElfSymbol& symbol) { return value < symbol.address; });
  return next == code_symbols_.end() ? section_end : std::min(section_end, next->address);
}

std::optional<SourceLocation> ElfImage::source_at(uint64_t address) const {
  auto after =
      std::upper_bound(line_rows_.begin(), line_rows_.end(), address,
                       [](uint64_t value, const LineRow& row) { return value < row.address; });
  if (after == line_rows_.begin()) return std::nullopt;
  const LineRow& row = *std::prev(after);
  if (row.end_sequence || row.file_index >= source_files_.size()) return std::nullopt;
  return SourceLocation{source_files_[row.file_index], row.line};
}

std::optional<uint32_t> ElfImage::instruction_at(uint64_t address) const {
  for (const CodeBytes& code : code_) {
    if (address < code.start || address - code.start > code.bytes.size() ||
        code.bytes.size() - (address - code.start) < 4)
      continue;
    const uint8_t* p = code.bytes.data() + (address - code.start);
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  }
  return std::nullopt;
}

}  // namespace dcpi
