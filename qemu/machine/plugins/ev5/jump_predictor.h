// The 21164's jump-target prediction (issue 26: "PC mispredicts", counter 2
// SEL2 0x2). The Alpha Architecture Handbook's prediction model (§4.3.3
// Table 4-4, Appendix A.2.2) as the 21164 implements it: a 12-entry
// subroutine return stack (21164 HRM §2.1.1.4, branch elements: the size
// the literature gives; the manual's text was not at hand); BSR, JSR
// and JSR_COROUTINE push the updated PC; RET and JSR_COROUTINE pop their
// predicted target; JMP and JSR predict target<15:0> = (updated PC +
// 4 * hint<13:0>)<15:0>, the upper bits the updated PC's. BR and BSR
// targets are in the instruction: never mispredicted. A wrong target is a
// PC mispredict (docs/ev5-machine.md "Jump-target prediction").
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace dcpi::ev5 {

enum class JumpKind : uint8_t {
  kNone,       // not a jump or a subroutine branch
  kBsr,        // direct call: pushes, target known
  kJsr,        // indirect call: hint-predicted target, pushes
  kJmp,        // indirect jump: hint-predicted target
  kRet,        // pops its predicted target
  kCoroutine,  // JSR_COROUTINE: pops its predicted target, pushes
};

class JumpPredictor {
 public:
  static constexpr std::size_t kStackEntries = 12;

  // The jump of kind `kind` at `pc` (its hint-predicted target
  // `hint_target` for JMP and JSR) went to `target`: updates the return
  // stack and returns true when the target was mispredicted.
  bool mispredicted(JumpKind kind, uint64_t pc, uint64_t hint_target, uint64_t target);

  // JMP/JSR's predicted target from the instruction's hint displacement
  // (a signed byte offset, 4 * hint<13:0>): only its low 16 bits are the
  // hint's (Table 4-4), the rest the updated PC's.
  static uint64_t hint_target(uint64_t pc, int32_t hint_displacement) {
    const uint64_t updated = pc + 4;
    return (updated & ~uint64_t{0xffff}) |
           ((updated + static_cast<int64_t>(hint_displacement)) & 0xffff);
  }

 private:
  // A ring: a push beyond 12 overwrites the oldest entry, a pop of an
  // emptied stack reads whatever the ring held there (a stale prediction,
  // as a hardware stack without a valid bit per entry gives).
  void push(uint64_t address) {
    top_ = (top_ + 1) % kStackEntries;
    stack_[top_] = address;
  }
  uint64_t pop() {
    const uint64_t address = stack_[top_];
    top_ = (top_ + kStackEntries - 1) % kStackEntries;
    return address;
  }
  std::array<uint64_t, kStackEntries> stack_{};
  std::size_t top_ = 0;
};

}  // namespace dcpi::ev5
