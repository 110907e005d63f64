// Cross-checks the bracket-list algorithm against the definition on many
// random CFGs. In the augmented graph (every block on an entry→exit path,
// closed by end → start) the underlying undirected graph is 2-edge-connected,
// and two of its edges are cycle equivalent iff removing both disconnects it
// (Johnson, Pearson, Pingali 1994). Blocks are their in→out edges.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "analysis/calc/estimate/cycle_equivalence.h"
#include "copy_loop_fixture.h"

namespace dcpi::calc {
namespace {

struct Undirected {
  size_t nodes = 0;
  std::vector<std::pair<size_t, size_t>> edges;
};

bool connected_without(const Undirected& g, size_t skip_a, size_t skip_b) {
  std::vector<size_t> parent(g.nodes);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  size_t components = g.nodes;
  for (size_t e = 0; e < g.edges.size(); ++e) {
    if (e == skip_a || e == skip_b) continue;
    const size_t a = find(g.edges[e].first), b = find(g.edges[e].second);
    if (a != b) {
      parent[a] = b;
      --components;
    }
  }
  return components == 1;
}

TEST(CycleEquivalenceBruteForce, MatchesTheCutPairDefinitionOnRandomCfgs) {
  std::mt19937 rng(20240607);
  for (int trial = 0; trial < 2000; ++trial) {
    const size_t n = 1 + rng() % 12;
    ControlFlowGraph cfg;
    for (size_t i = 0; i < n; ++i) {
      BasicBlock block = testing::simple_block(0x1000 + 0x100 * i, 1);
      block.leaves_procedure = rng() % 4 == 0;
      cfg.add_block(std::move(block));
    }
    const size_t edge_count = rng() % (2 * n + 1);
    for (size_t k = 0; k < edge_count; ++k) cfg.add_edge(rng() % n, rng() % n);

    const ExitAugmentation aug = augment_for_exit(cfg);
    const FrequencyClasses classes = frequency_classes(cfg, aug);

    // The same augmented graph, built independently of the implementation.
    Undirected g{.nodes = 2 + 2 * n};
    std::vector<ClassId> item_class;
    for (size_t b = 0; b < n; ++b) {
      g.edges.push_back({2 + 2 * b, 3 + 2 * b});
      item_class.push_back(classes.block_class[b]);
    }
    for (EdgeId e = 0; e < cfg.edges().size(); ++e) {
      g.edges.push_back({3 + 2 * cfg.edge(e).from, 2 + 2 * cfg.edge(e).to});
      item_class.push_back(classes.edge_class[e]);
    }
    for (BlockId b : aug.from_virtual_start) g.edges.push_back({0, 2 + 2 * b});
    for (BlockId b : aug.to_virtual_end) g.edges.push_back({3 + 2 * b, 1});
    g.edges.push_back({1, 0});
    ASSERT_TRUE(connected_without(g, SIZE_MAX, SIZE_MAX)) << "trial " << trial;

    for (size_t a = 0; a < item_class.size(); ++a) {
      ASSERT_TRUE(connected_without(g, a, SIZE_MAX))
          << "trial " << trial << ": item " << a << " is a bridge; augmentation incomplete";
      for (size_t b = a + 1; b < item_class.size(); ++b) {
        const bool equivalent = !connected_without(g, a, b);
        ASSERT_EQ(item_class[a] == item_class[b], equivalent)
            << "trial " << trial << ", items " << a << " and " << b << " of " << item_class.size()
            << " (blocks first, then edges), " << n << " blocks";
      }
    }
  }
}

}  // namespace
}  // namespace dcpi::calc
