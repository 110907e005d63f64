#include "analysis/calc/model/qemu_icount_model.h"

namespace dcpi::calc {

BlockSchedule QemuIcountModel::schedule_block(std::span<const InstructionRecord> block) const {
  BlockSchedule schedule;
  for (size_t i = 0; i < block.size(); ++i)
    schedule.instructions.push_back(
        ScheduledInstruction{.issue_cycle = static_cast<uint32_t>(i), .head_cycles = 1});
  schedule.best_case_cycles = static_cast<uint32_t>(block.size());
  return schedule;
}

}  // namespace dcpi::calc
