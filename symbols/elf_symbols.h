// The symbol table part of the ELF image model (elf_image.h): name -> address,
// address -> containing function, the executable ranges and the GNU build-id.
// Read by the one ELF reader (elf_reader.cpp) and copied out, so lookups
// never touch libelf again.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dcpi {

// Missing file, not an ELF, no symbol table, malformed contents, or a lookup
// that failed; the message names the file.
class ElfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ElfSymbol {
  std::string name;
  uint64_t address = 0;
  uint64_t size = 0;
  bool is_function = false;
  bool weak = false;   // STB_WEAK
  bool local = false;  // STB_LOCAL
};

// An allocated, executable section: where code can be.
struct CodeRange {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
};

class ElfSymbols {
 public:
  // Just the symbols of `path` (ElfImage::open without section contents and
  // line tables). Throws ElfError with a message naming `path`. A stripped
  // file (no symbol table) is an error unless `allow_stripped`: then it opens
  // with no symbols, and callers fall back to addresses.
  static ElfSymbols open(const std::string& path, bool allow_stripped = false);

  // Throws ElfError "symbol 'x' not found in FILE".
  const ElfSymbol& lookup(std::string_view name) const;
  const ElfSymbol* find(std::string_view name) const;

  // The function containing `address`: by symbol size, or the nearest
  // preceding function when its size is 0. Only inside executable sections.
  const ElfSymbol* function_containing(uint64_t address) const;

  // Functions sorted by address.
  const std::vector<ElfSymbol>& functions() const { return functions_; }
  const std::vector<ElfSymbol>& symbols() const { return symbols_; }
  // Allocated, executable sections (empty if the file has no section headers).
  const std::vector<CodeRange>& code_ranges() const { return code_ranges_; }
  // Lower-case hex of the NT_GNU_BUILD_ID note, if the file has one.
  const std::optional<std::string>& build_id() const { return build_id_; }
  const std::string& path() const { return path_; }
  // False for a stripped file (no .symtab or .dynsym).
  bool has_symbol_table() const { return has_symbol_table_; }
  // True when the names come from .dynsym alone (a stripped shared library):
  // its static functions have no symbols, so the space between exported
  // functions is not theirs.
  bool dynamic_symbols_only() const { return dynamic_symbols_only_; }

 private:
  friend class ElfReader;
  bool in_code(uint64_t address) const;

  std::string path_;
  std::vector<ElfSymbol> symbols_;    // every named symbol, file order
  std::vector<ElfSymbol> functions_;  // STT_FUNC, by address
  std::vector<CodeRange> code_ranges_;
  std::optional<std::string> build_id_;
  bool has_symbol_table_ = false;
  bool dynamic_symbols_only_ = false;
};

}  // namespace dcpi
