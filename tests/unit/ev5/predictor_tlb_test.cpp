#include <gtest/gtest.h>

#include "qemu/machine/plugins/ev5/branch_predictor.h"
#include "qemu/machine/plugins/ev5/tlb.h"

namespace dcpi::ev5 {
namespace {

TEST(Ev5BranchPredictor, TwoBitCountersStartFromTheDisplacementSign) {
  BranchPredictor predictor;
  // A loop branch (backward): predicted taken from the start.
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(predictor.mispredicted(0x1010, true, true));
  EXPECT_TRUE(predictor.mispredicted(0x1010, true, false));  // the loop exit
  EXPECT_FALSE(predictor.mispredicted(0x1010, true, true));  // one miss does not flip it
  // A forward branch starts predicted not taken.
  EXPECT_TRUE(predictor.mispredicted(0x2000, false, true));
  EXPECT_FALSE(predictor.mispredicted(0x2000, false, true));  // weakly taken now
}

TEST(Ev5BranchPredictor, TwoThousandFortyEightEntriesIndexedByPc) {
  BranchPredictor predictor;
  predictor.mispredicted(0x1000, false, true);
  predictor.mispredicted(0x1000, false, true);  // strongly taken
  // 0x1000 + 8 KB shares the entry: its line replaced the history.
  EXPECT_TRUE(predictor.mispredicted(0x1000 + 8192, false, true));
  EXPECT_FALSE(predictor.mispredicted(0x1004, false, false));
}

TEST(Ev5Tlb, RoundRobinOverItsEntries) {
  Tlb dtb(64, 8192);
  for (uint64_t page = 0; page < 64; ++page) EXPECT_FALSE(dtb.access(page * 8192));
  for (uint64_t page = 0; page < 64; ++page) EXPECT_TRUE(dtb.access(page * 8192 + 100));
  EXPECT_FALSE(dtb.access(64 * 8192));  // replaces page 0
  EXPECT_FALSE(dtb.access(0));
  EXPECT_TRUE(dtb.access(2 * 8192));
}

TEST(Ev5Tlb, KsegBypassesTheTranslationBuffers) {
  EXPECT_TRUE(bypasses_tlb(0xfffffc0000310000ull));
  EXPECT_FALSE(bypasses_tlb(0x120000000ull));
  EXPECT_FALSE(bypasses_tlb(0xfffffe0000000000ull));  // seg1, mapped
}

}  // namespace
}  // namespace dcpi::ev5
