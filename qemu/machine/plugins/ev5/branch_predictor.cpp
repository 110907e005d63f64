#include "qemu/machine/plugins/ev5/branch_predictor.h"

namespace dcpi::ev5 {

bool BranchPredictor::mispredicted(uint64_t pc, bool backward, bool taken) {
  const std::size_t index = (pc >> 2) & (kEntries - 1);
  uint8_t& counter = counters_[index];
  // A new I-cache line brings a static prediction (backward taken); a line
  // refilled for another PC loses the old history the same way.
  if (counter == 0 || owner_[index] != pc) counter = backward ? 1 + 2 : 1 + 1;
  owner_[index] = pc;
  const uint8_t value = counter - 1;
  const bool predicted_taken = value >= 2;
  const uint8_t next = taken ? (value < 3 ? value + 1 : 3) : (value > 0 ? value - 1 : 0);
  counter = static_cast<uint8_t>(1 + next);
  return predicted_taken != taken;
}

}  // namespace dcpi::ev5
