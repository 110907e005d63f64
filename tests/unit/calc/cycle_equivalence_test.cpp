// Frequency-equivalence classes (DCPI §6.1.2) on hand-built CFGs.
#include "analysis/calc/estimate/cycle_equivalence.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "copy_loop_fixture.h"

namespace dcpi::calc {
namespace {

// Blocks 0 … n−1 at 0x1000 + 0x100·i; `exits` leave the procedure.
ControlFlowGraph graph(size_t n, std::initializer_list<std::pair<BlockId, BlockId>> edges,
                       std::initializer_list<BlockId> exits) {
  ControlFlowGraph cfg;
  for (size_t i = 0; i < n; ++i) {
    BasicBlock block = testing::simple_block(0x1000 + 0x100 * i, 2);
    block.leaves_procedure = std::find(exits.begin(), exits.end(), i) != exits.end();
    cfg.add_block(std::move(block));
  }
  for (auto [from, to] : edges) cfg.add_edge(from, to);
  return cfg;
}

TEST(CycleEquivalence, DiamondArmsAreSeparateAndTheJoinMatchesTheFork) {
  // 0 → 1 → 3, 0 → 2 → 3
  const ControlFlowGraph cfg = graph(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, {3});
  const FrequencyClasses c = frequency_classes(cfg);
  EXPECT_EQ(c.block_class[0], c.block_class[3]);
  EXPECT_NE(c.block_class[0], c.block_class[1]);
  EXPECT_NE(c.block_class[1], c.block_class[2]);
  EXPECT_EQ(c.block_class[1], c.edge_class[0]);  // 0→1
  EXPECT_EQ(c.block_class[1], c.edge_class[2]);  // 1→3
  EXPECT_EQ(c.block_class[2], c.edge_class[1]);  // 0→2
  EXPECT_EQ(c.block_class[2], c.edge_class[3]);  // 2→3
  EXPECT_EQ(c.class_count, 3u);
}

TEST(CycleEquivalence, SelfLoopBodyAndBackEdgeEachHaveTheirOwnClass) {
  // 0 → 1, 1 → 1, 1 → 2
  const ControlFlowGraph cfg = graph(3, {{0, 1}, {1, 1}, {1, 2}}, {2});
  const FrequencyClasses c = frequency_classes(cfg);
  EXPECT_EQ(c.block_class[0], c.block_class[2]);
  EXPECT_EQ(c.block_class[0], c.edge_class[0]);
  EXPECT_EQ(c.block_class[0], c.edge_class[2]);
  EXPECT_NE(c.block_class[1], c.block_class[0]);
  EXPECT_NE(c.edge_class[1], c.block_class[1]);
  EXPECT_NE(c.edge_class[1], c.block_class[0]);
  EXPECT_EQ(c.class_count, 3u);
}

TEST(CycleEquivalence, NestedLoopsSeparateOuterBodyInnerBodyAndBackEdges) {
  // 0 → 1 (outer head) → 2 (inner) → 2, 2 → 3 (outer latch) → 1, 3 → 4 (exit)
  const ControlFlowGraph cfg = graph(5, {{0, 1}, {1, 2}, {2, 2}, {2, 3}, {3, 1}, {3, 4}}, {4});
  const FrequencyClasses c = frequency_classes(cfg);
  EXPECT_EQ(c.block_class[0], c.block_class[4]);
  EXPECT_EQ(c.block_class[1], c.block_class[3]);  // outer head and latch
  EXPECT_EQ(c.block_class[1], c.edge_class[1]);   // 1→2
  EXPECT_EQ(c.block_class[1], c.edge_class[3]);   // 2→3
  EXPECT_NE(c.block_class[2], c.block_class[1]);
  EXPECT_NE(c.block_class[1], c.block_class[0]);
  EXPECT_NE(c.edge_class[4], c.block_class[1]);  // outer back edge 3→1
  EXPECT_NE(c.edge_class[2], c.block_class[2]);  // inner back edge 2→2
}

TEST(CycleEquivalence, SequentialLoopsShareTheStraightLineClass) {
  // 0 → 1 ⟲ → 2 → 3 ⟲ → 4
  const ControlFlowGraph cfg = graph(5, {{0, 1}, {1, 1}, {1, 2}, {2, 3}, {3, 3}, {3, 4}}, {4});
  const FrequencyClasses c = frequency_classes(cfg);
  EXPECT_EQ(c.block_class[0], c.block_class[2]);
  EXPECT_EQ(c.block_class[0], c.block_class[4]);
  EXPECT_NE(c.block_class[1], c.block_class[3]);
  EXPECT_NE(c.block_class[1], c.block_class[0]);
  EXPECT_NE(c.block_class[3], c.block_class[0]);
  EXPECT_EQ(c.class_count, 5u);  // straight line, loop 1, back edge 1, loop 3, back edge 3
}

TEST(CycleEquivalence, InfiniteLoopGetsAnExitAndKeepsItsBodyTogether) {
  // An idle loop: 0 → 1 → 2 → 1, nothing leaves.
  const ControlFlowGraph cfg = graph(3, {{0, 1}, {1, 2}, {2, 1}}, {});
  const ExitAugmentation augmentation = augment_for_exit(cfg);
  ASSERT_EQ(augmentation.infinite_loop_exits.size(), 1u);
  EXPECT_EQ(augmentation.infinite_loop_exits[0], 2u);  // the latch
  const FrequencyClasses c = frequency_classes(cfg, augmentation);
  EXPECT_EQ(c.block_class[1], c.block_class[2]);
  EXPECT_EQ(c.block_class[1], c.edge_class[1]);  // 1→2
  EXPECT_EQ(c.block_class[0], c.edge_class[0]);  // entry and 0→1
  EXPECT_NE(c.block_class[0], c.block_class[1]);
  EXPECT_NE(c.edge_class[2], c.block_class[1]);  // back edge 2→1
}

TEST(CycleEquivalence, EveryBlockReachesTheExitAfterAugmentation) {
  // Two infinite loops behind a branch: 0 → 1 ⟲, 0 → 2 ⟲.
  const ControlFlowGraph cfg = graph(3, {{0, 1}, {1, 1}, {0, 2}, {2, 2}}, {});
  const ExitAugmentation augmentation = augment_for_exit(cfg);
  EXPECT_EQ(augmentation.infinite_loop_exits.size(), 2u);
  const FrequencyClasses c = frequency_classes(cfg, augmentation);
  EXPECT_NE(c.block_class[1], c.block_class[2]);
  EXPECT_NE(c.block_class[0], c.block_class[1]);
  EXPECT_NE(c.edge_class[0], c.block_class[1]) << "0→1 runs once, the loop body many times";
  EXPECT_NE(c.edge_class[0], c.edge_class[2]) << "the two arms of the branch differ";
}

TEST(CycleEquivalence, MissingEdgesGiveEveryBlockAndEdgeItsOwnClass) {
  ControlFlowGraph cfg = graph(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, {3});
  cfg.mark_missing_edges();
  const FrequencyClasses c = frequency_classes(cfg);
  EXPECT_EQ(c.class_count, 8u);
  std::vector<ClassId> all(c.block_class);
  all.insert(all.end(), c.edge_class.begin(), c.edge_class.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

TEST(CycleEquivalence, StraightLineIsOneClass) {
  const ControlFlowGraph cfg = graph(3, {{0, 1}, {1, 2}}, {2});
  const FrequencyClasses c = frequency_classes(cfg);
  EXPECT_EQ(c.class_count, 1u);
}

TEST(CycleEquivalence, ParallelEdgesAreNotEquivalentToEachOther) {
  // Two distinct edges 0 → 1 (e.g. a jump table's two entries), then exit.
  const ControlFlowGraph cfg = graph(2, {{0, 1}, {0, 1}}, {1});
  const FrequencyClasses c = frequency_classes(cfg);
  EXPECT_EQ(c.block_class[0], c.block_class[1]);
  EXPECT_NE(c.edge_class[0], c.edge_class[1]);
  EXPECT_NE(c.edge_class[0], c.block_class[0]);
}

}  // namespace
}  // namespace dcpi::calc
