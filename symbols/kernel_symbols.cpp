#include "symbols/kernel_symbols.h"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "firmware/memory_map.h"

namespace dcpi {
namespace {

std::string hex(uint64_t value) {
  char text[20];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

uint64_t kernel_symbol_physical(const ElfSymbols& kernel, const ElfSymbol& symbol) {
  if (!is_kseg_address(symbol.address))
    throw std::runtime_error(symbol.name + " in " + kernel.path() + " is at 0x" +
                             hex(symbol.address) +
                             ", not a KSEG address (0xfffffc0000000000 + physical)");
  return kseg_to_physical(symbol.address);
}

uint64_t kernel_symbol_physical(const ElfSymbols& kernel, std::string_view name) {
  return kernel_symbol_physical(kernel, kernel.lookup(name));
}

}  // namespace dcpi
