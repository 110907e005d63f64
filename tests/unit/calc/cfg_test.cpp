// Building CFGs from instruction records (DCPI §6.1.1).
#include "analysis/calc/estimate/cfg.h"

#include <gtest/gtest.h>

#include <memory>

#include "analysis/calc/estimate/cycle_equivalence.h"
#include "copy_loop_fixture.h"

namespace dcpi::calc {
namespace {

using testing::branch;
using testing::op;

InstructionRecord add(uint64_t address) { return op(address, isa::Ev5Class::kIadd, 1, 2, 3); }

TEST(BuildCfg, LoopWithExitSplitsAtTheTargetAndAfterBranches) {
  // 0x100 add; 0x104 add (loop head); 0x108 bne → 0x104; 0x10c ret
  const std::vector<InstructionRecord> code = {
      add(0x100), add(0x104), branch(0x108, ControlFlow::kConditionalBranch, 0x104, 1),
      branch(0x10c, ControlFlow::kReturn, std::nullopt)};
  const ControlFlowGraph cfg = build_cfg(code);
  ASSERT_EQ(cfg.blocks().size(), 3u);
  EXPECT_EQ(cfg.block(1).start, 0x104u);
  EXPECT_EQ(cfg.block(1).end, 0x10cu);
  EXPECT_EQ(cfg.edges().size(), 3u);  // 0→1, 1→1 (taken), 1→2 (fall through)
  EXPECT_TRUE(cfg.block(2).leaves_procedure);
  EXPECT_FALSE(cfg.missing_edges());
}

// A block's edge lists view the graph's one array (issue 31): a copy views
// its own, so it outlives the original, and edges added later show.
TEST(BuildCfg, ACopysEdgeListsAreItsOwn) {
  const std::vector<InstructionRecord> code = {
      add(0x100), add(0x104), branch(0x108, ControlFlow::kConditionalBranch, 0x104, 1),
      branch(0x10c, ControlFlow::kReturn, std::nullopt)};
  auto original = std::make_unique<ControlFlowGraph>(build_cfg(code));
  ControlFlowGraph copy = *original;
  ControlFlowGraph assigned;
  assigned = *original;
  original.reset();
  for (const ControlFlowGraph* cfg : {&copy, &assigned}) {
    ASSERT_EQ(cfg->block(1).incoming.size(), 2u);  // 0→1, then 1→1
    EXPECT_EQ(cfg->edge(cfg->block(1).incoming[0]).from, 0u);
    EXPECT_EQ(cfg->edge(cfg->block(1).incoming[1]).from, 1u);
    ASSERT_EQ(cfg->block(1).outgoing.size(), 2u);  // 1→1 (taken), 1→2
    EXPECT_EQ(cfg->edge(cfg->block(1).outgoing[1]).to, 2u);
    EXPECT_TRUE(cfg->block(2).outgoing.empty());
  }
  const EdgeId added = copy.add_edge(2, 0);
  ASSERT_EQ(copy.block(0).incoming.size(), 1u);
  EXPECT_EQ(copy.block(0).incoming[0], added);
  EXPECT_EQ(copy.block(2).outgoing.size(), 1u);
  EXPECT_TRUE(assigned.block(0).incoming.empty());
}

InstructionRecord unop(uint64_t address) {
  InstructionRecord r = op(address, isa::Ev5Class::kIld, std::nullopt, 30, std::nullopt);
  r.no_op = true;
  return r;
}

// Issue 17: `.align` padding after an unconditional branch that no edge
// reaches never runs; merged into the next block (a case label no edge
// reaches while its table is unread) it diluted that block's samples.
TEST(BuildCfg, UnreachablePaddingIsABlockOfItsOwnWithoutEdges) {
  // 0x100 add; 0x104 br → 0x100; 0x108 unop; 0x10c unop; 0x110 add; 0x114 ret
  const std::vector<InstructionRecord> code = {
      add(0x100), branch(0x104, ControlFlow::kUnconditionalBranch, 0x100), unop(0x108), unop(0x10c),
      add(0x110), branch(0x114, ControlFlow::kReturn, std::nullopt)};
  const ControlFlowGraph cfg = build_cfg(code);
  ASSERT_EQ(cfg.blocks().size(), 3u);
  const BasicBlock& padding = cfg.block(1);
  EXPECT_TRUE(padding.padding);
  EXPECT_EQ(padding.start, 0x108u);
  EXPECT_EQ(padding.end, 0x110u);
  EXPECT_TRUE(padding.incoming.empty() && padding.outgoing.empty());
  EXPECT_FALSE(padding.leaves_procedure);
  EXPECT_EQ(cfg.block(2).start, 0x110u) << "the code after the padding starts its own block";
  EXPECT_FALSE(cfg.block(0).padding || cfg.block(2).padding);
}

TEST(BuildCfg, PaddingThatABranchReachesIsCode) {
  // A loop head aligned with nops that the branch targets: it runs.
  const std::vector<InstructionRecord> code = {
      add(0x100), branch(0x104, ControlFlow::kUnconditionalBranch, 0x108), unop(0x108), add(0x10c),
      branch(0x110, ControlFlow::kReturn, std::nullopt)};
  const ControlFlowGraph cfg = build_cfg(code);
  for (const BasicBlock& block : cfg.blocks()) EXPECT_FALSE(block.padding) << block.start;
  EXPECT_EQ(cfg.block(cfg.block_at(0x10c)).start, 0x108u);
}

TEST(BuildCfg, IndirectJumpMarksMissingEdges) {
  const std::vector<InstructionRecord> code = {
      add(0x100), branch(0x104, ControlFlow::kIndirectJump, std::nullopt), add(0x108)};
  EXPECT_TRUE(build_cfg(code).missing_edges());
}

TEST(BuildCfg, ResolvedJumpTableGivesOneEdgePerDistinctTarget) {
  // 0x100 add; 0x104 jmp → {0x10c, 0x114}; 0x108 ret; 0x10c add; 0x110 ret; 0x114 ret
  InstructionRecord jump = branch(0x104, ControlFlow::kIndirectJump, std::nullopt);
  jump.jump_targets = {0x10c, 0x114};
  const std::vector<InstructionRecord> code = {add(0x100),
                                               jump,
                                               branch(0x108, ControlFlow::kReturn, std::nullopt),
                                               add(0x10c),
                                               branch(0x110, ControlFlow::kReturn, std::nullopt),
                                               branch(0x114, ControlFlow::kReturn, std::nullopt)};
  const ControlFlowGraph cfg = build_cfg(code);
  EXPECT_FALSE(cfg.missing_edges());
  ASSERT_EQ(cfg.blocks().size(), 4u);  // [100,108) [108] [10c,114) [114]
  const BasicBlock& dispatch = cfg.block(0);
  ASSERT_EQ(dispatch.outgoing.size(), 2u);
  EXPECT_EQ(cfg.block(cfg.edge(dispatch.outgoing[0]).to).start, 0x10cu);
  EXPECT_EQ(cfg.block(cfg.edge(dispatch.outgoing[1]).to).start, 0x114u);
  EXPECT_TRUE(cfg.block(1).incoming.empty());  // the ret after the jmp is not fallen into

  jump.jump_targets = {0x10c, 0x9000};  // a target outside: the edges are not all known
  const std::vector<InstructionRecord> outside = {
      add(0x100), jump, branch(0x108, ControlFlow::kReturn, std::nullopt), add(0x10c)};
  EXPECT_TRUE(build_cfg(outside).missing_edges());
}

TEST(BuildCfg, BranchOutOfTheProcedureLeavesIt) {
  const std::vector<InstructionRecord> code = {
      add(0x100), branch(0x104, ControlFlow::kUnconditionalBranch, 0x9000)};
  const ControlFlowGraph cfg = build_cfg(code);
  ASSERT_EQ(cfg.blocks().size(), 1u);
  EXPECT_TRUE(cfg.block(0).leaves_procedure);
  EXPECT_TRUE(cfg.edges().empty());
}

TEST(BuildCfg, CallsEndABlockAndFallThrough) {
  const std::vector<InstructionRecord> code = {
      add(0x100), branch(0x104, ControlFlow::kCall, 0x9000), add(0x108),
      branch(0x10c, ControlFlow::kReturn, std::nullopt)};
  const ControlFlowGraph cfg = build_cfg(code);
  ASSERT_EQ(cfg.blocks().size(), 2u);
  ASSERT_EQ(cfg.edges().size(), 1u);
  EXPECT_EQ(cfg.edge(0).kind, EdgeKind::kFallThrough);
}

}  // namespace
}  // namespace dcpi::calc

