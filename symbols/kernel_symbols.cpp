#include "symbols/kernel_symbols.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "firmware/memory_map.h"

namespace dcpi {

uint64_t kernel_symbol_physical(const ElfSymbols& kernel, const ElfSymbol& symbol) {
  if (!is_kseg_address(symbol.address))
    throw std::runtime_error(symbol.name + " in " + kernel.path() + " is at " +
                             fmt::format("{:#x}", symbol.address) +
                             ", not a KSEG address (0xfffffc0000000000 + physical)");
  return kseg_to_physical(symbol.address);
}

uint64_t kernel_symbol_physical(const ElfSymbols& kernel, std::string_view name) {
  return kernel_symbol_physical(kernel, kernel.lookup(name));
}

}  // namespace dcpi
