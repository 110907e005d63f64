// A small minimum-cost flow solver (successive shortest paths with
// Bellman-Ford/SPFA on the residual network), for flow_estimate.h. Real
// (double) capacities, non-negative costs; the networks are one procedure's
// CFG, tens to a few thousand arcs.
#pragma once
#include <cstddef>
#include <vector>

namespace dcpi::calc {

class MinCostFlow {
 public:
  explicit MinCostFlow(size_t nodes) : out_(nodes), supply_(nodes, 0.0) {}

  // Returns the arc's id. `capacity` may be kUnbounded; `cost` >= 0.
  size_t add_arc(size_t from, size_t to, double capacity, double cost);
  // Positive: the node must send this much; negative: it must receive it.
  void add_supply(size_t node, double amount) { supply_[node] += amount; }
  // Routes every supply to the demands at the least total cost. Returns
  // false if some supply cannot reach a demand (supplies and demands must
  // balance).
  bool solve();
  double flow(size_t arc) const { return arcs_[2 * arc].flow; }

  static constexpr double kUnbounded = 1e300;

 private:
  struct Arc {
    size_t to = 0;
    double capacity = 0;
    double cost = 0;
    double flow = 0;
    double residual() const { return capacity - flow; }
  };
  // Arc 2k is the k-th added arc, 2k+1 its reverse (capacity 0, cost −cost):
  // pushing along the reverse cancels flow on the forward arc.
  size_t add_residual_pair(size_t from, size_t to, double capacity, double cost);
  bool shortest_path(size_t source, size_t sink, std::vector<size_t>& via) const;

  std::vector<Arc> arcs_;
  std::vector<std::vector<size_t>> out_;
  std::vector<double> supply_;
};

}  // namespace dcpi::calc
