// The reports' view of the calling context tree: merging by procedure,
// inclusive = exclusive + children, the bottom-up inversion, callers and
// callees, folded stacks and the flame graph's escaping.
#include "analysis/samples/context_tree.h"

#include <gtest/gtest.h>

#include <sstream>

#include "analysis/reports/context_output.h"
#include "analysis/reports/flame_graph_svg.h"

namespace dcpi {
namespace {

DcpiContextNode call(uint32_t parent, uint64_t address, uint64_t site, uint64_t calls,
                     uint64_t instructions) {
  DcpiContextNode node{};
  node.parent = parent;
  node.kind = DCPI_CONTEXT_CALL;
  node.image = node.site_image = DCPI_CONTEXTS_NO_IMAGE;
  node.address = address;
  node.call_site = site;
  node.calls = calls;
  node.instructions = node.cycles = instructions;
  return node;
}

// The "gprof problem" of seed 002 §1: work() is called from cheap() 90
// times at 10 instructions a call and from dear() 10 times at 1000: by call
// counts cheap would get 90 % of work's time, by the CCT it gets 8 %.
profiledb::ContextProfile gprof_problem() {
  profiledb::ContextProfile profile;
  DcpiContextNode root{};
  root.parent = DCPI_CONTEXTS_NO_PARENT;
  root.image = root.site_image = DCPI_CONTEXTS_NO_IMAGE;
  root.instructions = root.cycles = 5;
  profile.nodes = {root,
                   call(0, 0x100, 0x10, 1, 20),       // 1 main
                   call(1, 0x200, 0x104, 1, 30),      // 2 main → cheap
                   call(2, 0x400, 0x204, 90, 900),    // 3 cheap → work
                   call(1, 0x300, 0x108, 1, 40),      // 4 main → dear
                   call(4, 0x400, 0x304, 10, 10000),  // 5 dear → work
                   call(1, 0x200, 0x10c, 2, 60)};     // 6 main → cheap, another call site
  DcpiContextNode kernel{};
  kernel.parent = 5;
  kernel.kind = DCPI_CONTEXT_KERNEL;
  kernel.image = kernel.site_image = DCPI_CONTEXTS_NO_IMAGE;
  kernel.instructions = kernel.cycles = 7;
  profile.nodes.push_back(kernel);  // 7: [kernel] under dear → work
  profile.threads = {DcpiContextThread{3, 0, DCPI_CONTEXTS_NO_CPU, 0, 0}};
  return profile;
}

ContextTree tree_of(const profiledb::ContextProfile& profile) {
  ImageResolver resolver(std::vector<std::filesystem::path>{});
  ContextTree tree;
  add_context_profile(tree, profile, resolver, std::nullopt);
  compute_totals(tree);
  return tree;
}

const ContextTreeNode* child(const ContextTree& tree, uint32_t parent, const std::string& name) {
  for (uint32_t c : tree.nodes[parent].children)
    if (tree.nodes[c].name == name) return &tree.nodes[c];
  return nullptr;
}

TEST(ContextTree, InclusiveIsExclusivePlusChildrenAndTotalsAreExact) {
  const ContextTree tree = tree_of(gprof_problem());
  uint64_t exclusive = 0;
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    exclusive += tree.nodes[i].self.instructions;
    uint64_t sum = tree.nodes[i].self.instructions;
    for (uint32_t c : tree.nodes[i].children) sum += tree.nodes[c].total.instructions;
    EXPECT_EQ(tree.nodes[i].total.instructions, sum) << tree.nodes[i].name;
  }
  EXPECT_EQ(tree.nodes[0].total.instructions, exclusive);
  EXPECT_EQ(exclusive, 5u + 20 + 30 + 900 + 40 + 10000 + 60 + 7);
  ASSERT_EQ(tree.nodes[0].children.size(), 1u);
  EXPECT_EQ(tree.nodes[tree.nodes[0].children[0]].name, "pid 3");
}

TEST(ContextTree, CallSitesOfOneProcedureMerge) {
  const ContextTree tree = tree_of(gprof_problem());
  const uint32_t thread = tree.nodes[0].children[0];
  const ContextTreeNode* main = child(tree, thread, "0x100");
  ASSERT_NE(main, nullptr);
  const ContextTreeNode* cheap = child(tree, main - tree.nodes.data(), "0x200");
  ASSERT_NE(cheap, nullptr);
  EXPECT_EQ(cheap->self.calls, 3u);
  EXPECT_EQ(cheap->total.instructions, 30u + 900 + 60);
}

TEST(ContextTree, CallersGetTheirTrueShareNotTheirShareOfCalls) {
  const ContextTree tree = tree_of(gprof_problem());
  const std::vector<ContextNeighbour> callers = context_callers(tree, "0x400");
  ASSERT_EQ(callers.size(), 2u);
  EXPECT_EQ(callers[0].name, "0x300");  // dear first: most of work's cost
  EXPECT_EQ(callers[0].costs.instructions, 10000u + 7);
  EXPECT_EQ(callers[0].costs.calls, 10u);
  EXPECT_EQ(callers[1].name, "0x200");
  EXPECT_EQ(callers[1].costs.instructions, 900u);
  EXPECT_EQ(callers[1].costs.calls, 90u);
  const std::vector<ContextNeighbour> callees = context_callees(tree, "0x100");
  ASSERT_EQ(callees.size(), 2u);
  EXPECT_EQ(callees[0].name, "0x300");
  EXPECT_EQ(callees[0].costs.instructions, 40u + 10000 + 7);
}

TEST(ContextTree, BottomUpStartsFromExclusiveCosts) {
  const ContextTree inverted = invert_context_tree(tree_of(gprof_problem()));
  const ContextTreeNode* work = child(inverted, 0, "0x400");
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(work->total.instructions, 10900u);
  EXPECT_EQ(work->total.calls, 100u);
  const ContextTreeNode* via_dear = child(inverted, work - inverted.nodes.data(), "0x300");
  ASSERT_NE(via_dear, nullptr);
  EXPECT_EQ(via_dear->total.instructions, 10000u);
  EXPECT_EQ(inverted.nodes[0].total.instructions, 5u + 20 + 30 + 900 + 40 + 10000 + 60 + 7);
}

TEST(ContextTree, FoldedStacksAddUpToTheTotal) {
  const ContextTree tree = tree_of(gprof_problem());
  std::ostringstream folded;
  print_folded(folded, tree, ContextMetric::kInstructions);
  EXPECT_NE(folded.str().find("pid 3;0x100;0x300;0x400 10000\n"), std::string::npos);
  EXPECT_NE(folded.str().find("pid 3;0x100;0x300;0x400;[kernel] 7\n"), std::string::npos);
  uint64_t sum = 0;
  std::istringstream lines(folded.str());
  for (std::string line; std::getline(lines, line);)
    sum += std::stoull(line.substr(line.rfind(' ')));
  EXPECT_EQ(sum, tree.nodes[0].total.instructions);
}

TEST(ContextTree, TheFlameGraphEscapesNames) {
  ContextTree tree = tree_of(gprof_problem());
  tree.nodes[2].name = "operator<<(std::ostream&, \"x\")";
  std::ostringstream svg;
  write_flame_graph_svg(svg, tree, ContextMetric::kInstructions, "t<1>");
  EXPECT_EQ(svg.str().find("operator<<"), std::string::npos);
  EXPECT_NE(svg.str().find("operator&lt;&lt;(std::ostream&amp;, &quot;x&quot;)"),
            std::string::npos);
  EXPECT_NE(svg.str().find("t&lt;1&gt;"), std::string::npos);
  EXPECT_EQ(svg.str().rfind("</svg>\n"), svg.str().size() - 7);
}

}  // namespace
}  // namespace dcpi
