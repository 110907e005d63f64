// Kernel data symbols as the host reads them through QEMU's GDB stub: their
// KSEG virtual address (DESIGN §3) turned into the physical address the
// stub's physical memory mode (Qqemu.PhyMemMode) expects.
#pragma once
#include <cstdint>
#include <string_view>

#include "symbols/elf_symbols.h"

namespace dcpi {

// Throws std::runtime_error naming the symbol and image if it is not in KSEG.
uint64_t kernel_symbol_physical(const ElfSymbols& kernel, const ElfSymbol& symbol);
uint64_t kernel_symbol_physical(const ElfSymbols& kernel, std::string_view name);

}  // namespace dcpi
