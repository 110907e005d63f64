// Frequency from samples (DCPI §6.1.3), with Figure 7 as the reference.
#include "analysis/calc/estimate/frequency_estimate.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/calc/estimate/procedure_analysis.h"
#include "analysis/calc/model/ev5_model.h"
#include "analysis/calc/model/qemu_icount_model.h"
#include "copy_loop_fixture.h"

namespace dcpi::calc {
namespace {

ControlFlowGraph copy_loop_cfg() { return build_cfg(testing::copy_loop_block()); }

SamplesByAddress copy_loop_samples_by_address() {
  SamplesByAddress samples;
  const auto block = testing::copy_loop_block();
  const auto s = testing::copy_loop_samples();
  for (size_t i = 0; i < block.size(); ++i) samples[block[i].address] = s[i];
  return samples;
}

TEST(FrequencyEstimate, Figure7CopyLoopIsWithin5PercentOfTheTrueFrequency) {
  const ProcedureAnalysis analysis =
      analyze_procedure(copy_loop_cfg(), Ev5Model(), copy_loop_samples_by_address());
  ASSERT_EQ(analysis.cfg.blocks().size(), 1u);
  const std::optional<double> f = analysis.block_frequency(0);
  ASSERT_TRUE(f.has_value());
  RecordProperty("estimate", std::to_string(*f));
  std::printf("Figure 7 estimate: %.1f (true 1575.1, paper 1527)\n", *f);
  EXPECT_NEAR(*f, testing::kCopyLoopTrueFrequency, 0.05 * testing::kCopyLoopTrueFrequency);
  // As good as the paper's heuristic or better.
  EXPECT_LE(std::abs(*f - testing::kCopyLoopTrueFrequency),
            std::abs(testing::kCopyLoopPaperEstimate - testing::kCopyLoopTrueFrequency) + 1e-9);
}

TEST(FrequencyEstimate, Figure7UsesTheSmallRatiosAndNotTheStalledStores) {
  const ProcedureAnalysis analysis =
      analyze_procedure(copy_loop_cfg(), Ev5Model(), copy_loop_samples_by_address());
  const ClassFrequencyEstimate& e = analysis.class_estimates[analysis.classes.block_class[0]];
  // The cluster, refined to its unstalled issue points (the same four here).
  EXPECT_EQ(e.method, EstimateMethod::kUnstalledPoints);
  EXPECT_EQ(e.ratios.size(), 8u);  // 8 issue points
  for (const IssuePointRatio& r : e.ratios) {
    const bool starred_in_figure7 =
        r.instruction == 4 || r.instruction == 8 || r.instruction == 10 || r.instruction == 12;
    if (starred_in_figure7) {
      EXPECT_TRUE(r.used) << "instruction " << r.instruction;
    }
    if (r.ratio > 3000) {
      EXPECT_FALSE(r.used) << "instruction " << r.instruction;
    }
  }
  EXPECT_NE(e.confidence, Confidence::kLow);
}

// callsys; lda; addq; sll; bne back: PALcode's cycles are sampled at the
// lda (DCPI §4.1.3). On a machine without dynamic stalls every issue point
// was averaged in, the lda's 5000 with the others' 100 (callpal on qemu:
// 20.9 % of its samples within 5 %); it is no issue point now.
TEST(FrequencyEstimate, TheInstructionPalcodeReturnsToIsNoIssuePoint) {
  std::vector<InstructionRecord> loop = {
      testing::op(0x3000, isa::Ev5Class::kCallPal, std::nullopt, std::nullopt, std::nullopt),
      testing::op(0x3004, isa::Ev5Class::kIadd, 31, std::nullopt, 1),
      testing::op(0x3008, isa::Ev5Class::kIadd, 2, 2, 2),
      testing::op(0x300c, isa::Ev5Class::kShift, 3, 3, 3),
      testing::branch(0x3010, ControlFlow::kConditionalBranch, 0x3000, 2)};
  loop[0].kind = isa::Kind::kCallPal;
  loop[0].encoding = 0x83;  // callsys
  const ControlFlowGraph cfg = build_cfg(loop);
  ASSERT_EQ(palcode_returning_to(cfg, 0, 1), std::optional<uint64_t>(0x3000));
  EXPECT_FALSE(palcode_returning_to(cfg, 0, 2));
  SamplesByAddress samples{
      {0x3000, 100}, {0x3004, 5000}, {0x3008, 100}, {0x300c, 100}, {0x3010, 100}};
  const ProcedureAnalysis analysis = analyze_procedure(cfg, QemuIcountModel(), samples);
  ASSERT_TRUE(analysis.block_frequency(0));
  EXPECT_DOUBLE_EQ(*analysis.block_frequency(0), 100.0);
  // rduniq runs inline under QEMU: no PALcode, the lda is an issue point.
  loop[0].encoding = 0x9e;
  const ControlFlowGraph inline_cfg = build_cfg(loop);
  EXPECT_FALSE(palcode_returning_to(inline_cfg, 0, 1));
  const ProcedureAnalysis inline_analysis =
      analyze_procedure(inline_cfg, QemuIcountModel(), samples);
  EXPECT_DOUBLE_EQ(*inline_analysis.block_frequency(0), 5400.0 / 5);
}

TEST(FrequencyEstimate, SmallSampleClassUsesTotalSamplesOverTotalCycles) {
  const auto block = testing::copy_loop_block();
  const BlockSchedule schedule = Ev5Model().schedule_block(block);
  std::vector<double> samples(block.size(), 0);
  samples[0] = 3;
  samples[6] = 5;
  const ScheduledBlockSamples member{.schedule = &schedule, .samples = samples};
  const ClassFrequencyEstimate e = estimate_class_frequency({&member, 1}, EstimatorOptions{});
  EXPECT_EQ(e.method, EstimateMethod::kSmallSampleTotal);
  ASSERT_TRUE(e.frequency);
  EXPECT_DOUBLE_EQ(*e.frequency, 8.0 / 8.0);
  EXPECT_EQ(e.confidence, Confidence::kLow);
}

TEST(FrequencyEstimate, DependenceWindowRatioIsUsedAfterAStaticStall) {
  // ldq r5; addq; sll; mull r5: the multiply waits for the load, so its
  // ratio sums samples from the instruction after the load (§6.1.3).
  const std::vector<InstructionRecord> stalled = {
      testing::op(0x2000, isa::Ev5Class::kIld, std::nullopt, 2, 5),
      testing::op(0x2004, isa::Ev5Class::kIadd, 1, 1, 7),
      testing::op(0x2008, isa::Ev5Class::kShift, 1, 1, 8),
      testing::op(0x200c, isa::Ev5Class::kImull, 5, 1, 6),
  };
  const BlockSchedule s2 = Ev5Model().schedule_block(stalled);
  // mull waits for the load (3 cycles to the multiplier): window = 1 … 3.
  ASSERT_GT(s2.instructions[3].head_cycles, 1u);
  const std::vector<double> samples = {100, 0, 100, 100};
  const ScheduledBlockSamples member{.schedule = &s2, .samples = samples};
  const ClassFrequencyEstimate e = estimate_class_frequency({&member, 1}, EstimatorOptions{});
  bool found = false;
  for (const IssuePointRatio& r : e.ratios) {
    if (r.instruction != 3) continue;
    found = true;
    EXPECT_EQ(r.window_start, 1u);
  }
  EXPECT_TRUE(found);
}

// Five shifts (E0 only: one issue point each), one of them stalled a fifth
// of the time. With ~4800 samples a ratio 22 % above the others is not the
// same frequency plus noise (relative error ~1.5 %): left out, where DCPI's
// 1.5 bound alone averages it in and overestimates by 4 %.
TEST(FrequencyEstimate, AWellSampledClassLeavesOutARatioBeyondItsSamplingError) {
  std::vector<InstructionRecord> shifts;
  for (uint8_t k = 0; k < 5; ++k)
    shifts.push_back(testing::op(0x3000 + 4 * k, isa::Ev5Class::kShift, std::nullopt, 1, 1 + k));
  const BlockSchedule schedule = Ev5Model().schedule_block(shifts);
  for (const auto& instruction : schedule.instructions) ASSERT_EQ(instruction.head_cycles, 1u);
  const std::vector<double> samples = {4800, 4750, 4810, 5800, 4790};
  const ScheduledBlockSamples member{.schedule = &schedule, .samples = samples};
  const ClassFrequencyEstimate e = estimate_class_frequency({&member, 1}, EstimatorOptions{});
  ASSERT_TRUE(e.frequency);
  EXPECT_NEAR(*e.frequency, (4800 + 4750 + 4810 + 4790) / 4.0, 1e-9);
  EXPECT_FALSE(e.ratios[3].used);
  EstimatorOptions paper_bound_only;
  paper_bound_only.cluster_noise_sigmas = 0;
  paper_bound_only.clip_high_sigmas = 0;
  const ClassFrequencyEstimate loose = estimate_class_frequency({&member, 1}, paper_bound_only);
  EXPECT_NEAR(*loose.frequency, (4800 + 4750 + 4810 + 5800 + 4790) / 5.0, 1e-9);
  // Few samples: the sampling error is larger than 1.5 allows, DCPI's bound holds.
  const std::vector<double> few = {48, 47, 48, 58, 47};
  const ScheduledBlockSamples sparse{.schedule = &schedule, .samples = few};
  EXPECT_TRUE(estimate_class_frequency({&sparse, 1}, EstimatorOptions{}).ratios[3].used);
}

// compress on ev5 (decompress's copy loop, session-20 run, period 4095.5):
// four one-cycle issue points with 1143, 1152, 1149 and 184 samples and a
// store whose two-cycle window (its load dependency) has 2642, 0.3 cycles a
// run of D-cache stall in the truth; truth 1128.2 runs a period. Its ratio,
// 1321, is 15.6 % above the smallest: inside the cluster's bound of 3
// sampling errors of that ratio (17.7 %), and the cluster's average was
// +5.6 %, outside Figure 8's 5 %. Against the window's own noise at the
// clean points' F (σ = √(F/2) = 24) it is 7 σ high: left out, F = 1148.
TEST(FrequencyEstimate, AStalledWindowWithinTheClusterBoundIsLeftOutByItsOwnNoise) {
  // Alpha registers: t0..t6 = 1..7.
  const std::vector<InstructionRecord> with_store = {
      testing::op(0x4000, isa::Ev5Class::kIadd, 1, 7, 2),             // subq t0,t6,t1
      testing::op(0x4004, isa::Ev5Class::kIadd, 3, 1, 4),             // addq t2,t0,t3
      testing::op(0x4008, isa::Ev5Class::kIadd, 3, 2, 2),             // addq t2,t1,t1
      testing::op(0x400c, isa::Ev5Class::kIadd, std::nullopt, 1, 1),  // lda t0,1(t0)
      testing::op(0x4010, isa::Ev5Class::kIld, std::nullopt, 2, 5),   // ldbu t4,0(t1)
      testing::op(0x4014, isa::Ev5Class::kIcmp, 1, 6, 2),             // cmpult t0,t5,t1
      testing::op(0x4018, isa::Ev5Class::kIst, 5, 4, std::nullopt),   // stb t4,0(t3)
  };
  const BlockSchedule schedule = Ev5Model().schedule_block(with_store);
  ASSERT_EQ(schedule.instructions[6].head_cycles, 2u) << "the store waits a cycle for ldbu";
  std::vector<double> samples(with_store.size(), 0);
  for (size_t i = 0; i < with_store.size(); ++i)
    if (schedule.instructions[i].head_cycles == 1) samples[i] = 1148;
  samples[6] = 2642;
  const ScheduledBlockSamples member{.schedule = &schedule, .samples = samples};
  const ClassFrequencyEstimate e = estimate_class_frequency({&member, 1}, EstimatorOptions{});
  ASSERT_TRUE(e.frequency);
  EXPECT_EQ(e.method, EstimateMethod::kUnstalledPoints);
  EXPECT_NEAR(*e.frequency, 1148, 1e-6);
  EXPECT_NEAR(*e.frequency, 1128.2, 0.05 * 1128.2);
  // Without the refinement the stalled window is averaged in: outside 5 %.
  EstimatorOptions cluster_only;
  cluster_only.clip_high_sigmas = 0;
  const ClassFrequencyEstimate averaged = estimate_class_frequency({&member, 1}, cluster_only);
  ASSERT_TRUE(averaged.frequency);
  EXPECT_GT(*averaged.frequency, 1.05 * 1128.2);
}

TEST(FrequencyEstimate, QemuModelAveragesAllIssuePoints) {
  const ProcedureAnalysis analysis =
      analyze_procedure(copy_loop_cfg(), QemuIcountModel(),
                        {{0x9810, 100}, {0x9814, 110}, {0x9818, 90}, {0x981c, 100}});
  const std::optional<double> f = analysis.block_frequency(0);
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(*f, 400.0 / 13.0);
  EXPECT_EQ(analysis.class_estimates[0].method, EstimateMethod::kAllIssuePoints);
}

}  // namespace
}  // namespace dcpi::calc
