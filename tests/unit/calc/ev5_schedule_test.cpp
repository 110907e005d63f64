// The static schedulers (DCPI §6.1.3 M_i, §6.3 static stalls).
#include <gtest/gtest.h>

#include <span>

#include "analysis/calc/model/ev5_model.h"
#include "analysis/calc/model/qemu_icount_model.h"
#include "copy_loop_fixture.h"
#include "isa/ev5_slotting.h"

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

// The model keeps one scheduler per thread and resets it for each block
// (issue 31): a block after one that multiplied, divided and wrote many
// registers is scheduled as by a new scheduler.
TEST(Ev5Schedule, AResetSchedulerSchedulesAsANewOne) {
  const std::vector<InstructionRecord> busy = {op(0x2000, isa::Ev5Class::kImulq, 1, 2, 3),
                                               op(0x2004, isa::Ev5Class::kImulq, 4, 5, 6),
                                               op(0x2008, isa::Ev5Class::kIld, std::nullopt, 30, 7),
                                               op(0x200c, isa::Ev5Class::kIadd, 7, 3, 8)};
  const auto copy_loop = testing::copy_loop_block();
  auto issues = [](std::span<const InstructionRecord> block) {
    isa::Ev5BlockScheduler fresh;
    std::vector<uint32_t> cycles;
    for (const InstructionRecord& r : block) {
      isa::Ev5Instruction in{.address = r.address, .ev5_class = r.ev5_class};
      if (r.source_a && !r.source_a->reg.is_zero()) in.sources[0] = r.source_a->reg.number;
      if (r.source_b && !r.source_b->reg.is_zero()) in.sources[1] = r.source_b->reg.number;
      if (r.destination && !r.destination->is_zero()) in.destination = r.destination->number;
      cycles.push_back(fresh.issue(in).issue_cycle);
    }
    return cycles;
  };
  const Ev5Model model;
  model.schedule_block(busy);
  const BlockSchedule after_busy = model.schedule_block(copy_loop);
  EXPECT_EQ(after_busy.best_case_cycles, 8u);
  EXPECT_EQ(head_cycles(after_busy), head_cycles(Ev5Model().schedule_block(copy_loop)));
  model.schedule_block(copy_loop);
  const BlockSchedule busy_again = model.schedule_block(busy);
  std::vector<uint32_t> cycles;
  for (const ScheduledInstruction& insn : busy_again.instructions)
    cycles.push_back(insn.issue_cycle);
  EXPECT_EQ(cycles, issues(busy));
  EXPECT_EQ(busy_again.instructions[1].issue_cycle, 8u);  // the multiplier, as before
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
