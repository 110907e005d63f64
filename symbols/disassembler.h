// Host-side disassembly of Alpha code with isa/: one word, or every
// executable section of an ELF image. Text matches alpha-linux-gnu-objdump -d
// (instruction part); addresses optionally get a " <function+0xoff>" suffix.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "isa/isa.h"
#include "symbols/elf_image.h"

namespace dcpi {

struct DisassembledInstruction {
  uint64_t address = 0;
  uint32_t word = 0;
  isa::Instruction instruction;
  std::string text;  // e.g. "bsr\tra,fffffc0000310040 <main+0x20>"
};

// One instruction. With `symbols`, branch targets and jump hints are followed
// by " <function+0xoff>" the way objdump annotates them; with `symbols` of an
// image that has no symbol table they are written 0x<hex>, as objdump does.
std::string disassemble_word(uint32_t word, uint64_t address,
                             isa::DecodeMode mode = isa::DecodeMode::kUser,
                             const ElfSymbols* symbols = nullptr);

// Every instruction in the code sections of `path` (ElfImage::code_sections).
// An image without a symbol table gets objdump's 0x<hex> targets.
std::vector<DisassembledInstruction> disassemble_elf(const std::string& path,
                                                     isa::DecodeMode mode = isa::DecodeMode::kUser,
                                                     const ElfSymbols* symbols = nullptr);

}  // namespace dcpi
