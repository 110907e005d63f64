// Instruction text for annotated listings (dcpi list). The Alpha decoder and
// binutils-syntax printer live in isa/ (DESIGN §7: disassembly from isa/,
// checked against alpha-linux-gnu-objdump); this small interface keeps the
// report code independent of it, and the raw-word printer stands in for tests
// that want text independent of the decoder.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "isa/isa.h"
#include "symbols/elf_symbols.h"

namespace dcpi {

class InstructionPrinter {
 public:
  virtual ~InstructionPrinter() = default;
  // Text of the instruction `word` located at `address` (branch targets are absolute).
  virtual std::string format(uint32_t word, uint64_t address) const = 0;
};

// ".long 0x47ff041f": what objdump prints for a word it cannot decode.
class RawWordPrinter : public InstructionPrinter {
 public:
  std::string format(uint32_t word, uint64_t address) const override;
};

// objdump's text ("ldq     t1,0(t0)", "beq     t1,0x120000010 <accumulate+0x10>"),
// with the mnemonic padded instead of objdump's tab so columns line up.
class IsaInstructionPrinter : public InstructionPrinter {
 public:
  IsaInstructionPrinter(const ElfSymbols* symbols, isa::DecodeMode mode)
      : symbols_(symbols), mode_(mode) {}
  std::string format(uint32_t word, uint64_t address) const override;

 private:
  const ElfSymbols* symbols_;
  isa::DecodeMode mode_;
};

// The printer for code of the image at `guest_path` with these symbols,
// decoding as decode_mode_for_image (elf_image.h) guesses from the name.
std::unique_ptr<InstructionPrinter> make_instruction_printer(const std::string& guest_path,
                                                             const ElfSymbols* symbols);

}  // namespace dcpi
