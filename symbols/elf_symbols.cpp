#include "symbols/elf_symbols.h"

#include <algorithm>

namespace dcpi {

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
