// The instruction as dcpicalc sees it (DCPI §6.1.1, §6.3): an opaque record
// that the ISA adapter (isa_adapter.h) fills from isa/'s decoder and that the
// CFG builder and the processor models read. Nothing here decodes Alpha bits:
// the adapter gives each instruction its EV5 class and kind, its register
// operands and its control flow, and the models know the rest.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "isa/instruction.h"
#include "isa/registers.h"

namespace dcpi::calc {

// Registers are isa/'s (isa/registers.h); the EV5 scheduling class is
// isa/'s too (isa/instruction.h, timing in isa/ev5.h).
using isa::fp_register;
using isa::int_register;
using isa::Register;

// How an instruction changes control flow; the CFG builder (§6.1.1) needs
// only this and the static target.
enum class ControlFlow : uint8_t {
  kNone,                 // falls through
  kConditionalBranch,    // target or fall through
  kUnconditionalBranch,  // br: always the target
  kCall,                 // bsr / jsr: returns to the next instruction
  kIndirectJump,         // jmp: jump_targets if resolved (a jump table), else missing edges
  kReturn,               // ret: leaves the procedure
  kHalt,                 // never falls through (e.g. call_pal halt)
};

// Which field of the instruction word an operand comes from. Figure 2's
// culprit column and §6.3's static stall reasons name it ("Ra dependency").
enum class OperandField : uint8_t { kRa, kRb, kRc };

struct SourceOperand {
  Register reg;
  OperandField field = OperandField::kRa;
};

// A range of code, [start, end) bytes.
struct CodeRange {
  uint64_t start = 0, end = 0;
};

struct InstructionRecord {
  uint64_t address = 0;
  uint32_t encoding = 0;  // the raw instruction word
  // How `encoding` decodes (hw_* in PALcode). The disassembly is made from
  // these two only where a report prints it (isa_adapter.h's disassemble):
  // an owned string per record was a fifth of a whole-image analysis's time
  // in malloc/free and copies (issue 31).
  isa::DecodeMode mode = isa::DecodeMode::kUser;
  isa::Ev5Class ev5_class = isa::Ev5Class::kIadd;  // GCC ev5.md type: pipes, latency
  isa::Kind kind = isa::Kind::kIntegerArithmetic;  // e.g. lda (kLoadAddress) vs. addq
  std::optional<SourceOperand> source_a;           // read from Ra (or Fa)
  std::optional<SourceOperand> source_b;  // read from Rb (or Fb); literals are not registers
  // Read from Rc (or Fc): a conditional move that does not move keeps the old
  // value, so the destination is also a source (a dependency on its producer).
  std::optional<SourceOperand> source_c;
  std::optional<Register> destination;  // written (Ra for loads/lda/br/jsr, Rc for operates)
  ControlFlow control_flow = ControlFlow::kNone;
  std::optional<uint64_t> branch_target;  // for direct branches and bsr
  // A resolved indirect jump's targets (a switch table, jump_tables.h):
  // distinct, inside the procedure. Empty: unknown (missing edges).
  std::vector<uint64_t> jump_targets;
  // unop, nop or fnop: what assemblers emit as alignment padding. Padding
  // after an unconditional transfer that no edge reaches never executes
  // (build_cfg keeps it out of the blocks that do).
  bool no_op = false;
};

}  // namespace dcpi::calc
