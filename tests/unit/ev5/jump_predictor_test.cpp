// The 21164's jump-target prediction (jump_predictor.h): the 12-entry
// return stack and the JMP/JSR hints of the Alpha Architecture Handbook's
// Table 4-4.
#include "qemu/machine/plugins/ev5/jump_predictor.h"

#include <gtest/gtest.h>

namespace dcpi::ev5 {
namespace {

constexpr uint64_t kNoHint = 0;

TEST(Ev5JumpPredictor, ReturnsPopWhatCallsPushed) {
  JumpPredictor p;
  EXPECT_FALSE(p.mispredicted(JumpKind::kBsr, 0x1000, kNoHint, 0x5000));
  EXPECT_FALSE(p.mispredicted(JumpKind::kBsr, 0x5010, kNoHint, 0x6000));
  EXPECT_FALSE(p.mispredicted(JumpKind::kRet, 0x6020, kNoHint, 0x5014));
  EXPECT_FALSE(p.mispredicted(JumpKind::kRet, 0x5030, kNoHint, 0x1004));
  // A return somewhere else than the call's next instruction: mispredicted.
  EXPECT_FALSE(p.mispredicted(JumpKind::kBsr, 0x1000, kNoHint, 0x5000));
  EXPECT_TRUE(p.mispredicted(JumpKind::kRet, 0x5030, kNoHint, 0x2000));
}

TEST(Ev5JumpPredictor, TwelveEntriesThenTheOldestAreOverwritten) {
  // A recursion 14 deep: the 13th and 14th calls overwrite the two oldest
  // entries, so the last two of the 14 returns (to the first two callers)
  // pop stale addresses.
  JumpPredictor p;
  constexpr int kDepth = 14;
  for (int i = 0; i < kDepth; ++i) p.mispredicted(JumpKind::kBsr, 0x1000 + 0x10 * i, kNoHint, 0);
  int wrong = 0;
  for (int i = kDepth - 1; i >= 0; --i)
    wrong += p.mispredicted(JumpKind::kRet, 0x9000, kNoHint, 0x1000 + 0x10 * i + 4);
  EXPECT_EQ(wrong, kDepth - static_cast<int>(JumpPredictor::kStackEntries));
}

TEST(Ev5JumpPredictor, JmpAndJsrPredictTheLow16BitsTheirHintGives) {
  const uint64_t pc = 0x120004000;
  // hint = 0x10 instructions: target<15:0> = (pc + 4 + 0x40)<15:0>.
  const uint64_t hinted = JumpPredictor::hint_target(pc, 0x40);
  EXPECT_EQ(hinted, pc + 4 + 0x40);
  JumpPredictor p;
  EXPECT_FALSE(p.mispredicted(JumpKind::kJmp, pc, hinted, pc + 4 + 0x40));
  EXPECT_TRUE(p.mispredicted(JumpKind::kJmp, pc, hinted, pc + 4 + 0x80));
  // The same low 16 bits in another 64 KB region: the upper bits come from
  // the PC, so the prediction is wrong.
  EXPECT_TRUE(p.mispredicted(JumpKind::kJmp, pc, hinted, pc + 4 + 0x40 + 0x10000));
  // A JSR pushes whether or not its target was right.
  EXPECT_TRUE(p.mispredicted(JumpKind::kJsr, pc, hinted, 0x120100000));
  EXPECT_FALSE(p.mispredicted(JumpKind::kRet, 0x120100010, kNoHint, pc + 4));
  // A hint that wraps the low 16 bits keeps the PC's upper bits.
  EXPECT_EQ(JumpPredictor::hint_target(0x12000fff8, 0x10), 0x120000000u + 0x000c);
}

TEST(Ev5JumpPredictor, ACoroutinePopsThenPushes) {
  JumpPredictor p;
  p.mispredicted(JumpKind::kBsr, 0x1000, kNoHint, 0x2000);  // pushes 0x1004
  // JSR_COROUTINE at 0x2010 goes back to 0x1004 (predicted) and pushes 0x2014.
  EXPECT_FALSE(p.mispredicted(JumpKind::kCoroutine, 0x2010, kNoHint, 0x1004));
  EXPECT_FALSE(p.mispredicted(JumpKind::kCoroutine, 0x1008, kNoHint, 0x2014));
}

}  // namespace
}  // namespace dcpi::ev5
