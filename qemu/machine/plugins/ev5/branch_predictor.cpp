#include "qemu/machine/plugins/ev5/branch_predictor.h"

namespace dcpi::ev5 {

bool BranchPredictor::mispredicted(uint64_t pc, bool backward, bool taken) {
  static_assert(((uint64_t{7} << kCounterShift) & ~kIndexBits) == 0, "the counter fits");
  uint64_t& entry = entries_[(pc >> 2) & (kEntries - 1)];
  const uint64_t owner = pc & ~kIndexBits;
  auto counter = static_cast<uint8_t>((entry & kIndexBits) >> kCounterShift);
  // A new I-cache line brings a static prediction (backward taken); a line
  // refilled for another PC loses the old history the same way.
  if (counter == 0 || (entry & ~kIndexBits) != owner) counter = backward ? 1 + 2 : 1 + 1;
  const uint8_t value = counter - 1;
  const bool predicted_taken = value >= 2;
  const uint8_t next = taken ? (value < 3 ? value + 1 : 3) : (value > 0 ? value - 1 : 0);
  entry = owner | (uint64_t{1} + next) << kCounterShift;
  return predicted_taken != taken;
}

}  // namespace dcpi::ev5
