// The 21164's conditional branch prediction: a 2-bit saturating counter per
// instruction of the 8 KB I-cache (2048 of them, indexed by PC<12:2>), HRM
// §2.2.4. The history lives in the I-cache, so a counter is (re)initialised
// when its line is filled, from the sign of the displacement (backward:
// taken); the model does that on a counter's first use by a PC.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace dcpi::ev5 {

class BranchPredictor {
 public:
  // Predicts the branch at `pc` (backward: its target is below it), then
  // trains on the outcome. Returns true when the prediction was wrong.
  bool mispredicted(uint64_t pc, bool backward, bool taken);

 private:
  static constexpr std::size_t kEntries = 2048;
  // An entry's PC bits that its index already holds carry its counter
  // instead: the PC that last used the entry and the counter in one word,
  // one host cache line per prediction, not two (issue 31).
  static constexpr uint64_t kIndexBits = (kEntries - 1) << 2;
  static constexpr int kCounterShift = 2;
  // The PC that last used the entry, without kIndexBits, | the counter
  // (0: never used; else 1 + 2-bit value) << kCounterShift.
  std::array<uint64_t, kEntries> entries_{};
};

}  // namespace dcpi::ev5
