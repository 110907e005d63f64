// Local propagation over flow constraints (DCPI §6.1.4).
#include "analysis/calc/estimate/local_propagation.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "copy_loop_fixture.h"

namespace dcpi::calc {
namespace {

struct Diamond {
  ControlFlowGraph cfg;
  EdgeId fork_left, fork_right, left_join, right_join;
  Diamond() {
    for (size_t i = 0; i < 4; ++i) {
      BasicBlock block = testing::simple_block(0x1000 + 0x100 * i, 2);
      block.leaves_procedure = i == 3;
      cfg.add_block(std::move(block));
    }
    fork_left = cfg.add_edge(0, 1);
    fork_right = cfg.add_edge(0, 2);
    left_join = cfg.add_edge(1, 3);
    right_join = cfg.add_edge(2, 3);
  }
};

ClassFrequencies unknown(const FrequencyClasses& classes) {
  ClassFrequencies v;
  v.frequency.assign(classes.class_count, std::nullopt);
  v.confidence.assign(classes.class_count, Confidence::kHigh);
  v.propagated.assign(classes.class_count, false);
  return v;
}

TEST(LocalPropagation, KnownForkAndOneArmDetermineTheOtherArm) {
  const Diamond d;
  const ExitAugmentation aug = augment_for_exit(d.cfg);
  const FrequencyClasses classes = frequency_classes(d.cfg, aug);
  ClassFrequencies v = unknown(classes);
  v.frequency[classes.block_class[0]] = 100;
  v.frequency[classes.block_class[1]] = 30;
  EXPECT_GT(propagate_frequencies(d.cfg, classes, aug, v), 0u);
  ASSERT_TRUE(v.frequency[classes.edge_class[d.fork_right]]);
  EXPECT_DOUBLE_EQ(*v.frequency[classes.edge_class[d.fork_right]], 70);
  EXPECT_DOUBLE_EQ(*v.frequency[classes.block_class[2]], 70);  // same class as the edge
  EXPECT_TRUE(v.propagated[classes.block_class[2]]);
  EXPECT_LE(v.confidence[classes.block_class[2]], Confidence::kMedium);
}

TEST(LocalPropagation, NeverProducesNegativeEstimates) {
  const Diamond d;
  const ExitAugmentation aug = augment_for_exit(d.cfg);
  const FrequencyClasses classes = frequency_classes(d.cfg, aug);
  ClassFrequencies v = unknown(classes);
  v.frequency[classes.block_class[0]] = 100;
  v.frequency[classes.block_class[1]] = 130;  // an overestimate: 100 − 130 < 0
  propagate_frequencies(d.cfg, classes, aug, v);
  for (const auto& f : v.frequency) {
    ASSERT_TRUE(f.has_value());
    EXPECT_GE(*f, 0.0);
  }
  EXPECT_DOUBLE_EQ(*v.frequency[classes.block_class[2]], 0.0);
}

TEST(LocalPropagation, LoopBackEdgeFollowsFromBodyAndEntry) {
  // 0 → 1, 1 → 1, 1 → 2: body 1 runs 50, entry 10 → back edge 40.
  ControlFlowGraph cfg;
  for (size_t i = 0; i < 3; ++i) {
    BasicBlock block = testing::simple_block(0x1000 + 0x100 * i, 2);
    block.leaves_procedure = i == 2;
    cfg.add_block(std::move(block));
  }
  cfg.add_edge(0, 1);
  const EdgeId back = cfg.add_edge(1, 1);
  cfg.add_edge(1, 2);
  const ExitAugmentation aug = augment_for_exit(cfg);
  const FrequencyClasses classes = frequency_classes(cfg, aug);
  ClassFrequencies v = unknown(classes);
  v.frequency[classes.block_class[0]] = 10;
  v.frequency[classes.block_class[1]] = 50;
  propagate_frequencies(cfg, classes, aug, v);
  ASSERT_TRUE(v.frequency[classes.edge_class[back]]);
  EXPECT_DOUBLE_EQ(*v.frequency[classes.edge_class[back]], 40);
}

TEST(LocalPropagation, UnconstrainedClassesStayUnknown) {
  const Diamond d;
  const ExitAugmentation aug = augment_for_exit(d.cfg);
  const FrequencyClasses classes = frequency_classes(d.cfg, aug);
  ClassFrequencies v = unknown(classes);
  v.frequency[classes.block_class[0]] = 100;  // the arms cannot be split without more
  EXPECT_EQ(propagate_frequencies(d.cfg, classes, aug, v), 0u);
  EXPECT_FALSE(v.frequency[classes.block_class[1]]);
  EXPECT_FALSE(v.frequency[classes.block_class[2]]);
}

}  // namespace
}  // namespace dcpi::calc
