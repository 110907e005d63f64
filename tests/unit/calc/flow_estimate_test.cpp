// The flow-consistent frequency estimate (flow_estimate.h) and its
// minimum-cost flow solver (min_cost_flow.h).
#include "analysis/calc/estimate/flow_estimate.h"

#include <gtest/gtest.h>

#include "analysis/calc/estimate/min_cost_flow.h"
#include "analysis/calc/estimate/procedure_analysis.h"
#include "analysis/calc/model/ev5_model.h"
#include "analysis/calc/model/qemu_icount_model.h"
#include "copy_loop_fixture.h"

namespace dcpi::calc {
namespace {

using testing::simple_block;

TEST(MinCostFlow, TakesTheCheaperOfTwoPaths) {
  MinCostFlow network(4);  // 0 → 1 → 3 costs 1 + 1, 0 → 2 → 3 costs 5 + 0; 1 → 3 holds 3
  const size_t a = network.add_arc(0, 1, 10, 1), b = network.add_arc(1, 3, 3, 1);
  const size_t c = network.add_arc(0, 2, 10, 5), d = network.add_arc(2, 3, 10, 0);
  network.add_supply(0, 5);
  network.add_supply(3, -5);
  ASSERT_TRUE(network.solve());
  EXPECT_DOUBLE_EQ(network.flow(a), 3);
  EXPECT_DOUBLE_EQ(network.flow(b), 3);
  EXPECT_DOUBLE_EQ(network.flow(c), 2);
  EXPECT_DOUBLE_EQ(network.flow(d), 2);
}

TEST(MinCostFlow, ReportsSupplyThatCannotArrive) {
  MinCostFlow network(2);
  network.add_arc(0, 1, 1, 0);
  network.add_supply(0, 2);
  network.add_supply(1, -2);
  EXPECT_FALSE(network.solve());
}

// A chain of a long block and a two-instruction block: conservation makes
// them equal, and the long block's 2000 samples outweigh the short one's
// noisy 260 (the profi case: ldgp entries, malloc's short blocks). The
// weighted least squares (weights M²/S: 0.2 and 0.015) gives 102.1.
TEST(FlowEstimate, LongBlocksOverruleShortNoisyOnes) {
  ControlFlowGraph cfg;
  cfg.add_block(simple_block(0x100, 20));
  cfg.add_block(simple_block(0x150, 2));
  cfg.add_edge(0, 1, EdgeKind::kFallThrough);
  const std::vector<BlockObservation> observed = {{100, 20, 2000}, {130, 2, 260}};
  const auto flow = estimate_flow(cfg, augment_for_exit(cfg), observed);
  ASSERT_TRUE(flow.has_value());
  EXPECT_NEAR(flow->block_frequency[0], 102.1, 1.0);  // half-sigma steps: σ = 2.2 here
  EXPECT_NEAR(flow->block_frequency[1], flow->block_frequency[0], 1e-6);
  EXPECT_NEAR(flow->edge_frequency[0], flow->block_frequency[0], 1e-6);
}

ControlFlowGraph diamond() {
  ControlFlowGraph cfg;
  for (uint64_t start : {0x100, 0x120, 0x140, 0x160}) cfg.add_block(simple_block(start, 8));
  cfg.add_edge(0, 1, EdgeKind::kFallThrough);
  cfg.add_edge(0, 2);
  cfg.add_edge(1, 3);
  cfg.add_edge(2, 3, EdgeKind::kFallThrough);
  return cfg;
}

// A diamond: entry splits into two arms that join. Flow is conserved at
// every block (in = out), whatever the noise.
TEST(FlowEstimate, ConservesFlowOnADiamond) {
  const ControlFlowGraph cfg = diamond();
  const std::vector<BlockObservation> observed = {
      {100, 8, 800}, {61, 8, 488}, {45, 8, 360}, {97, 8, 776}};
  const auto flow = estimate_flow(cfg, augment_for_exit(cfg), observed);
  ASSERT_TRUE(flow.has_value());
  const auto& f = flow->block_frequency;
  const auto& e = flow->edge_frequency;
  EXPECT_NEAR(e[0] + e[1], f[0], 1e-6);
  EXPECT_NEAR(e[0], f[1], 1e-6);
  EXPECT_NEAR(e[1], f[2], 1e-6);
  EXPECT_NEAR(e[2] + e[3], f[3], 1e-6);
  EXPECT_NEAR(f[1] + f[2], f[0], 1e-6);
  EXPECT_NEAR(f[3], f[0], 1e-6);
  // Least squares with weights 64/S: the ends pull to 100 and 97, the arms'
  // sum to 106; the optimum is 100.9 (up to the half-sigma steps).
  EXPECT_NEAR(f[0], 100.9, 1.5);
  EXPECT_GT(f[1], f[2]);
}

TEST(FlowEstimate, NothingForACfgWithMissingEdges) {
  ControlFlowGraph cfg;
  cfg.add_block(simple_block(0x100, 4));
  cfg.mark_missing_edges();
  const std::vector<BlockObservation> observed = {{10, 4}};
  EXPECT_FALSE(estimate_flow(cfg, augment_for_exit(cfg), observed).has_value());
}

// analyze_procedure with the flow estimator: the diamond's arms are classes
// of their own, and DCPI estimates each from its samples (61 + 45 = 106
// executions per period leave a block executed 100 times); the flow makes
// them add up, and the method says so. DCPI's estimate is the default.
TEST(FlowEstimate, AnalyzeProcedureUsesItOnRequest) {
  const ControlFlowGraph cfg = diamond();
  SamplesByAddress samples;
  const double per_instruction[] = {100, 61, 45, 100};
  for (BlockId b = 0; b < 4; ++b)
    for (const InstructionRecord& r : cfg.block(b).instructions)
      samples[r.address] = per_instruction[b];
  const QemuIcountModel model;
  const ProcedureAnalysis dcpi = analyze_procedure(cfg, model, samples);
  EXPECT_FALSE(dcpi.flow_applied);
  EXPECT_NEAR(*dcpi.block_frequency(1) + *dcpi.block_frequency(2), 106, 1e-6);
  const ProcedureAnalysis flow =
      analyze_procedure(cfg, model, samples, {}, FrequencyEstimator::kFlow);
  EXPECT_TRUE(flow.flow_applied);
  EXPECT_NEAR(*flow.block_frequency(1) + *flow.block_frequency(2), *flow.block_frequency(0), 1e-6);
  EXPECT_NEAR(*flow.block_frequency(0), *flow.block_frequency(3), 1e-6);
  EXPECT_EQ(parse_estimator("flow"), FrequencyEstimator::kFlow);
  EXPECT_FALSE(parse_estimator("profi").has_value());
}

// callpal's loop on ev5 (session-20 run, period 4095.5: 244 runs a period):
// a long block whose one instruction waits 26 cycles for the I-cache beside
// clean one-cycle issue points, and a short block of the same loop whose one
// issue point waits 8 cycles. The long block's observation rests on its
// clean points, so its error is √(244 / 6) ≈ 6.4 runs, not √(all its
// samples) / 8 ≈ 11: counted with the stall's samples, the stalled short
// block pulled the loop 9.5 % high in that run.
TEST(FlowEstimate, AStallElsewhereInABlockDoesNotWidenItsObservation) {
  auto shift = [](uint64_t address, uint8_t dest) {
    return testing::op(address, isa::Ev5Class::kShift, std::nullopt, 1, dest);  // E0 only
  };
  std::vector<InstructionRecord> procedure = {shift(0x100, 2)};  // entry
  for (uint8_t k = 0; k < 6; ++k) procedure.push_back(shift(0x104 + 4 * k, 3 + k));
  procedure.push_back(testing::branch(0x11c, ControlFlow::kConditionalBranch, 0x12c, 9));
  procedure.push_back(shift(0x120, 2));  // the short block's one issue point
  procedure.push_back(testing::branch(0x124, ControlFlow::kConditionalBranch, 0x104, 10));
  procedure.push_back(shift(0x128, 2));
  procedure.push_back(testing::branch(0x12c, ControlFlow::kReturn, std::nullopt));
  const ControlFlowGraph cfg = build_cfg(procedure);
  const Ev5Model model;
  SamplesByAddress samples;
  for (uint64_t a = 0x104; a < 0x11c; a += 4) samples[a] = 244;
  samples[0x108] = 6900;  // 26 cycles of I-cache miss on top of its one
  samples[0x11c] = 244;   // the exit branch, an issue point of its own
  samples[0x120] = 2200;  // one cycle and an 8-cycle stall
  const ProcedureAnalysis flow =
      analyze_procedure(cfg, model, samples, {}, FrequencyEstimator::kFlow);
  ASSERT_TRUE(flow.flow_applied);
  const BlockId loop = flow.cfg.block_at(0x104);
  ASSERT_TRUE(flow.block_frequency(loop));
  EXPECT_NEAR(*flow.block_frequency(loop), 244, 0.05 * 244);
}

}  // namespace
}  // namespace dcpi::calc
