// One ELF image as the report tools see it (DCPI §3: dcpiprof names
// procedures, dcpilist shows instructions and source): function symbols
// (libelf, elf_symbols.h), source lines from DWARF (libdw), the bytes of the
// executable sections, and the GNU build-id. Everything is copied out at open
// time; lookups never touch elfutils again.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/symbols/elf_symbols.h"

namespace dcpi {

struct SourceLocation {
  std::string file;  // as DWARF names it (absolute when the compile directory is known)
  int line = 0;
};

// How a procedure was named: from a function symbol, from the nearest
// preceding symbol of any type (hand-written assembly often has only labels),
// or not at all (a stripped binary: the address is all we know).
enum class ProcedureSource { kFunctionSymbol, kNearestSymbol, kAddressOnly };

struct Procedure {
  std::string name;    // demangled
  uint64_t start = 0;  // ELF virtual address
  uint64_t size = 0;   // 0 = unknown (nearest-symbol fallbacks, unsized symbols)
  ProcedureSource source = ProcedureSource::kAddressOnly;
};

class ElfImage {
 public:
  // Throws ElfError for a missing, non-ELF or malformed file. Missing or
  // damaged DWARF is not an error: has_line_info() is then false and
  // dwarf_problem() says why.
  static ElfImage open(const std::string& path);

  const std::string& path() const { return symbols_.path(); }
  const ElfSymbols& symbols() const { return symbols_; }
  const std::optional<std::string>& build_id() const { return symbols_.build_id(); }

  // The procedure containing `address`: a function symbol, else the nearest
  // preceding symbol in the same executable section; nullopt if neither.
  std::optional<Procedure> procedure_at(uint64_t address) const;
  // The procedure named `name` (function symbols first, then any code symbol).
  std::optional<Procedure> procedure_named(const std::string& name) const;
  // Where the next procedure starts after `procedure` (to bound unsized ones),
  // clipped to the end of its executable section.
  uint64_t procedure_end(const Procedure& procedure) const;

  bool has_line_info() const { return !line_rows_.empty(); }
  const std::string& dwarf_problem() const { return dwarf_problem_; }
  std::optional<SourceLocation> source_at(uint64_t address) const;

  // The 32-bit instruction word at `address` (little-endian), if it lies in
  // an executable section with file contents.
  std::optional<uint32_t> instruction_at(uint64_t address) const;

  // Internal: one row of the DWARF line table.
  struct LineRow {
    uint64_t address = 0;
    uint32_t file_index = 0;
    int line = 0;
    bool end_sequence = false;
  };
  struct CodeBytes {
    uint64_t start = 0;
    std::vector<uint8_t> bytes;
  };

 private:
  friend class ElfImageReader;
  explicit ElfImage(ElfSymbols symbols) : symbols_(std::move(symbols)) {}
  const CodeRange* code_range_of(uint64_t address) const;

  ElfSymbols symbols_;
  std::vector<ElfSymbol> code_symbols_;  // every symbol inside code, by address
  std::vector<LineRow> line_rows_;       // sorted by address, end-of-sequence first
  std::vector<std::string> source_files_;
  std::string dwarf_problem_;
  std::vector<CodeBytes> code_;
};

}  // namespace dcpi
