#include "analysis/calc/model/ev5_model.h"

#include "isa/ev5_slotting.h"

namespace dcpi::calc {

// Every §6.3 candidate: the 21164 has them all.
std::span<const StallCause> Ev5Model::dynamic_stall_causes() const { return isa::kDynamicCauses; }

uint32_t Ev5Model::worst_event_cycles(StallCause cause) const {
  switch (cause) {
    case StallCause::kBranchMispredict:
      return 5;  // 21164 HRM: the mispredict penalty
    case StallCause::kItbMiss:
    case StallCause::kDtbMiss:
      return 25;  // the PALcode TB miss flow (the ev5 machine's itb_refill, dtb_refill)
    case StallCause::kReplay:
      return 7;  // the load's replay trap restarts the pipeline (the ev5 machine's `replay`)
    default:     // a fill from memory behind two bus transfers (memory_latency, memory_bus)
      return 100 + 2 * 80;
  }
}

namespace {

uint8_t register_slot(const Register& reg) {
  return static_cast<uint8_t>(reg.number + (reg.floating ? 32u : 0u));
}

// The record's operands in the form of isa/ev5_slotting.h (which holds the
// 21164 issue rules; this model only translates).
isa::Ev5Instruction to_ev5(const InstructionRecord& record) {
  isa::Ev5Instruction in{.address = record.address, .ev5_class = record.ev5_class};
  const std::optional<SourceOperand>* sources[] = {&record.source_a, &record.source_b,
                                                   &record.source_c};
  for (size_t s = 0; s < 3; ++s)
    if (*sources[s] && !(*sources[s])->reg.is_zero())
      in.sources[s] = register_slot((*sources[s])->reg);
  if (record.destination && !record.destination->is_zero())
    in.destination = register_slot(*record.destination);
  return in;
}

StaticStall to_stall(const isa::Ev5Stall& stall, const InstructionRecord& record) {
  StaticStall result{.reason = stall.reason, .cycles = stall.cycles};
  if (stall.culprit != isa::kEv5NoCulprit) result.culprit = stall.culprit;
  const std::optional<SourceOperand>* sources[] = {&record.source_a, &record.source_b,
                                                   &record.source_c};
  if (stall.operand < 3) result.operand = (*sources[stall.operand])->field;
  return result;
}

}  // namespace

BlockSchedule Ev5Model::schedule_block(std::span<const InstructionRecord> block) const {
  BlockSchedule schedule;
  schedule.instructions.resize(block.size());
  // One scheduler per thread, reset for each block (constructing one per
  // block cleared all of its state: issue 31).
  thread_local isa::Ev5BlockScheduler scheduler;
  scheduler.reset();
  for (size_t i = 0; i < block.size(); ++i) {
    const isa::Ev5Issue issue = scheduler.issue(to_ev5(block[i]));
    ScheduledInstruction& out = schedule.instructions[i];
    out.issue_cycle = issue.issue_cycle;
    out.head_cycles = issue.head_cycles;
    for (uint8_t k = 0; k < issue.stall_count; ++k)
      out.stalls.push_back(to_stall(issue.stalls[k], block[i]));
  }
  schedule.best_case_cycles = scheduler.best_case_cycles();
  return schedule;
}

}  // namespace dcpi::calc
