// LEMON's NetworkSimplex behind min_cost_flow.h against the solver it
// replaced (ssp_min_cost_flow.h, successive shortest paths in doubles): the
// same optimal cost on the networks the flow estimate builds and on random
// capacitated ones. Optima need not be unique (ties), their cost is.
#include "analysis/calc/estimate/min_cost_flow.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "ssp_min_cost_flow.h"

namespace dcpi::calc {
namespace {

using testing::SspMinCostFlow;

struct Arc {
  size_t from, to;
  double capacity, cost;
};
struct Network {
  size_t nodes = 0;
  std::vector<Arc> arcs;
  std::vector<double> supply;
};

template <typename Solver>
std::optional<double> optimal_cost(const Network& net) {
  Solver solver(net.nodes);
  for (const Arc& a : net.arcs)
    solver.add_arc(a.from, a.to, a.capacity >= 1e300 ? Solver::kUnbounded : a.capacity, a.cost);
  for (size_t n = 0; n < net.nodes; ++n) solver.add_supply(n, net.supply[n]);
  if (!solver.solve()) return std::nullopt;
  return solver.total_cost();
}

void expect_same_cost(const Network& net) {
  const auto lemon = optimal_cost<MinCostFlow>(net);
  const auto oracle = optimal_cost<SspMinCostFlow>(net);
  ASSERT_EQ(lemon.has_value(), oracle.has_value());
  if (oracle) {
    EXPECT_NEAR(*lemon, *oracle, 1e-8 * (1 + std::abs(*oracle)));
  }
}

// A procedure-like CFG of n blocks (a chain with random forward branches
// and back edges, an entry and an exit) in flow_estimate.cpp's shape: block
// b is in(b) → out(b), its observation w_b pre-placed, nine convex cost
// steps for more flow and nine (capped at w_b) for less, free CFG edges and
// a free return arc from the end to the start.
Network profile_network(std::mt19937_64& random, size_t n, double scale) {
  Network net{.nodes = 2 * n + 2, .supply = std::vector<double>(2 * n + 2, 0.0)};
  const size_t start = 2 * n, end = 2 * n + 1;
  std::uniform_real_distribution<double> unit(0, 1);
  for (size_t b = 0; b < n; ++b) {
    const double w = unit(random) < 0.1 ? 0 : scale * unit(random);
    const double samples = std::max(1.0, w * 10 * unit(random));
    const double weight = 1 + std::floor(30 * unit(random));
    const double delta = std::sqrt(samples) / weight / 2;
    net.supply[2 * b + 1] += w, net.supply[2 * b] -= w;
    for (int direction = 0; direction < 2; ++direction) {
      double room = direction == 0 ? 1e300 : w;
      for (int k = 0; k <= 8 && room > 0; ++k) {
        const double capacity = k == 8 ? room : std::min(delta, room);
        const double cost = weight * weight * (k + 0.5) * delta / samples;
        net.arcs.push_back(direction == 0 ? Arc{2 * b, 2 * b + 1, capacity, cost}
                                          : Arc{2 * b + 1, 2 * b, capacity, cost});
        room -= capacity;
      }
    }
    if (b + 1 < n) net.arcs.push_back({2 * b + 1, 2 * (b + 1), 1e300, 0});
    if (unit(random) < 0.3) {
      const size_t to = std::uniform_int_distribution<size_t>(0, n - 1)(random);
      net.arcs.push_back({2 * b + 1, 2 * to, 1e300, 0});
    }
  }
  net.arcs.push_back({start, 0, 1e300, 0});
  net.arcs.push_back({2 * (n - 1) + 1, end, 1e300, 0});
  net.arcs.push_back({end, start, 1e300, 0});
  return net;
}

TEST(MinCostFlowOracle, ProfileNetworksCostTheSame) {
  std::mt19937_64 random(31);
  for (size_t n : {1, 2, 5, 20, 80})
    for (double scale : {1.0, 100.0, 1e5}) {
      SCOPED_TRACE(::testing::Message() << n << " blocks, scale " << scale);
      expect_same_cost(profile_network(random, n, scale));
    }
}

// Random capacitated networks: a supply at node 0 and a demand at the last
// node, sometimes more than the arcs can carry (both must say so).
TEST(MinCostFlowOracle, RandomCapacitatedNetworksCostTheSame) {
  std::mt19937_64 random(1997);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int trial = 0; trial < 40; ++trial) {
    const size_t nodes = 3 + trial % 12;
    Network net{.nodes = nodes, .supply = std::vector<double>(nodes, 0.0)};
    for (size_t a = 0; a < 4 * nodes; ++a) {
      const size_t from = std::uniform_int_distribution<size_t>(0, nodes - 1)(random);
      const size_t to = std::uniform_int_distribution<size_t>(0, nodes - 1)(random);
      if (from != to) net.arcs.push_back({from, to, 10 * unit(random), 5 * unit(random)});
    }
    const double amount = 15 * unit(random);
    net.supply[0] = amount, net.supply[nodes - 1] = -amount;
    SCOPED_TRACE(trial);
    expect_same_cost(net);
  }
}

TEST(MinCostFlow, RefusesSuppliesThatDoNotBalance) {
  MinCostFlow network(2);
  network.add_arc(0, 1, MinCostFlow::kUnbounded, 1);
  network.add_supply(0, 3);
  network.add_supply(1, -2);
  EXPECT_FALSE(network.solve());
}

}  // namespace
}  // namespace dcpi::calc
