// ProfileMe's paired sampling on the model (profile_unit.h) and its truth,
// the wasted issue slots (issue_slots.h): seed 004 §4.2, §5.2.3.
#include "qemu/machine/plugins/ev5/profile_unit.h"

#include <gtest/gtest.h>

#include <vector>

#include "isa/ev5_unit_latency.h"
#include "qemu/machine/plugins/ev5/issue_slots.h"
#include "tests/unit/ev5/encode.h"

namespace dcpi::ev5 {
namespace {

using namespace testing;

constexpr uint64_t kPc = 0x120001000;  // user code: the record's PAL bit stays clear

uint64_t arm_word(uint64_t major, uint64_t minor) {
  return major | minor << PROFILEME_ARM_MINOR_SHIFT;
}

// Four independent adds: two integer pipes, so two groups of two (costs
// 1, 0, 1, 0), from one aligned fetch block.
std::vector<uint32_t> four_adds() {
  return {addq(1, 1, 2), addq(3, 3, 4), addq(5, 5, 6), addq(7, 7, 8)};
}

std::vector<uint32_t> costs(const BlockRecord& block) {
  std::vector<uint32_t> out;
  for (const auto& i : block.timing.instructions) out.push_back(i.cost);
  return out;
}

TEST(Ev5ProfileUnit, APairInOneGroupHasTheFirstsCyclesAsItsFetchLatency) {
  BlockRecord block = block_of(kPc, four_adds());
  BlockRecord next = block_of(kPc + 0x100, {addq(1, 1, 2)});
  ASSERT_EQ(costs(block), (std::vector<uint32_t>{1, 0, 1, 0}));
  ProfileUnit unit;
  unit.arm(arm_word(1, 1));  // the first fetched instruction, then the next
  unit.entered(block);
  EXPECT_EQ(unit.take_completed(), 0u) << "nothing completes before its block is left";
  unit.entered(next);
  EXPECT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_EQ(unit.read(PROFILEME_REG_PC), kPc);
  EXPECT_EQ(unit.read(PROFILEME_REG_SECOND + PROFILEME_REG_PC), kPc + 4);
  EXPECT_TRUE(unit.read(PROFILEME_REG_SECOND + PROFILEME_REG_EVENTS) & PROFILEME_BIT_RETIRED);
  // Fetched one cycle apart: the first took its issue cycle, the second
  // none (it issued with it): the overlap test's "same group".
  EXPECT_EQ(unit.read(PROFILEME_REG_PAIR_FETCH), 1u);
  EXPECT_EQ(unit.read(PROFILEME_REG_SECOND + PROFILEME_REG_LATENCY) >> PROFILEME_LAT_ISSUE_SHIFT,
            0u);
  EXPECT_EQ(unit.records_delivered(), 2u) << "one interrupt, two records";
}

// The second is the minor interval's fetch after the first, across blocks;
// the latency adds every cost and stall charged from the first's fetch to
// the second's, and the interrupt waits for the second's record.
TEST(Ev5ProfileUnit, APairAcrossBlocksCountsTheStallsBetweenAndWaitsForTheSecond) {
  BlockRecord a = block_of(kPc, {addq(1, 1, 2), addq(3, 3, 4), addq(5, 5, 6)});
  BlockRecord b = block_of(kPc + 0x40, {addq(1, 1, 2), addq(3, 3, 4), addq(5, 5, 6)});
  BlockRecord c = block_of(kPc + 0x80, {addq(1, 1, 2)});
  ProfileUnit unit;
  unit.arm(arm_word(2, 3));  // first: a[1]; second: 3 fetches on, b[1]
  unit.entered(a);
  unit.stalled(kPc + 8, StallCause::kDCacheMiss, 7);  // a[2], between the two
  unit.entered(b);
  EXPECT_EQ(unit.take_completed(), 0u) << "the second record is still in flight";
  unit.stalled(kPc + 0x44, StallCause::kDCacheMiss, 5);  // b[1]: the second's own, not between
  unit.entered(c);
  EXPECT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_EQ(unit.read(PROFILEME_REG_PC), kPc + 4);
  EXPECT_EQ(unit.read(PROFILEME_REG_SECOND + PROFILEME_REG_PC), kPc + 0x44);
  const auto& ta = a.timing.instructions;
  const uint64_t between = ta[1].cost + ta[2].cost + 7 + b.timing.instructions[0].cost;
  EXPECT_EQ(unit.read(PROFILEME_REG_PAIR_FETCH), between);
  EXPECT_EQ(unit.read(PROFILEME_REG_SECOND + PROFILEME_REG_LATENCY) & PROFILEME_LAT_STALL_MASK, 5u);
}

// A cut before the second ran aborts it and takes the cycles of what did
// not run out of the latency.
TEST(Ev5ProfileUnit, ACutBeforeTheSecondAbortsItAndUncountsWhatDidNotRun) {
  BlockRecord a = block_of(kPc, four_adds());
  BlockRecord b = block_of(kPc + 0x100, {addq(1, 1, 2)});
  ProfileUnit unit;
  unit.arm(arm_word(1, 3));  // a[0] and a[3]
  unit.entered(a);
  unit.cut(a, 2);  // a[2] and a[3] did not run
  EXPECT_EQ(unit.take_completed(), 0u) << "the first's record completes when its block is left";
  unit.entered(b);
  EXPECT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_TRUE(unit.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_RETIRED);
  EXPECT_FALSE(unit.read(PROFILEME_REG_SECOND + PROFILEME_REG_EVENTS) & PROFILEME_BIT_RETIRED);
  EXPECT_EQ(unit.read(PROFILEME_REG_PAIR_FETCH), 1u);  // a[0] and a[1] only
}

// The wrong path a mispredict fetched counts before the block the model
// tells it with (it was fetched first) and a tag there is aborted at once.
TEST(Ev5ProfileUnit, AWrongPathFetchIsCountedFirstAndRecordedAborted) {
  constexpr uint64_t kWrong = kPc + 0x200;
  EXPECT_EQ(wrong_path_length(kWrong), 8u);       // its fetch block and the next
  EXPECT_EQ(wrong_path_length(kWrong + 12), 5u);  // the last of its block, and the next four
  BlockRecord a = block_of(kPc, four_adds());
  ProfileUnit unit;
  unit.arm(2);
  unit.entered(a);
  unit.squashed(kWrong, 8);
  EXPECT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_EQ(unit.read(PROFILEME_REG_PC), kWrong + 4);
  const uint64_t bits = unit.read(PROFILEME_REG_EVENTS);
  EXPECT_FALSE(bits & PROFILEME_BIT_RETIRED);
  EXPECT_FALSE(bits & PROFILEME_BIT_MISPREDICT)
      << "the bit is for retired ones a mispredict led to";
  EXPECT_EQ(unit.read(PROFILEME_REG_LATENCY), 0u) << "it never reached the issue stage";

  unit.arm(10);  // past the wrong path's 8: the second of the block after it
  unit.entered(a);
  unit.squashed(kWrong, 8);
  unit.entered(a);
  EXPECT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_EQ(unit.read(PROFILEME_REG_PC), kPc + 4);
  EXPECT_TRUE(unit.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_RETIRED);
}

uint64_t field2(uint64_t word, uint32_t shift, uint64_t mask) { return (word >> shift) & mask; }

// Register 9 (issue 27 item 1): a load's issue -> data is the model's
// data return, an operate's issue -> completion its unit latency (an addq
// 1, a mulq 12: isa/ev5.h), the pair's second in register 10; the trap bit.
TEST(Ev5ProfileUnit, TheSecondLatencyRegisterHoldsTheLoadsDataAndTheUnitLatency) {
  BlockRecord a = block_of(kPc, {ldq(1, 2), addq(3, 3, 4), mulq(5, 5, 6)});
  BlockRecord next = block_of(kPc + 0x40, {addq(1, 1, 2)});
  ProfileUnit unit;
  unit.arm(arm_word(1, 2));  // first: the ldq; second: the mulq
  unit.entered(a);
  unit.load_returned(kPc, 37);
  unit.trapped(kPc, false);
  unit.entered(next);
  ASSERT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  const uint64_t first = unit.read(PROFILEME_REG_LATENCY2);
  EXPECT_EQ(field2(first, PROFILEME_LAT2_LOAD_SHIFT, PROFILEME_LAT2_LOAD_MASK), 37u);
  EXPECT_EQ(field2(first, PROFILEME_LAT2_COMPLETE_SHIFT, PROFILEME_LAT2_COMPLETE_MASK), 37u);
  EXPECT_TRUE(unit.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_TRAP);
  EXPECT_TRUE(unit.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_LOAD) << "the driver reads 9";
  EXPECT_FALSE(unit.read(PROFILEME_REG_SECOND + PROFILEME_REG_EVENTS) & PROFILEME_BIT_LOAD);
  const uint64_t second = unit.read(PROFILEME_REG_LATENCY2_SECOND);
  EXPECT_EQ(field2(second, PROFILEME_LAT2_LOAD_SHIFT, PROFILEME_LAT2_LOAD_MASK), 0u);
  EXPECT_EQ(field2(second, PROFILEME_LAT2_COMPLETE_SHIFT, PROFILEME_LAT2_COMPLETE_MASK), 12u);
  EXPECT_FALSE(unit.read(PROFILEME_REG_SECOND + PROFILEME_REG_EVENTS) & PROFILEME_BIT_TRAP);
}

// An instruction an exit cut before it ran completed nothing.
TEST(Ev5ProfileUnit, AnAbortedOperateHasNoCompletionLatency) {
  BlockRecord a = block_of(kPc, {addq(1, 1, 2), mulq(5, 5, 6)});
  ProfileUnit unit;
  unit.arm(2);
  unit.entered(a);
  unit.cut(a, 1);
  ASSERT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_FALSE(unit.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_RETIRED);
  EXPECT_EQ(unit.read(PROFILEME_REG_LATENCY2), 0u);
}

// An instruction that trapped without an access (the illegal-opcode or
// FP-disabled vector: QEMU raised the trap in its place) did not retire and
// completed nothing; one that trapped after its access (a memory fault)
// ran, and keeps the retired bit.
TEST(Ev5ProfileUnit, AnInstructionTrapIsNotARetirementAMemoryTrapIs) {
  BlockRecord a = block_of(kPc, {addq(1, 1, 2), mulq(5, 5, 6)});
  BlockRecord vector = block_of(kPc + 0x100, {addq(1, 1, 2)});
  ProfileUnit unit;
  unit.arm(2);  // the mulq, the block's last: where QEMU raised OPCDEC
  unit.entered(a);
  unit.trapped(kPc + 4, false);
  unit.entered(vector);
  ASSERT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_TRUE(unit.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_TRAP);
  EXPECT_FALSE(unit.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_RETIRED);
  EXPECT_EQ(unit.read(PROFILEME_REG_LATENCY2), 0u) << "no completion latency";

  BlockRecord b = block_of(kPc + 0x200, {stq(1, 2)});
  ProfileUnit memory_trap;
  memory_trap.arm(1);
  memory_trap.entered(b);
  memory_trap.accessed(kPc + 0x200, 0);  // a store to page 0: the memory-fault vector
  memory_trap.trapped(kPc + 0x200, false);
  memory_trap.entered(vector);
  ASSERT_EQ(memory_trap.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_TRUE(memory_trap.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_TRAP);
  EXPECT_TRUE(memory_trap.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_RETIRED);
}

// An arithmetic trap (VcpuModel::raised: QEMU raised it from the
// instruction's helper in the middle of its block) is taken after the
// instruction wrote its result: its record retires and traps; an
// instruction after it in the block was fetched but cut: aborted, no trap.
TEST(Ev5ProfileUnit, AnArithmeticTrapRetiresItsInstructionAndAbortsTheRest) {
  BlockRecord a = block_of(kPc, {addq(1, 1, 2), addq(3, 3, 4)});
  BlockRecord vector = block_of(kPc + 0x100, {addq(1, 1, 2)});
  for (uint64_t tagged : {1, 2}) {  // the trapping addq, then the one after it
    ProfileUnit unit;
    unit.arm(tagged);
    unit.entered(a);
    unit.trapped(kPc, true);
    unit.cut(a, 1);
    unit.entered(vector);
    ASSERT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME}) << tagged;
    const uint64_t bits = unit.read(PROFILEME_REG_EVENTS);
    EXPECT_EQ(unit.read(PROFILEME_REG_PC), kPc + 4 * (tagged - 1));
    EXPECT_EQ(static_cast<bool>(bits & PROFILEME_BIT_TRAP), tagged == 1);
    EXPECT_EQ(static_cast<bool>(bits & PROFILEME_BIT_RETIRED), tagged == 1);
  }
}

// A load the model replay-trapped (load_after_store's kLoadReplay at its
// PC) has the replay bit; the record of another instruction does not.
TEST(Ev5ProfileUnit, AReplayTrappedLoadHasTheReplayBit) {
  BlockRecord a = block_of(kPc, {addq(1, 1, 2), addq(3, 3, 4)});
  BlockRecord next = block_of(kPc + 0x100, {addq(1, 1, 2)});
  ProfileUnit unit;
  unit.arm(2);  // a[1]
  unit.entered(a);
  unit.event(kPc + 4, ModelEvent::kLoadReplay);
  unit.entered(next);
  ASSERT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_TRUE(unit.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_REPLAY);
  unit.arm(1);  // next[0]: nothing replayed there
  unit.entered(a);
  unit.event(kPc + 4, ModelEvent::kLoadReplay);
  unit.entered(next);
  ASSERT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_EQ(unit.read(PROFILEME_REG_PC), kPc + 0x100);
  EXPECT_FALSE(unit.read(PROFILEME_REG_EVENTS) & PROFILEME_BIT_REPLAY);
}

// Turned off (the driver's stop), the unit drops the instruction it is
// tagging: no record completes, and none interrupts, after the stop (the
// driver flushes right after it: one would be lost, and the truth's
// profileme_records would count it). Armed again, it records.
TEST(Ev5ProfileUnit, TurnedOffItDropsTheRecordInFlight) {
  BlockRecord a = block_of(kPc, {addq(1, 1, 2), addq(3, 3, 4)});
  BlockRecord next = block_of(kPc + 0x100, {addq(1, 1, 2)});
  ProfileUnit unit;
  unit.arm(1);
  unit.entered(a);
  unit.accessed(kPc + 4, 0);  // a callback: the block is counted, a[0] tagged
  unit.arm(0);
  unit.entered(next);
  EXPECT_EQ(unit.take_completed(), 0u);
  EXPECT_EQ(unit.records_delivered(), 0u);
  unit.accessed(kPc + 0x100, 0);  // `next` counted while off
  unit.arm(1);
  unit.entered(a);
  unit.entered(next);
  EXPECT_EQ(unit.take_completed(), uint64_t{EV5_OVERFLOW_PROFILEME});
  EXPECT_EQ(unit.read(PROFILEME_REG_PC), kPc);
  EXPECT_EQ(unit.records_delivered(), 1u);
}

// The host's issue -> completion of what the driver does not sum: the
// unit latency the model puts in register 9 (block_timing.cpp), none for a load.
TEST(Ev5ProfileMe, TheHostKnowsTheUnitLatencyTheModelRecords) {
  for (const uint32_t word : {addq(1, 1, 2), mulq(5, 5, 6)}) {
    const BlockRecord block = block_of(kPc, {word});
    EXPECT_EQ(isa::ev5_unit_latency(word), block.timing.instructions[0].latency);
  }
  EXPECT_EQ(isa::ev5_unit_latency(mulq(5, 5, 6)), 12u);
  EXPECT_EQ(isa::ev5_unit_latency(ldq(1, 2)), std::nullopt);
}

TEST(Ev5ProfileMe, LatencyBucketsAreLog2WithAnOpenLast) {
  EXPECT_EQ(profileme_latency_bucket(1), 0u);
  EXPECT_EQ(profileme_latency_bucket(2), 1u);
  EXPECT_EQ(profileme_latency_bucket(3), 1u);
  EXPECT_EQ(profileme_latency_bucket(64), 6u);
  EXPECT_EQ(profileme_latency_bucket(127), 6u);
  EXPECT_EQ(profileme_latency_bucket(128), 7u);
  EXPECT_EQ(profileme_latency_bucket(100000), 7u);
}

// The truth's stall distribution: one execution's stalls at its PC summed
// into one bucket (a DTB refill and a write-buffer wait: 20 + 5 = 25, in
// [16, 32)), the next execution apart; the loads' data latencies summed.
TEST(Ev5LatencyTruth, OneExecutionsStallsFallInOneBucket) {
  LatencyTruth truth;
  truth.stall(kPc, 20);
  truth.stall(kPc, 5);
  truth.end_execution();
  truth.stall(kPc, 3);
  truth.stall(kPc + 4, 1);
  truth.end_execution();
  EXPECT_EQ((truth.stall_buckets[{kPc, 4}]), 1u);
  EXPECT_EQ((truth.stall_buckets[{kPc, 1}]), 1u);
  EXPECT_EQ((truth.stall_buckets[{kPc + 4, 0}]), 1u);
  truth.load(kPc, 2);
  truth.load(kPc, 90);
  EXPECT_EQ(truth.load_cycles[kPc], 92u);
  EXPECT_EQ((truth.load_buckets[{kPc, 1}]), 1u);
  EXPECT_EQ((truth.load_buckets[{kPc, 6}]), 1u);
}

TEST(Ev5IssueSlots, EachGroupMemberWastesWidthTimesItsCyclesLessTheGroup) {
  BlockRecord a = block_of(kPc, four_adds());
  BlockRecord b = block_of(kPc + 0x100, {addq(1, 1, 2)});
  IssueSlots slots;
  slots.entered(a);
  slots.stalled(kPc + 8, StallCause::kDCacheMiss, 5);  // the second group's leader: 6 cycles
  slots.entered(b);  // a finishes; its last group stays open until a leader
  slots.entered(a);  // b's add leads a group of one, and closes a's
  const auto& wasted = slots.wasted();
  auto at = [&](uint64_t pc) {
    const auto found = wasted.find(truth_key(pc, 0));
    return found == wasted.end() ? uint64_t{0} : found->second;
  };
  EXPECT_EQ(at(kPc), 4u * 1 - 2);
  EXPECT_EQ(at(kPc + 4), 4u - 2);
  EXPECT_EQ(at(kPc + 8), 4u * 6 - 2);
  EXPECT_EQ(at(kPc + 12), 4u - 2);
  EXPECT_EQ(at(kPc + 0x100), 0u) << "its group is still open";
}

}  // namespace
}  // namespace dcpi::ev5
