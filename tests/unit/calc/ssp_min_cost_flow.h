// The flow estimate's first solver (issue 31 replaced it with LEMON's
// NetworkSimplex, analysis/calc/estimate/min_cost_flow.h): successive
// shortest paths with SPFA on the residual network, in doubles. Slow but
// simple; kept only as min_cost_flow_test.cpp's oracle for the optimal cost.
#pragma once
#include <cstddef>
#include <vector>

namespace dcpi::calc::testing {

class SspMinCostFlow {
 public:
  explicit SspMinCostFlow(size_t nodes) : out_(nodes), supply_(nodes, 0.0) {}

  size_t add_arc(size_t from, size_t to, double capacity, double cost);  // cost >= 0
  void add_supply(size_t node, double amount) { supply_[node] += amount; }
  bool solve();
  double flow(size_t arc) const { return arcs_[2 * arc].flow; }
  double total_cost() const;

  static constexpr double kUnbounded = 1e300;

 private:
  struct Arc {
    size_t to = 0;
    double capacity = 0;
    double cost = 0;
    double flow = 0;
    double residual() const { return capacity - flow; }
  };
  // Arc 2k is the k-th added arc, 2k+1 its reverse (capacity 0, cost −cost).
  size_t add_residual_pair(size_t from, size_t to, double capacity, double cost);
  bool shortest_path(size_t source, size_t sink, std::vector<size_t>& via) const;

  std::vector<Arc> arcs_;
  std::vector<std::vector<size_t>> out_;
  std::vector<double> supply_;
  size_t added_ = 0;  // arcs added by add_arc (the super source's come after)
};

}  // namespace dcpi::calc::testing