namespace dcpi::calc {
namespace {

// Issue 31: block_at bisects build_cfg's address-ordered blocks; it must
// agree with a scan of every block, for every address inside and around the
// procedure, and blocks added by hand out of order are still found.
TEST(BuildCfg, BlockAtAgreesWithAScanOfEveryBlock) {
  std::vector<InstructionRecord> code;
  for (uint64_t a = 0x200; a < 0x300; a += 4)
    code.push_back(a % 0x1c == 0 ? branch(a, ControlFlow::kConditionalBranch, 0x200 + (a % 0x40), 1)
                                 : add(a));
  code.push_back(branch(0x300, ControlFlow::kReturn, std::nullopt));
  const ControlFlowGraph cfg = build_cfg(code);
  ASSERT_GT(cfg.blocks().size(), 5u);
  for (uint64_t a = 0x1f0; a < 0x310; ++a) {
    BlockId scanned = cfg.blocks().size();
    for (BlockId b = 0; b < cfg.blocks().size(); ++b)
      if (cfg.block(b).start <= a && a < cfg.block(b).end) scanned = b;
    EXPECT_EQ(cfg.block_at(a), scanned) << std::hex << a;
  }

  ControlFlowGraph by_hand;  // out of address order
  by_hand.add_block(BasicBlock{.start = 0x20, .end = 0x28});
  by_hand.add_block(BasicBlock{.start = 0x10, .end = 0x18});
  EXPECT_EQ(by_hand.block_at(0x14), 1u);
  EXPECT_EQ(by_hand.block_at(0x24), 0u);
  EXPECT_EQ(by_hand.block_at(0x1c), 2u);
}

// The classes' blocks gathered in one pass are blocks_in's, class by class.
TEST(ClassMembers, BlocksByClassMatchesBlocksIn) {
  const std::vector<InstructionRecord> code = {
      add(0x100),
      add(0x104),
      branch(0x108, ControlFlow::kConditionalBranch, 0x104, 1),
      branch(0x10c, ControlFlow::kConditionalBranch, 0x114, 2),
      add(0x110),
      branch(0x114, ControlFlow::kReturn, std::nullopt)};
  const ControlFlowGraph cfg = build_cfg(code);
  const FrequencyClasses classes = frequency_classes(cfg);
  const auto by_class = classes.blocks_by_class();
  ASSERT_EQ(by_class.size(), classes.class_count);
  for (ClassId c = 0; c < classes.class_count; ++c)
    EXPECT_EQ(std::vector<BlockId>(by_class[c].begin(), by_class[c].end()), classes.blocks_in(c));
}

}  // namespace
}  // namespace dcpi::calc
