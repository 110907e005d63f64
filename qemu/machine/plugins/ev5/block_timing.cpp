#include "qemu/machine/plugins/ev5/block_timing.h"

#include <bit>

#include "isa/decode.h"
#include "isa/ev5_slotting.h"
#include "isa/operands.h"

namespace dcpi::ev5 {

namespace {

uint64_t slots(const isa::RegisterSet& set) {
  return uint64_t{set.integer} | (uint64_t{set.fp} << 32);
}

// The scheduler's view: up to three source slots and one destination.
isa::Ev5Instruction scheduler_view(uint64_t pc, isa::Ev5Class ev5_class, uint64_t reads,
                                   uint64_t writes) {
  isa::Ev5Instruction in{.address = pc, .ev5_class = ev5_class};
  for (int s = 0; s < 3 && reads; ++s) {
    in.sources[s] = static_cast<uint8_t>(std::countr_zero(reads));
    reads &= reads - 1;
  }
  if (writes) in.destination = static_cast<uint8_t>(std::countr_zero(writes));
  return in;
}

void record_stalls(const isa::Ev5Issue& issue, uint64_t block_pc, InstructionTiming& out) {
  for (uint8_t k = 0; k < issue.stall_count; ++k) {
    const isa::Ev5Stall& s = issue.stalls[k];
    if (s.cycles == 0) continue;  // a lost issue slot, no cycles of its own
    out.stalls[out.stall_count++] = StaticStall{
        .cause = isa::booked_as(s.reason),  // E0 write-back: a slotting hazard
        .cycles = s.cycles,
        .culprit = s.culprit == isa::kEv5NoCulprit ? kNoCulprit : block_pc + 4ull * s.culprit};
  }
}

// The kind of jump-target prediction the 21164 applies to `in` (Alpha
// Architecture Handbook Table 4-4; BSR pushes like JSR, Appendix A.2.2);
// PALcode's HW_JMP family is left out (docs/ev5-machine.md).
JumpKind jump_kind(const isa::Instruction& in) {
  switch (in.kind()) {
    case isa::Kind::kBranchSubroutine:
      return JumpKind::kBsr;
    case isa::Kind::kJumpSubroutine:
      return in.opcode == 0x1a ? JumpKind::kJsr : JumpKind::kNone;
    case isa::Kind::kJump:
      return in.opcode == 0x1a ? JumpKind::kJmp : JumpKind::kNone;
    case isa::Kind::kReturn:
      return in.opcode == 0x1a ? JumpKind::kRet : JumpKind::kNone;
    case isa::Kind::kCoroutine:
      return in.opcode == 0x1a ? JumpKind::kCoroutine : JumpKind::kNone;
    default:
      return JumpKind::kNone;
  }
}

}  // namespace

BlockTiming time_block(uint64_t pc, std::span<const uint32_t> words) {
  BlockTiming block;
  block.pc = pc;
  block.instructions.resize(words.size());
  isa::Ev5BlockScheduler scheduler;
  // Registers whose value may still be on its way from a load: all of them
  // at entry (a load before the block may be outstanding), then those the
  // block loads. Their first reader is where a miss makes the 21164 wait.
  uint64_t written = 0, loaded = ~0ull;
  int64_t first_multiply = -1, first_divide = -1;
  uint64_t multiplier_free = 0, divider_free = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    // Opcodes 0x19-0x1f trap outside PALcode, so whatever executes them is PALcode.
    const isa::Instruction in = isa::decode(words[i], isa::DecodeMode::kPalcode);
    const isa::Operands operands = isa::operands(in);
    const isa::Ev5Class ev5_class = isa::ev5_class(in);
    InstructionTiming& t = block.instructions[i];
    t.pc = pc + 4 * i;
    t.starts_line = i > 0 && t.pc % 32 == 0;  // 21164 HRM §2.8: 32-byte I-cache lines
    t.reads = slots(operands.read);
    const uint64_t writes = slots(operands.written);
    t.writes = writes;
    const isa::Ev5Issue issue = scheduler.issue(scheduler_view(t.pc, ev5_class, t.reads, writes));
    t.cost = issue.head_cycles;
    t.offset = issue.issue_cycle;
    record_stalls(issue, pc, t);
    block.static_cycles += t.cost;
    t.load = isa::ev5_is_load(ev5_class) && operands.memory.bytes != 0;
    t.latency = isa::ev5_timing(ev5_class).latency;
    t.store = operands.memory.direction == isa::MemoryDirection::kStore;
    if (t.load && writes) t.destination = static_cast<uint8_t>(std::countr_zero(writes));
    t.reads_loaded = (t.reads & loaded) != 0;
    loaded &= ~t.reads;
    block.live_in |= t.reads & ~written;
    written |= writes;
    loaded = t.load ? (loaded | writes) : (loaded & ~writes);
    if (const uint8_t busy = isa::ev5_multiplier_busy(ev5_class)) {
      if (first_multiply < 0) first_multiply = static_cast<int64_t>(i);
      multiplier_free = t.offset + busy;
    }
    if (const uint8_t busy = isa::ev5_divider_busy(ev5_class)) {
      if (first_divide < 0) first_divide = static_cast<int64_t>(i);
      divider_free = t.offset + busy;
    }
    if (i + 1 == words.size()) {
      block.ends_in_transfer = isa::control_flow(in) != isa::ControlFlow::kFallThrough;
      if (isa::control_flow(in) == isa::ControlFlow::kConditionalBranch) {
        block.ends_in_conditional_branch = true;
        block.branch_target = isa::branch_target(in, t.pc);
      }
      block.jump = jump_kind(in);
      if (block.jump == JumpKind::kJmp || block.jump == JumpKind::kJsr)
        block.hint_target = JumpPredictor::hint_target(t.pc, in.displacement);
    }
  }
  size_t group = 0;  // the first instruction of the issue group being counted
  for (size_t i = 0; i < block.instructions.size(); ++i) {
    InstructionTiming& t = block.instructions[i];
    t.charge = static_cast<int32_t>(t.cost) - 1;
    if (i == 0 || t.offset != block.instructions[group].offset) group = i;
    ++block.instructions[group].issue_width;
  }
  if (first_multiply >= 0) {
    block.instructions[first_multiply].first_multiply = true;
    block.multiplier_span =
        static_cast<uint32_t>(multiplier_free - block.instructions[first_multiply].offset);
  }
  if (first_divide >= 0) {
    block.instructions[first_divide].first_divide = true;
    block.divider_span =
        static_cast<uint32_t>(divider_free - block.instructions[first_divide].offset);
  }
  return block;
}

}  // namespace dcpi::ev5
