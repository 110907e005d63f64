#include "symbols/elf_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>

#include "symbols/cfi_unwinder.h"
#include "symbols/demangle.h"

namespace dcpi {
namespace {

Procedure from_symbol(const ElfSymbol& symbol, ProcedureSource source) {
  return {demangle(symbol.name), symbol.address, symbol.size, source};
}

}  // namespace

isa::DecodeMode decode_mode_for_image(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  return name.find("palcode") != std::string::npos ? isa::DecodeMode::kPalcode
                                                   : isa::DecodeMode::kUser;
}

const CodeRange* ElfImage::code_range_of(uint64_t address) const {
  for (const CodeRange& range : symbols_.code_ranges())
    if (address >= range.start && address < range.end) return &range;
  return nullptr;
}

std::optional<Procedure> ElfImage::procedure_at(uint64_t address) const {
  auto stub = std::upper_bound(
      plt_stubs_.begin(), plt_stubs_.end(), address,
      [](uint64_t value, const ElfSymbol& symbol) { return value < symbol.address; });
  if (stub != plt_stubs_.begin() && address - std::prev(stub)->address < std::prev(stub)->size)
    return from_symbol(*std::prev(stub), ProcedureSource::kFunctionSymbol);
  if (const ElfSymbol* function = symbols_.function_containing(address))
    return from_symbol(*function, ProcedureSource::kFunctionSymbol);
  const CodeRange* range = code_range_of(address);
  if (!range) return std::nullopt;
  if (auto procedure = symbol_procedure_at(address, *range)) return procedure;
  return frame_procedure_at(address);
}

// The nearest preceding code symbol of `range`, unless a stripped library's
// .dynsym says the code is not that symbol's.
std::optional<Procedure> ElfImage::symbol_procedure_at(uint64_t address,
                                                       const CodeRange& range) const {
  auto after = std::upper_bound(
      code_symbols_.begin(), code_symbols_.end(), address,
      [](uint64_t value, const ElfSymbol& symbol) { return value < symbol.address; });
  // Walk back to the first symbol at that address (functions sort first).
  if (after == code_symbols_.begin()) return std::nullopt;
  const uint64_t start = std::prev(after)->address;
  if (start < range.start) return std::nullopt;  // a symbol of another section
  const auto first = std::lower_bound(
      code_symbols_.begin(), after, start,
      [](const ElfSymbol& symbol, uint64_t value) { return symbol.address < value; });
  // A stripped library's .dynsym names only exported functions: code past a
  // sized one belongs to some static function, not to it (issue 15: libc's
  // qsort internals must not be reported as mrand48_r).
  if (symbols_.dynamic_symbols_only() && first->is_function && first->size != 0)
    return std::nullopt;
  Procedure procedure = from_symbol(*first, ProcedureSource::kNearestSymbol);
  procedure.size = 0;  // the symbol's own size (if any) does not cover `address`
  return procedure;
}

// Code no symbol names: the procedure its CFI describes (every function GCC
// compiles has an FDE in .eh_frame, stripped or not), so that a static
// function's PCs are one procedure, as call chains name it (chain_tree.cpp).
std::optional<Procedure> ElfImage::frame_procedure_at(uint64_t address) const {
  const auto range = cfi_function_range(path(), address);
  if (!range) return std::nullopt;
  return Procedure{fmt::format("{:#x}", range->first), range->first, range->second - range->first,
                   ProcedureSource::kFrameInfo};
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

std::vector<std::string> ElfImage::procedure_symbols() const {
  std::vector<std::string> names;
  for (const ElfSymbol& function : symbols_.functions()) names.push_back(function.name);
  for (const ElfSymbol& symbol : code_symbols_) names.push_back(symbol.name);
  return names;
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
  for (const ElfSection& code : sections_) {
    if (!code.allocated || !code.executable || address < code.address ||
        address - code.address > code.bytes.size() ||
        code.bytes.size() - (address - code.address) < 4)
      continue;
    const uint8_t* p = code.bytes.data() + (address - code.address);
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  }
  return std::nullopt;
}

const std::vector<ElfSection>& ElfImage::sections() const {
  if (!sections_problem_.empty()) throw ElfError(path() + ": " + sections_problem_);
  return sections_;
}

std::vector<CodeSection> ElfImage::code_sections() const {
  std::vector<CodeSection> result;
  for (const ElfSection& section : sections()) {
    if (!section.executable) continue;
    CodeSection& code = result.emplace_back(CodeSection{section.name, section.address, {}});
    const std::vector<uint8_t>& p = section.bytes;
    for (size_t i = 0; i + 4 <= p.size(); i += 4)
      code.words.push_back(uint32_t{p[i]} | uint32_t{p[i + 1]} << 8 | uint32_t{p[i + 2]} << 16 |
                           uint32_t{p[i + 3]} << 24);
  }
  return result;
}

}  // namespace dcpi
