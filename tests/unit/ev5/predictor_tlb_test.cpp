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

// An entry keeps the whole PC that used it last (its index bits carry the
// counter, issue 31): a PC far above that shares the index, a kernel one,
// is another branch.
TEST(Ev5BranchPredictor, AnEntryTellsPcsApartAboveItsIndex) {
  BranchPredictor predictor;
  const uint64_t kernel = 0xfffffc0000001000ull;
  predictor.mispredicted(kernel, false, true);
  EXPECT_FALSE(predictor.mispredicted(kernel, false, true));  // trained: taken
  EXPECT_TRUE(predictor.mispredicted(0x1000, false, true));   // the same entry, anew
  EXPECT_TRUE(predictor.mispredicted(kernel, false, true));   // and back: anew again
  EXPECT_FALSE(predictor.mispredicted(kernel, false, true));
}

TEST(Ev5Tlb, RoundRobinOverItsEntries) {
  Tlb dtb(64, 8192);
  for (uint64_t page = 0; page < 64; ++page) EXPECT_FALSE(dtb.access(page * 8192));
  for (uint64_t page = 0; page < 64; ++page) EXPECT_TRUE(dtb.access(page * 8192 + 100));
  EXPECT_FALSE(dtb.access(64 * 8192));  // replaces page 0
  EXPECT_FALSE(dtb.access(0));
  EXPECT_TRUE(dtb.access(2 * 8192));
}

// A copy loop's two streams alternate between two pages: each access hits
// one of the last two (the inline path) and changes nothing else.
TEST(Ev5Tlb, TwoAlternatingPagesHitAndKeepTheirEntries) {
  Tlb dtb(64, 8192);
  EXPECT_FALSE(dtb.access(0x200000000));
  EXPECT_FALSE(dtb.access(0x300000000));
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(dtb.access(0x200000000 + 8 * i));
    EXPECT_TRUE(dtb.access(0x300000000 + 8 * i));
  }
  EXPECT_FALSE(dtb.access(0x400000000));  // a third page: a miss, installed
  EXPECT_TRUE(dtb.access(0x200000000));   // the first two still held
  EXPECT_TRUE(dtb.access(0x300000000));
  EXPECT_TRUE(dtb.access(0x400000000));
}

TEST(Ev5Tlb, KsegBypassesTheTranslationBuffers) {
  EXPECT_TRUE(bypasses_tlb(0xfffffc0000310000ull));
  EXPECT_FALSE(bypasses_tlb(0x120000000ull));
  EXPECT_FALSE(bypasses_tlb(0xfffffe0000000000ull));  // seg1, mapped
}

}  // namespace
}  // namespace dcpi::ev5
