// The static schedulers (DCPI §6.1.3 M_i, §6.3 static stalls).
#include <gtest/gtest.h>

#include "analysis/calc/model/ev5_model.h"
#include "analysis/calc/model/qemu_icount_model.h"
#include "copy_loop_fixture.h"

namespace dcpi::calc {
namespace {

using testing::op;

std::vector<uint32_t> head_cycles(const BlockSchedule& schedule) {
  std::vector<uint32_t> m;
  for (const auto& insn : schedule.instructions) m.push_back(insn.head_cycles);
  return m;
}

bool has_stall(const ScheduledInstruction& insn, StallCause reason) {
  for (const StaticStall& s : insn.stalls)
    if (s.reason == reason) return true;
  return false;
}

TEST(Ev5Schedule, CopyLoopBestCaseIs8CyclesFor13InstructionsAsInFigure2) {
  const auto block = testing::copy_loop_block();
  const BlockSchedule schedule = Ev5Model().schedule_block(block);
  EXPECT_EQ(schedule.best_case_cycles, 8u);
  EXPECT_NEAR(schedule.best_case_cpi(), 0.62, 0.005);
  // Figure 7's M_i column (except 00981c: the figure prints 0, i.e. dual issue with 009818).
  EXPECT_EQ(head_cycles(schedule), (std::vector<uint32_t>{1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1}));
}

TEST(Ev5Schedule, CopyLoopAdjacentStoresAreSlottingHazardsAsInFigure2) {
  const BlockSchedule schedule = Ev5Model().schedule_block(testing::copy_loop_block());
  // Figure 2 marks "s" before the stq at 009834 and at 009838 …
  EXPECT_TRUE(has_stall(schedule.instructions[9], StallCause::kSlotting));
  EXPECT_TRUE(has_stall(schedule.instructions[10], StallCause::kSlotting));
  // … but not before 009830, which starts a new aligned fetch block.
  EXPECT_TRUE(schedule.instructions[8].stalls.empty());
}

TEST(Ev5Schedule, LoadUseWaitsTwoCyclesAndNamesTheLoad) {
  const std::vector<InstructionRecord> block = {
      op(0x2000, isa::Ev5Class::kIld, std::nullopt, 2, 5),  // ldq r5, 0(r2)
      op(0x2004, isa::Ev5Class::kIadd, 5, 1, 6),            // addq r5, r1, r6
  };
  const BlockSchedule s = Ev5Model().schedule_block(block);
  EXPECT_EQ(head_cycles(s), (std::vector<uint32_t>{1, 2}));
  ASSERT_FALSE(s.instructions[1].stalls.empty());
  const StaticStall& stall = s.instructions[1].stalls.back();
  EXPECT_EQ(stall.reason, StallCause::kDependency);
  EXPECT_EQ(stall.cycles, 1u);
  EXPECT_EQ(stall.culprit, 0u);
  EXPECT_EQ(stall.operand, OperandField::kRa);
}

TEST(Ev5Schedule, CompareFeedsBranchInTheSameCycle) {
  const std::vector<InstructionRecord> block = {
      op(0x2000, isa::Ev5Class::kIcmp, 1, 2, 3),                            // cmpult r1, r2, r3
      testing::branch(0x2004, ControlFlow::kConditionalBranch, 0x1000, 3),  // bne r3
  };
  EXPECT_EQ(Ev5Model().schedule_block(block).best_case_cycles, 1u);
}

TEST(Ev5Schedule, TheInstructionAfterACallPalStartsANewIssueGroup) {
  // callpal's loop (workloads/callpal.c): callsys, then two ldas that pair in
  // the model's truth once PAL returns, and a cmovne that waits for E0/E1.
  const std::vector<InstructionRecord> block = {
      op(0x2000, isa::Ev5Class::kCallPal, std::nullopt, std::nullopt, std::nullopt),
      op(0x2004, isa::Ev5Class::kIadd, std::nullopt, 31, 1),   // lda t0, -1
      op(0x2008, isa::Ev5Class::kIadd, std::nullopt, 10, 10),  // lda s1, 1(s1)
      op(0x200c, isa::Ev5Class::kIcmov, 19, 1, 0),             // cmovne a3, t0, v0
  };
  EXPECT_EQ(head_cycles(Ev5Model().schedule_block(block)), (std::vector<uint32_t>{1, 1, 0, 1}));
}

TEST(Ev5Schedule, BackToBackMultipliesWaitForTheNonPipelinedMultiplier) {
  const std::vector<InstructionRecord> block = {
      op(0x2000, isa::Ev5Class::kImulq, 1, 2, 3),  // mulq r1, r2, r3
      op(0x2004, isa::Ev5Class::kImulq, 4, 5, 6),  // mulq r4, r5, r6 (independent)
  };
  const BlockSchedule s = Ev5Model().schedule_block(block);
  EXPECT_EQ(s.instructions[1].issue_cycle, 8u);  // multiplier busy 8 cycles for mulq
  EXPECT_TRUE(has_stall(s.instructions[1], StallCause::kMultiplierBusy));
}

TEST(Ev5Schedule, DependentMultiplyWaitsForTheFullLatency) {
  const std::vector<InstructionRecord> block = {
      op(0x2000, isa::Ev5Class::kImull, 1, 2, 3),  // mull r1, r2, r3
      op(0x2004, isa::Ev5Class::kIadd, 3, 1, 4),   // addq r3, r1, r4
  };
  EXPECT_EQ(Ev5Model().schedule_block(block).instructions[1].issue_cycle, 8u);
}

TEST(Ev5Schedule, DivtKeepsTheDividerBusyFor22Cycles) {
  InstructionRecord first =
      op(0x2000, isa::Ev5Class::kFdivT, std::nullopt, std::nullopt, std::nullopt);
  first.source_a = SourceOperand{fp_register(1), OperandField::kRa};
  first.destination = fp_register(2);
  InstructionRecord second = first;
  second.address = 0x2004;
  second.destination = fp_register(3);
  const BlockSchedule s = Ev5Model().schedule_block(std::vector{first, second});
  EXPECT_EQ(s.instructions[1].issue_cycle, 22u);
  EXPECT_TRUE(has_stall(s.instructions[1], StallCause::kFpDividerBusy));
}

TEST(Ev5Schedule, ShiftsCannotDualIssueBecauseOnlyE0Shifts) {
  const std::vector<InstructionRecord> block = {
      op(0x2000, isa::Ev5Class::kShift, 1, 2, 3),
      op(0x2004, isa::Ev5Class::kShift, 4, 5, 6),
  };
  const BlockSchedule s = Ev5Model().schedule_block(block);
  EXPECT_EQ(s.best_case_cycles, 2u);
  EXPECT_TRUE(has_stall(s.instructions[1], StallCause::kSlotting));
}

TEST(Ev5Schedule, IntegerAndFloatingPointIssueTogether) {
  InstructionRecord fadd =
      op(0x2008, isa::Ev5Class::kFadd, std::nullopt, std::nullopt, std::nullopt);
  fadd.destination = fp_register(4);
  InstructionRecord fmul =
      op(0x200c, isa::Ev5Class::kFmul, std::nullopt, std::nullopt, std::nullopt);
  fmul.destination = fp_register(5);
  const std::vector<InstructionRecord> block = {op(0x2000, isa::Ev5Class::kIadd, 1, 2, 3),
                                                op(0x2004, isa::Ev5Class::kIlog, 4, 5, 6), fadd,
                                                fmul};
  EXPECT_EQ(Ev5Model().schedule_block(block).best_case_cycles, 1u);
}

TEST(QemuIcountSchedule, EveryInstructionTakesOneCycle) {
  const BlockSchedule s = QemuIcountModel().schedule_block(testing::copy_loop_block());
  EXPECT_EQ(s.best_case_cycles, 13u);
  EXPECT_DOUBLE_EQ(s.best_case_cpi(), 1.0);
  for (const auto& insn : s.instructions) {
    EXPECT_EQ(insn.head_cycles, 1u);
    EXPECT_TRUE(insn.stalls.empty());
  }
  EXPECT_FALSE(QemuIcountModel().has_dynamic_stalls());
  EXPECT_TRUE(Ev5Model().has_dynamic_stalls());
}

}  // namespace
}  // namespace dcpi::calc
