#include "analysis/symbols/disassembler.h"

#include <string>

namespace dcpi {
namespace {

// objdump's annotation: the containing function and the offset into it.
void print_with_symbol(void* context, uint64_t address, isa::TextBuffer& out) {
  out.put_hex(address);
  const auto* symbols = static_cast<const ElfSymbols*>(context);
  const ElfSymbol* function = symbols->function_containing(address);
  if (function == nullptr) return;
  out.put(" <");
  out.put(function->name.c_str());
  if (address != function->address) {
    out.put("+0x");
    out.put_hex(address - function->address);
  }
  out.put('>');
}

std::string text_of(const isa::Instruction& instruction, uint64_t address,
                    const ElfSymbols* symbols) {
  char buffer[512];
  const isa::AddressPrinter printer{print_with_symbol, const_cast<ElfSymbols*>(symbols)};
  isa::print_instruction(instruction, address, buffer, sizeof buffer,
                         symbols != nullptr ? &printer : nullptr);
  return buffer;
}

}  // namespace

std::string disassemble_word(uint32_t word, uint64_t address, isa::DecodeMode mode,
                             const ElfSymbols* symbols) {
  return text_of(isa::decode(word, mode), address, symbols);
}

std::vector<DisassembledInstruction> disassemble_elf(const std::string& path, isa::DecodeMode mode,
                                                     const ElfSymbols* symbols) {
  std::vector<DisassembledInstruction> result;
  const ElfImage image = ElfImage::open(path, {.line_tables = false});
  for (const CodeSection& section : image.code_sections()) {
    uint64_t address = section.address;
    for (uint32_t word : section.words) {
      DisassembledInstruction d;
      d.address = address;
      d.word = word;
      d.instruction = isa::decode(word, mode);
      d.text = text_of(d.instruction, address, symbols);
      result.push_back(std::move(d));
      address += 4;
    }
  }
  return result;
}

}  // namespace dcpi
