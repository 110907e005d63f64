#include "analysis/symbols/pc_symbolizer.h"

#include <cstdio>

#include "analysis/symbols/demangle.h"
#include "hostdump/sample_log_reader.h"

namespace dcpi {

std::string unknown_pc_name(uint64_t pc) {
  char text[40];
  std::snprintf(text, sizeof text, "[unknown 0x%llx]", static_cast<unsigned long long>(pc));
  return text;
}

PcSymbolizer::PcSymbolizer(ElfSymbols kernel, std::optional<ElfSymbols> palcode)
    : kernel_(std::move(kernel)), palcode_(std::move(palcode)) {}

// PALcode runs at physical addresses but its ELF may be linked in KSEG (QEMU
// maps KSEG addresses to physical when loading -bios), so try both forms.
const ElfSymbol* PcSymbolizer::palcode_function(uint64_t pc) const {
  if (!palcode_) return nullptr;
  if (const ElfSymbol* function = palcode_->function_containing(pc)) return function;
  if (is_kseg_address(pc) || pc >= kKsegSize) return nullptr;
  return palcode_->function_containing(kKsegBase + pc);
}

std::string PcSymbolizer::name_for(uint64_t pc) const {
  const uint64_t instruction = pc & ~uint64_t{3};  // bit 0 flags PALmode
  if (const ElfSymbol* function = kernel_.function_containing(instruction))
    return demangle(function->name);
  if (const ElfSymbol* function = palcode_function(instruction))
    return demangle(function->name) + " [palcode]";
  return unknown_pc_name(pc);
}

}  // namespace dcpi
