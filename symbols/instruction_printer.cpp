#include "symbols/instruction_printer.h"

#include <cstdio>

#include "symbols/disassembler.h"
#include "symbols/elf_image.h"

namespace dcpi {

namespace {
constexpr size_t kMnemonicWidth = 8;  // objdump's tab stop
}

std::string RawWordPrinter::format(uint32_t word, uint64_t) const {
  char text[24];
  std::snprintf(text, sizeof text, ".long 0x%08x", word);
  return text;
}

std::string IsaInstructionPrinter::format(uint32_t word, uint64_t address) const {
  std::string text = disassemble_word(word, address, mode_, symbols_);
  if (const size_t tab = text.find('\t'); tab != std::string::npos)
    text.replace(tab, 1, std::string(tab < kMnemonicWidth ? kMnemonicWidth - tab : 1, ' '));
  return text;
}

std::unique_ptr<InstructionPrinter> make_instruction_printer(const std::string& guest_path,
                                                             const ElfSymbols* symbols) {
  return std::make_unique<IsaInstructionPrinter>(symbols, decode_mode_for_image(guest_path));
}

}  // namespace dcpi
