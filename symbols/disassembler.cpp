#include "symbols/disassembler.h"

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

// objdump with no symbols at all to choose from (an image without a symbol
// table, e.g. QEMU's palcode-clipper) writes addresses as 0x<hex>.
void print_without_symbols(void*, uint64_t address, isa::TextBuffer& out) {
  out.put("0x");
  out.put_hex(address);
}

std::string text_of(const isa::Instruction& instruction, uint64_t address,
                    const ElfSymbols* symbols) {
  char buffer[512];
  const isa::AddressPrinter annotated{print_with_symbol, const_cast<ElfSymbols*>(symbols)};
  const isa::AddressPrinter bare{print_without_symbols, nullptr};
  const isa::AddressPrinter* printer = nullptr;
  if (symbols != nullptr) printer = symbols->has_symbol_table() ? &annotated : &bare;
  isa::print_instruction(instruction, address, buffer, sizeof buffer, printer);
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
  // Without a symbol table objdump's form changes (0x prefix): follow it
  // even when the caller gave no symbols.
  if (symbols == nullptr && !image.symbols().has_symbol_table()) symbols = &image.symbols();
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
