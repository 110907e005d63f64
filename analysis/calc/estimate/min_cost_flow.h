// Minimum-cost flow for flow_estimate.h, solved by LEMON's NetworkSimplex
// (Debian's liblemon-dev, LEMON 1.3.1; issue 31: our own successive
// shortest paths took 20-60x DCPI's whole analysis). The interface takes
// real (double) capacities, costs and supplies; NetworkSimplex requires
// integers ("All input data ... must be integer", network_simplex.h), so
// solve() scales flows and costs to int64 fixed point, each to ~2^-40 of the
// network's largest value, small enough that no potential or flow can
// overflow (min_cost_flow.cpp). Results are within that resolution of the
// real-valued optimum's cost.
#pragma once
#include <cstddef>
#include <vector>

namespace dcpi::calc {

class MinCostFlow {
 public:
  explicit MinCostFlow(size_t nodes) : supply_(nodes, 0.0) {}

  // Returns the arc's id. `capacity` >= 0 or kUnbounded; `cost` any sign,
  // but no cycle of unbounded arcs may have negative cost.
  size_t add_arc(size_t from, size_t to, double capacity, double cost);
  void reserve_arcs(size_t count) { arcs_.reserve(count); }
  // Positive: the node must send this much; negative: it must receive it.
  // Supplies and demands must balance (their sum is 0).
  void add_supply(size_t node, double amount) { supply_[node] += amount; }
  // Routes every supply to the demands at the least total cost. Returns
  // false if that is impossible (a supply cannot reach a demand, or the
  // supplies do not balance).
  bool solve();
  double flow(size_t arc) const { return flow_[arc]; }
  // Σ cost · flow over the arcs, with the real (unscaled) costs.
  double total_cost() const;

  static constexpr double kUnbounded = 1e300;

 private:
  struct Arc {
    size_t from = 0;
    size_t to = 0;
    double capacity = 0;
    double cost = 0;
  };
  std::vector<Arc> arcs_;
  std::vector<double> supply_;
  std::vector<double> flow_;
};

}  // namespace dcpi::calc
