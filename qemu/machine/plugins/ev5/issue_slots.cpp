#include "qemu/machine/plugins/ev5/issue_slots.h"

#include <algorithm>

#include "firmware/profileme.h"

namespace dcpi::ev5 {

void IssueSlots::entered(const BlockRecord& block) {
  finish_block();
  block_ = &block;
  const auto& instructions = block.timing.instructions;
  ran_ = static_cast<uint32_t>(instructions.size());
  cost_.resize(instructions.size());
  for (size_t i = 0; i < instructions.size(); ++i) cost_[i] = instructions[i].cost;
}

void IssueSlots::cut(const BlockRecord& block, uint32_t index) {
  if (&block == block_) ran_ = std::min(ran_, index);
}

void IssueSlots::stalled(uint64_t pc, StallCause, uint64_t cycles) {
  if (!block_ || block_->timing.instructions.empty()) return;
  const uint64_t first = block_->timing.instructions.front().pc;
  if (pc < first) return;
  const uint64_t index = (pc - first) / 4;
  if (index < cost_.size()) cost_[index] += cycles;
}

void IssueSlots::finish_block() {
  if (!block_) return;
  const auto& instructions = block_->timing.instructions;
  for (uint32_t i = 0; i < ran_; ++i) {
    if (cost_[i] > 0 || group_.empty()) close_group();  // a leader: the last group is complete
    group_.push_back(Member{truth_key(instructions[i].pc, space_), cost_[i]});
  }
  block_ = nullptr;
}

void IssueSlots::close_group() {
  const auto issued = static_cast<uint64_t>(group_.size());
  for (const Member& m : group_) {
    const uint64_t slots = PROFILEME_ISSUE_WIDTH * std::max<uint64_t>(m.cycles, 1);
    wasted_[m.key] += slots > issued ? slots - issued : 0;
  }
  group_.clear();
}

}  // namespace dcpi::ev5
