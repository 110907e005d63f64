#include "analysis/calc/decode/isa_adapter.h"

#include "isa/isa.h"

namespace dcpi::calc {

namespace {

using isa::Kind;
using isa::Shape;

std::optional<SourceOperand> source(uint8_t number, bool floating, OperandField field) {
  if (number == 31) return std::nullopt;  // r31/f31 read as zero
  return SourceOperand{Register{number, floating}, field};
}
std::optional<Register> destination(uint8_t number, bool floating) {
  if (number == 31) return std::nullopt;  // writes are discarded
  return Register{number, floating};
}

// Registers read from Ra and Rb and the one written (isa/operands.h has the
// same facts as bit masks; the record needs them per field, for Figure 2's
// "Ra/Rb dependency" and the culprit column).
void fill_operands(const isa::Instruction& in, InstructionRecord& r) {
  if (!in.valid()) return;
  const Kind kind = in.kind();
  const bool store = kind == Kind::kStore || kind == Kind::kStoreConditional;
  switch (in.shape()) {
    case Shape::kMemory:
    case Shape::kHwMemory:
      r.source_b = source(in.rb, false, OperandField::kRb);
      if (store) {
        r.source_a = source(in.ra, false, OperandField::kRa);
        if (kind == Kind::kStoreConditional) r.destination = destination(in.ra, false);
      } else {
        r.destination = destination(in.ra, false);
      }
      break;
    case Shape::kMemoryFp:
      r.source_b = source(in.rb, false, OperandField::kRb);
      if (store)
        r.source_a = source(in.ra, true, OperandField::kRa);
      else
        r.destination = destination(in.ra, true);
      break;
    case Shape::kBranch:
      if (kind == Kind::kConditionalBranch)
        r.source_a = source(in.ra, false, OperandField::kRa);
      else
        r.destination = destination(in.ra, false);
      break;
    case Shape::kBranchFp:
      r.source_a = source(in.ra, true, OperandField::kRa);
      break;
    case Shape::kOperate:
    case Shape::kOperateRegisterOnly:
    case Shape::kOperateUnary:
    case Shape::kOperateUnaryRegisterOnly:
    case Shape::kImplver:
      r.source_a = source(in.ra, false, OperandField::kRa);
      if (!in.has_literal) r.source_b = source(in.rb, false, OperandField::kRb);
      r.destination = destination(in.rc, false);
      break;
    case Shape::kFpOperate:
    case Shape::kFpUnary:
      r.source_a = source(in.ra, true, OperandField::kRa);
      r.source_b = source(in.rb, true, OperandField::kRb);
      r.destination = destination(in.rc, true);
      break;
    case Shape::kIntToFp:
      r.source_a = source(in.ra, false, OperandField::kRa);
      r.destination = destination(in.rc, true);
      break;
    case Shape::kFpToInt:
      r.source_a = source(in.ra, true, OperandField::kRa);
      r.destination = destination(in.rc, false);
      break;
    case Shape::kFpcr:
      if (in.is(isa::Operation::kMtFpcr))
        r.source_a = source(in.ra, true, OperandField::kRa);
      else
        r.destination = destination(in.ra, true);
      break;
    case Shape::kMiscRb:
    case Shape::kHwMtpr:
      r.source_b = source(in.rb, false, OperandField::kRb);
      break;
    case Shape::kMiscRa:
    case Shape::kMiscRpcc:
    case Shape::kHwMfpr:
      r.destination = destination(in.ra, false);
      break;
    case Shape::kJump:
    case Shape::kReturn:
      r.source_b = source(in.rb, false, OperandField::kRb);
      r.destination = destination(in.ra, false);
      break;
    case Shape::kHwJump:
    case Shape::kHwReturn:
      r.source_b = source(in.rb, false, OperandField::kRb);
      break;
    case Shape::kPal:
    case Shape::kMiscNone:
      break;
  }
  if (kind == Kind::kIntegerConditionalMove) r.source_c = source(in.rc, false, OperandField::kRc);
  if (kind == Kind::kFpConditionalMove) r.source_c = source(in.rc, true, OperandField::kRc);
}

constexpr uint32_t kPalHalt = 0x0000;

// objdump's unop (ldq_u zero,0(x)), nop (bis zero,zero,zero) and fnop
// (cpys $f31,$f31,$f31): GCC's and gas's alignment padding.
bool is_no_op(const isa::Instruction& in) {
  using isa::Operation;
  if (in.is(Operation::kLdqU)) return in.ra == 31;
  if (in.is(Operation::kBis)) return !in.has_literal && in.ra == 31 && in.rb == 31 && in.rc == 31;
  if (in.is(Operation::kCpys)) return in.ra == 31 && in.rb == 31 && in.rc == 31;
  return false;
}

void fill_control_flow(const isa::Instruction& in, uint64_t address, InstructionRecord& r) {
  switch (isa::control_flow(in)) {
    case isa::ControlFlow::kFallThrough:
      r.control_flow = ControlFlow::kNone;
      break;
    case isa::ControlFlow::kConditionalBranch:
      r.control_flow = ControlFlow::kConditionalBranch;
      r.branch_target = isa::branch_target(in, address);
      break;
    case isa::ControlFlow::kBranch:
      r.control_flow = ControlFlow::kUnconditionalBranch;
      r.branch_target = isa::branch_target(in, address);
      break;
    case isa::ControlFlow::kCall:
      r.control_flow = ControlFlow::kCall;
      if (in.kind() == Kind::kBranchSubroutine) r.branch_target = isa::branch_target(in, address);
      break;
    case isa::ControlFlow::kJump:
    case isa::ControlFlow::kCoroutine:  // jsr_coroutine / hw_jcr: target unknown
      r.control_flow = ControlFlow::kIndirectJump;
      break;
    case isa::ControlFlow::kReturn:
      r.control_flow = ControlFlow::kReturn;
      break;
    case isa::ControlFlow::kCallPal:
      // call_pal halt never comes back; other PAL calls return to the next
      // instruction (callsys, rti aside: rti never returns here either).
      r.control_flow = in.pal_function == kPalHalt ? ControlFlow::kHalt : ControlFlow::kNone;
      break;
    case isa::ControlFlow::kStop:
      r.control_flow = ControlFlow::kHalt;  // undecodable: nothing sensible follows
      break;
  }
}

}  // namespace

InstructionRecord decode_record(uint32_t word, uint64_t address, isa::DecodeMode mode) {
  const isa::Instruction in = isa::decode(word, mode);
  InstructionRecord r;
  r.address = address;
  r.encoding = word;
  r.mode = mode;
  r.ev5_class = isa::ev5_class(in);
  r.kind = in.kind();
  fill_operands(in, r);
  fill_control_flow(in, address, r);
  r.no_op = is_no_op(in);
  return r;
}

std::string disassemble(uint32_t word, uint64_t address, isa::DecodeMode mode) {
  char text[128];
  isa::print_instruction(isa::decode(word, mode), address, text, sizeof text);
  return text;
}

std::string disassemble(const InstructionRecord& record) {
  return disassemble(record.encoding, record.address, record.mode);
}

std::vector<InstructionRecord> decode_records(std::span<const uint32_t> words, uint64_t address,
                                              isa::DecodeMode mode) {
  std::vector<InstructionRecord> records;
  records.reserve(words.size());
  for (size_t i = 0; i < words.size(); ++i)
    records.push_back(decode_record(words[i], address + 4 * i, mode));
  return records;
}

std::string_view to_string(IndirectJumpKind kind) {
  switch (kind) {
    case IndirectJumpKind::kUnknown:
      return "unresolved indirect jump";
    case IndirectJumpKind::kTailCall:
      return "tail call through pv";
    case IndirectJumpKind::kJumpTable:
      return "jump table";
  }
  return "?";
}

std::string describe(const IndirectJump& jump) {
  std::string text(to_string(jump.kind));
  if (jump.table) {
    text += " (" + std::to_string(jump.table->entries) + " entries, " +
            std::to_string(jump.table->targets.size()) + " targets)";
  } else if (jump.kind == IndirectJumpKind::kJumpTable) {
    text += " (not read: " + (jump.problem.empty() ? "unknown" : jump.problem) + ")";
  }
  return text;
}

void resolve_jump_tables(std::vector<InstructionRecord>& procedure,
                         std::span<const uint64_t> extra_entries, const ImageData& data,
                         const CallClobbers& calls, std::vector<IndirectJump>& jumps) {
  for (JumpTableOutcome& outcome : resolve_jump_tables(procedure, extra_entries, data, calls)) {
    for (IndirectJump& jump : jumps) {
      if (jump.address != outcome.jump) continue;
      if (outcome.table) jump.kind = IndirectJumpKind::kJumpTable;
      jump.table = std::move(outcome.table);
      jump.problem = std::move(outcome.problem);
    }
  }
}

namespace {

constexpr uint8_t kPv = 27;  // procedure value register (Alpha calling standard)
constexpr uint8_t kGp = 29;  // global pointer

// Walks back from the jmp at `index` inside its straight-line code looking for
// the load that produced the jump target, allowing one `addq x, gp` between
// (GCC's switch tables hold gp-relative 32-bit offsets).
std::optional<size_t> table_load_before(const std::vector<InstructionRecord>& code, size_t index) {
  Register target = code[index].source_b ? code[index].source_b->reg : Register{};
  if (target.is_zero()) return std::nullopt;
  for (size_t k = index; k-- > 0;) {
    const InstructionRecord& r = code[k];
    if (r.control_flow != ControlFlow::kNone) return std::nullopt;  // left the block
    if (r.destination != target) continue;
    if (r.ev5_class == isa::Ev5Class::kIld || r.ev5_class == isa::Ev5Class::kLdL) return k;
    if (r.ev5_class == isa::Ev5Class::kIadd && r.kind != Kind::kLoadAddress && r.source_a &&
        r.source_b) {
      if (r.source_b->reg == int_register(kGp)) {
        target = r.source_a->reg;
        continue;
      }
      if (r.source_a->reg == int_register(kGp)) {
        target = r.source_b->reg;
        continue;
      }
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<uint64_t> local_entry_point(std::span<const InstructionRecord> procedure) {
  if (procedure.size() < 3) return std::nullopt;
  const InstructionRecord& high = procedure[0];
  const InstructionRecord& low = procedure[1];
  const Register gp = int_register(kGp);
  const bool sets_gp = high.kind == Kind::kLoadAddress && high.destination == gp && high.source_b &&
                       high.source_b->reg == int_register(kPv) && low.kind == Kind::kLoadAddress &&
                       low.destination == gp && low.source_b && low.source_b->reg == gp;
  if (!sets_gp) return std::nullopt;
  return procedure[2].address;
}

std::vector<IndirectJump> resolve_indirect_jumps(std::vector<InstructionRecord>& procedure) {
  std::vector<IndirectJump> result;
  for (size_t i = 0; i < procedure.size(); ++i) {
    InstructionRecord& r = procedure[i];
    if (r.control_flow != ControlFlow::kIndirectJump) continue;
    IndirectJump jump{.address = r.address};
    if (r.source_b && r.source_b->reg == int_register(kPv) && !r.destination) {
      jump.kind = IndirectJumpKind::kTailCall;
      r.control_flow = ControlFlow::kReturn;  // leaves the procedure, does not come back
    } else if (const std::optional<size_t> load = table_load_before(procedure, i)) {
      jump.kind = IndirectJumpKind::kJumpTable;
      jump.table_load = procedure[*load].address;
    }
    result.push_back(jump);
  }
  return result;
}

}  // namespace dcpi::calc
