// Names the code at a sampled PC: a kernel function, a PALcode function when
// a PALcode ELF was given, or "[unknown 0x…]". C++ names are demangled.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "analysis/symbols/elf_symbols.h"

namespace dcpi {

class PcSymbolizer {
 public:
  PcSymbolizer(ElfSymbols kernel, std::optional<ElfSymbols> palcode);
  std::string name_for(uint64_t pc) const;

 private:
  const ElfSymbol* palcode_function(uint64_t pc) const;

  ElfSymbols kernel_;
  std::optional<ElfSymbols> palcode_;
};

std::string unknown_pc_name(uint64_t pc);

}  // namespace dcpi
