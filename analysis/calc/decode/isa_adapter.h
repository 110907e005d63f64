// The bridge from isa/ to dcpicalc (DCPI §6.1.1, §6.3): decodes Alpha
// instruction words into the InstructionRecords the CFG builder and the
// processor models read. Issue classes come from isa/'s EV5 classes (GCC
// ev5.md types), operands from the instruction's fields, control flow from
// isa::control_flow; the text is isa/'s objdump-compatible disassembly.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "analysis/calc/decode/jump_tables.h"
#include "analysis/calc/model/instruction_record.h"
#include "isa/instruction.h"

namespace dcpi::calc {

// One instruction. `mode` is DecodeMode::kPalcode for the PALcode image
// (hw_* instructions), kUser for the kernel and user images.
InstructionRecord decode_record(uint32_t word, uint64_t address,
                                isa::DecodeMode mode = isa::DecodeMode::kUser);

// Consecutive words starting at `address`.
std::vector<InstructionRecord> decode_records(std::span<const uint32_t> words, uint64_t address,
                                              isa::DecodeMode mode = isa::DecodeMode::kUser);

// isa/'s objdump-compatible disassembly of a word, or of a record's
// (made when a report prints it: records carry no text, issue 31).
std::string disassemble(uint32_t word, uint64_t address,
                        isa::DecodeMode mode = isa::DecodeMode::kUser);
std::string disassemble(const InstructionRecord& record);

// What an indirect `jmp` most likely is (DCPI §6.1.1: "we do not yet analyse
// the instructions before it"; here it is done for switch tables):
//  - kTailCall: jmp through pv ($27), the Alpha calling convention's
//    procedure value — a sibling call that leaves the procedure;
//  - kJumpTable: a switch table. The classification sees the target loaded
//    from memory in the same block (ldl/ldq, possibly plus gp);
//    resolve_jump_tables (jump_tables.h) then reads the table (`table`) or
//    says why not (`problem`; the CFG keeps missing edges);
//  - kUnknown: anything else (missing edges).
enum class IndirectJumpKind : uint8_t { kUnknown, kTailCall, kJumpTable };

struct IndirectJump {
  uint64_t address = 0;
  IndirectJumpKind kind = IndirectJumpKind::kUnknown;
  std::optional<uint64_t> table_load;  // the load that fetched the table entry
  std::optional<JumpTable> table;      // read: the jmp's targets are CFG edges
  std::string problem;                 // why a jump table was not read
};

// Classifies every indirect jump of a procedure's records and rewrites the
// tail calls to leave the procedure (ControlFlow::kReturn: like a return,
// control does not come back); the others stay kIndirectJump, and build_cfg
// marks the CFG as missing edges unless resolve_jump_tables gives them
// targets. Returns one entry per indirect jump.
std::vector<IndirectJump> resolve_indirect_jumps(std::vector<InstructionRecord>& procedure);

std::string_view to_string(IndirectJumpKind kind);
// For reports: "jump table (7 entries, 6 targets)", "jump table (not read: ...)",
// "tail call through pv", "unresolved indirect jump".
std::string describe(const IndirectJump& jump);

// resolve_jump_tables over a procedure, its outcomes merged into `jumps`
// (resolve_indirect_jumps' result): a resolved jmp becomes kJumpTable.
void resolve_jump_tables(std::vector<InstructionRecord>& procedure,
                         std::span<const uint64_t> extra_entries, const ImageData& data,
                         const CallClobbers& calls, std::vector<IndirectJump>& jumps);

// Alpha procedures that set up gp begin with `ldgp gp, 0(pv)` (ldah gp, hi(pv);
// lda gp, lo(gp)); callers that share the gp enter 8 bytes later (the
// linker turns their jsr into `bsr ra, procedure+8`). Returns that second
// entry point, or nothing if the procedure has no such prologue.
std::optional<uint64_t> local_entry_point(std::span<const InstructionRecord> procedure);

}  // namespace dcpi::calc
