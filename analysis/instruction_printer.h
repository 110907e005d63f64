// Instruction text for annotated listings (dcpi list). The Alpha decoder and
// binutils-syntax printer live in isa/ (DESIGN §7: disassembly from isa/,
// checked against alpha-linux-gnu-objdump); this small interface keeps the
// report code independent of it, and the raw-word printer stands in where no
// decoder is linked.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

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

// The best printer this build has.
std::unique_ptr<InstructionPrinter> make_instruction_printer();

}  // namespace dcpi
