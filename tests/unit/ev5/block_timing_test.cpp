#include "qemu/machine/plugins/ev5/block_timing.h"

#include <gtest/gtest.h>

#include <vector>

#include "qemu/machine/plugins/ev5/block_record.h"
#include "tests/unit/ev5/encode.h"

namespace dcpi::ev5 {
namespace {

using namespace testing;

TEST(Ev5BlockTiming, ALoadsReaderWaitsTwoCyclesForItsProducer) {
  const std::vector<uint32_t> words = {ldq(1, 16), addq(1, 1, 2)};
  const BlockTiming block = time_block(0x1000, words);
  ASSERT_EQ(block.instructions.size(), 2u);
  const InstructionTiming& load = block.instructions[0];
  const InstructionTiming& add = block.instructions[1];
  EXPECT_EQ(load.cost, 1u);  // a block's head costs one cycle
  EXPECT_TRUE(load.load);
  EXPECT_EQ(load.destination, 1);
  EXPECT_EQ(add.cost, 2u);
  EXPECT_EQ(add.charge, 1);
  EXPECT_EQ(add.offset, 2u);
  ASSERT_EQ(add.stall_count, 1u);
  EXPECT_EQ(add.stalls[0].cause, StallCause::kDependency);
  EXPECT_EQ(add.stalls[0].cycles, 1u);
  EXPECT_EQ(add.stalls[0].culprit, 0x1000u);
  EXPECT_TRUE(add.reads_loaded);
  EXPECT_EQ(block.static_cycles, 3u);
  EXPECT_EQ(block.live_in, 1ull << 16);  // r1 is written inside the block
}

TEST(Ev5BlockTiming, IndependentInstructionsIssueTogether) {
  const std::vector<uint32_t> words = {addq(1, 2, 3), addq(4, 5, 6), stq(7, 16), stq(8, 16, 8)};
  const BlockTiming block = time_block(0x2000, words);
  EXPECT_EQ(block.instructions[1].cost, 0u);  // dual issue
  // The second of the pair gives its own unit back: a deadline is judged at
  // it with its time (none) known.
  EXPECT_EQ(block.instructions[0].charge, 0);
  EXPECT_EQ(block.instructions[1].charge, -1);
  EXPECT_EQ(block.instructions[2].charge, 0);
  EXPECT_EQ(block.instructions[2].cost, 1u);         // no third integer pipe
  EXPECT_EQ(block.instructions[3].cost, 1u);         // two stores never issue together
  EXPECT_EQ(block.instructions[3].stall_count, 0u);  // a lost slot, not a cycle
  // The first reader of r8, which a load before the block may still fill,
  // is where a miss would make it wait (not the block's head).
  EXPECT_TRUE(block.instructions[3].reads_loaded);
  EXPECT_TRUE(block.instructions[2].reads_loaded);  // r7 and r16, first read here
  EXPECT_TRUE(block.instructions[3].store);
  // Issue groups (counter 1's issue-width cycles): the pair, then one and one.
  EXPECT_EQ(block.instructions[0].issue_width, 2u);
  EXPECT_EQ(block.instructions[1].issue_width, 0u);
  EXPECT_EQ(block.instructions[2].issue_width, 1u);
  EXPECT_EQ(block.instructions[3].issue_width, 1u);
}

TEST(Ev5BlockTiming, ConditionalBranchTargetAndMultiplierSpan) {
  const std::vector<uint32_t> words = {mulq(1, 2, 3), mulq(3, 4, 5), bne(5, -3)};
  const BlockTiming block = time_block(0x3000, words);
  EXPECT_TRUE(block.ends_in_conditional_branch);
  EXPECT_EQ(block.branch_target, 0x3000u);
  EXPECT_EQ(block.fall_through(), 0x300cu);
  EXPECT_TRUE(block.instructions[0].first_multiply);
  EXPECT_FALSE(block.instructions[1].first_multiply);
  // mulq -> mulq: 12 + 1 cycles; the second keeps the multiplier 8 more.
  EXPECT_EQ(block.instructions[1].offset, 13u);
  EXPECT_EQ(block.multiplier_span, 21u);
}

TEST(Ev5BlockTable, ABlockCutShortIsTimedAsPartOfTheWholeBlock) {
  BlockTable table;
  // ldq+lda | lda+cmpeq | stq+beq: three issue groups, the loop of copy.
  const std::vector<uint32_t> words = {ldq(4, 1),     addq(1, 2, 1), addq(2, 3, 2),
                                       addq(1, 5, 3), stq(4, 2, -8), bne(3, -6)};
  BlockRecord& whole = table.find_or_add(0x1000, words);
  EXPECT_TRUE(whole.timing.ends_in_transfer);
  EXPECT_EQ(whole.timing.instructions[1].charge, -1);  // issues with the load
  // icount cut the block after the load: the load keeps its time.
  BlockRecord& cut = table.find_or_add(0x1000, std::span(words).first(1));
  ASSERT_EQ(cut.timing.instructions.size(), 1u);
  EXPECT_EQ(cut.timing.instructions[0].charge, 0);
  EXPECT_FALSE(cut.timing.ends_in_conditional_branch);
  // What is left runs cut short too: the second of the pair still takes no time.
  BlockRecord& rest = table.find_or_add(0x1004, std::span(words).subspan(1, 1));
  EXPECT_EQ(rest.timing.instructions[0].cost, 0u);
  EXPECT_EQ(rest.timing.instructions[0].charge, -1);
  EXPECT_EQ(&table.find_or_add(0x1000, words), &whole);
  // A complete block starting there is timed on its own (a block head).
  BlockRecord& own = table.find_or_add(0x1004, std::span(words).subspan(1));
  EXPECT_EQ(own.timing.instructions[0].cost, 1u);
  // Other code at the same address is timed on its own.
  const std::vector<uint32_t> other = {addq(1, 1, 1)};
  EXPECT_EQ(table.find_or_add(0x1000, other).timing.instructions[0].charge, 0);
}

// A slice that ends where the whole block ends keeps its last instruction's
// jump prediction: a JSR cut short by a deadline still pushes the return
// stack, so the callee's RET is not mispredicted for it.
TEST(Ev5BlockTable, ASliceEndingAtTheBlocksJsrKeepsItsJumpPrediction) {
  BlockTable table;
  const std::vector<uint32_t> words = {addq(1, 2, 3), addq(4, 5, 6), jsr(26, 27, 0x10)};
  BlockRecord& whole = table.find_or_add(0x1000, words);
  ASSERT_EQ(whole.timing.jump, JumpKind::kJsr);
  BlockRecord& tail = table.find_or_add(0x1004, std::span(words).subspan(1));
  EXPECT_EQ(tail.timing.jump, JumpKind::kJsr);
  EXPECT_EQ(tail.timing.hint_target, whole.timing.hint_target);
  BlockRecord& head = table.find_or_add(0x1000, std::span(words).first(2));
  EXPECT_EQ(head.timing.jump, JumpKind::kNone);
}

}  // namespace
}  // namespace dcpi::ev5
