#include "qemu/machine/plugins/ev5/profile_unit.h"

#include <algorithm>

#include "firmware/memory_map.h"

namespace dcpi::ev5 {

namespace {

uint64_t bit_of(ModelEvent event) {
  switch (event) {
    case ModelEvent::kICacheMiss:
      return PROFILEME_BIT_IMISS;
    case ModelEvent::kItbMiss:
      return PROFILEME_BIT_ITBMISS;
    case ModelEvent::kDCacheMiss:
      return PROFILEME_BIT_DMISS;
    case ModelEvent::kDtbMiss:
      return PROFILEME_BIT_DTBMISS;
    case ModelEvent::kBranchMispredict:
      return PROFILEME_BIT_MISPREDICT;
    default:
      return 0;
  }
}

// Fetch -> slot: what kept the instruction from reaching the issue stage
// (its line, its page, the restart after a mispredict); every other stall
// is slot -> issue (seed 004 Table 1's map -> data-ready -> issue on the
// 21264, one in-order wait on the 21164).
bool is_fetch_stall(StallCause cause) {
  return cause == StallCause::kICacheMiss || cause == StallCause::kItbMiss ||
         cause == StallCause::kBranchMispredict;
}

uint64_t saturate(uint64_t value, uint64_t mask) { return std::min(value, mask); }

}  // namespace

void ProfileUnit::arm(uint64_t fetched) { countdown_ = fetched; }

uint64_t ProfileUnit::take_completed() {
  if (!completed_) return 0;
  completed_ = false;
  return EV5_OVERFLOW_PROFILEME;
}

void ProfileUnit::entered(const BlockRecord& block) {
  if (tagging_) complete();  // the tagged instruction's block was left: it retired
  if (countdown_ == 0) return;
  const auto& instructions = block.timing.instructions;
  if (countdown_ > instructions.size()) {
    countdown_ -= instructions.size();
    return;
  }
  index_ = static_cast<uint32_t>(countdown_ - 1);
  countdown_ = 0;  // software arms it again after reading the record
  block_ = &block;
  pc_ = instructions[index_].pc;
  bits_ = PROFILEME_BIT_RETIRED | (is_palcode_address(pc_) ? PROFILEME_BIT_PAL : 0);
  stall_ = fetch_ = address_ = 0;
  issue_ = instructions[index_].cost;
  tagging_ = true;
}

void ProfileUnit::cut(const BlockRecord& block, uint32_t index) {
  if (!tagging_ || &block != block_ || index_ < index) return;
  bits_ &= ~uint64_t{PROFILEME_BIT_RETIRED};  // fetched, but the exit came first
  complete();
}

void ProfileUnit::event(uint64_t pc, ModelEvent event) {
  if (tagging_ && pc == pc_) bits_ |= bit_of(event);
}

void ProfileUnit::stalled(uint64_t pc, StallCause cause, uint64_t cycles) {
  if (!tagging_ || pc != pc_) return;
  (is_fetch_stall(cause) ? fetch_ : stall_) += cycles;
  if (cause == StallCause::kWriteBufferOverflow && cycles != 0) bits_ |= PROFILEME_BIT_WBUF;
}

void ProfileUnit::missed_levels(uint64_t pc, bool scache, bool bcache) {
  if (!tagging_ || pc != pc_) return;
  if (scache) bits_ |= PROFILEME_BIT_SMISS;
  if (bcache) bits_ |= PROFILEME_BIT_BMISS;
}

void ProfileUnit::accessed(uint64_t pc, uint64_t vaddr) {
  if (tagging_ && pc == pc_) address_ = vaddr;
}

void ProfileUnit::flush() {
  if (tagging_) complete();
}

void ProfileUnit::complete() {
  tagging_ = false;
  registers_[PROFILEME_REG_PC] = pc_;
  registers_[PROFILEME_REG_EVENTS] = bits_ | uint64_t{space_} << PROFILEME_SPACE_SHIFT;
  registers_[PROFILEME_REG_LATENCY] =
      saturate(stall_, PROFILEME_LAT_STALL_MASK) << PROFILEME_LAT_STALL_SHIFT |
      saturate(fetch_, PROFILEME_LAT_FETCH_MASK) << PROFILEME_LAT_FETCH_SHIFT |
      saturate(issue_, PROFILEME_LAT_ISSUE_MASK) << PROFILEME_LAT_ISSUE_SHIFT;
  registers_[PROFILEME_REG_ADDRESS] = address_;
  completed_ = true;
}

}  // namespace dcpi::ev5
