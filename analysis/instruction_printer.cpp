#include "analysis/instruction_printer.h"

#include <cstdio>

namespace dcpi {

std::string RawWordPrinter::format(uint32_t word, uint64_t) const {
  char text[24];
  std::snprintf(text, sizeof text, ".long 0x%08x", word);
  return text;
}

std::unique_ptr<InstructionPrinter> make_instruction_printer() {
  return std::make_unique<RawWordPrinter>();
}

}  // namespace dcpi
