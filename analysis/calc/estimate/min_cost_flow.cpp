#include "analysis/calc/estimate/min_cost_flow.h"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

namespace dcpi::calc {

namespace {

using Graph = lemon::SmartDigraph;
using Simplex = lemon::NetworkSimplex<Graph, int64_t, int64_t>;

// The scaled problem's ranges. NetworkSimplex's artificial arcs cost
// 2^62 (max/2 + 1) and a node's potential is at most one of them plus a
// tree path of real costs, so real costs are scaled for paths to stay
// below 2^57; flows likewise for any arc's flow (at most every finite
// capacity plus every supply) to stay below 2^57. Within those bounds the
// largest value gets 2^40 units: a resolution of ~1e-12 of it.
constexpr double kUnits = 0x1p40;
constexpr double kRange = 0x1p57;

struct Scales {
  double flow = 1;  // units per unit of flow
  double cost = 1;  // units per unit of cost
};

// The graph, its maps and the solver, kept per thread from one procedure to
// the next: NetworkSimplex's reset() re-reads a changed graph, and its
// vectors keep their storage, so a whole image's many small networks do not
// allocate and zero-fill it again each time (issue 31: that set-up was
// ~30 % of the flow pass on palcode.elf's small procedures).
struct Workspace {
  Graph graph;
  Graph::ArcMap<int64_t> capacity{graph}, cost{graph};
  Graph::NodeMap<int64_t> supply{graph};
  Simplex simplex{graph};
};

Workspace& workspace() {
  thread_local Workspace w;
  return w;
}

bool bounded(double capacity) { return capacity < MinCostFlow::kUnbounded; }

int64_t scaled(double value, double scale) { return std::llround(value * scale); }

// A power of two at most `limit`: inputs that are small integers or binary
// fractions stay exact.
double power_of_two_below(double limit) { return std::exp2(std::floor(std::log2(limit))); }

}  // namespace

size_t MinCostFlow::add_arc(size_t from, size_t to, double capacity, double cost) {
  arcs_.push_back({.from = from, .to = to, .capacity = capacity, .cost = cost});
  return arcs_.size() - 1;
}

double MinCostFlow::total_cost() const {
  double sum = 0;
  for (size_t a = 0; a < arcs_.size(); ++a) sum += arcs_[a].cost * flow_[a];
  return sum;
}

bool MinCostFlow::solve() {
  double largest_flow = 0, flow_bound = 0, largest_cost = 0;
  for (double s : supply_)
    largest_flow = std::max(largest_flow, std::abs(s)), flow_bound += std::abs(s);
  for (const Arc& a : arcs_) {
    largest_cost = std::max(largest_cost, std::abs(a.cost));
    if (bounded(a.capacity))
      largest_flow = std::max(largest_flow, a.capacity), flow_bound += a.capacity;
  }
  Scales scale;
  if (largest_flow > 0)
    scale.flow = power_of_two_below(std::min(kUnits / largest_flow, kRange / flow_bound));
  if (largest_cost > 0)
    scale.cost = power_of_two_below(
        std::min(kUnits, kRange / static_cast<double>(supply_.size() + 1)) / largest_cost);

  Workspace& w = workspace();
  Graph& graph = w.graph;
  graph.clear();
  graph.reserveNode(static_cast<int>(supply_.size()));
  graph.reserveArc(static_cast<int>(arcs_.size()));
  for (size_t n = 0; n < supply_.size(); ++n) graph.addNode();
  for (const Arc& a : arcs_)
    graph.addArc(graph.nodeFromId(static_cast<int>(a.from)),
                 graph.nodeFromId(static_cast<int>(a.to)));
  Graph::ArcMap<int64_t>& capacity = w.capacity;
  Graph::ArcMap<int64_t>& cost = w.cost;
  Graph::NodeMap<int64_t>& supply = w.supply;
  Simplex& simplex = w.simplex;
  simplex.reset();
  for (size_t i = 0; i < arcs_.size(); ++i) {
    const Graph::Arc arc = graph.arcFromId(static_cast<int>(i));
    capacity[arc] =
        bounded(arcs_[i].capacity) ? scaled(arcs_[i].capacity, scale.flow) : simplex.INF;
    cost[arc] = scaled(arcs_[i].cost, scale.cost);
  }
  // Each supply rounds on its own; NetworkSimplex needs them to balance
  // exactly, so the residue (half a unit per node at most) goes to the
  // largest demand.
  int64_t balance = 0;
  Graph::Node largest_demand = lemon::INVALID;
  for (size_t n = 0; n < supply_.size(); ++n) {
    const Graph::Node node = graph.nodeFromId(static_cast<int>(n));
    supply[node] = scaled(supply_[n], scale.flow);
    balance += supply[node];
    if (largest_demand == lemon::INVALID || supply[node] < supply[largest_demand])
      largest_demand = node;
  }
  if (std::abs(balance) > static_cast<int64_t>(supply_.size())) return false;  // unbalanced
  if (largest_demand != lemon::INVALID) supply[largest_demand] -= balance;

  simplex.upperMap(capacity).costMap(cost).supplyMap(supply);
  if (simplex.run() != Simplex::OPTIMAL) return false;
  // A saturated arc carries exactly its real capacity, as in a real-valued
  // solver: a block whose observation is cancelled in full gets 0, not the
  // rounding residue of its capacities.
  flow_.resize(arcs_.size());
  for (size_t i = 0; i < arcs_.size(); ++i) {
    const Graph::Arc arc = graph.arcFromId(static_cast<int>(i));
    const int64_t units = simplex.flow(arc);
    flow_[i] = units == capacity[arc] ? arcs_[i].capacity : static_cast<double>(units) / scale.flow;
  }
  return true;
}

}  // namespace dcpi::calc
