#include "analysis/calc/estimate/min_cost_flow.h"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

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

// A read-only LEMON map over a vector indexed by the graph's arc or node
// ids. Unlike a Graph::ArcMap it is not registered with the graph, so adding
// an arc does not notify it (issue 31: the notifications were a tenth of
// the flow pass on palcode.elf); NetworkSimplex copies the values in.
template <typename Item>
struct IdMap {
  using Key = Item;
  using Value = int64_t;
  const std::vector<int64_t>& values;
  Value operator[](const Key& item) const { return values[static_cast<size_t>(Graph::id(item))]; }
};

// The graph, the values and the solver, kept per thread from one procedure
// to the next: NetworkSimplex's reset() re-reads a changed graph, and its
// vectors keep their storage, so a whole image's many small networks do not
// allocate and zero-fill it again each time (issue 31: that set-up was
// ~30 % of the flow pass on palcode.elf's small procedures).
struct Workspace {
  Graph graph;
  std::vector<int64_t> capacity, cost;  // by arc id
  std::vector<int64_t> supply;          // by node id
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
  std::vector<int64_t>& capacity = w.capacity;
  std::vector<int64_t>& cost = w.cost;
  std::vector<int64_t>& supply = w.supply;
  Simplex& simplex = w.simplex;
  simplex.reset();
  capacity.resize(arcs_.size());
  cost.resize(arcs_.size());
  for (size_t i = 0; i < arcs_.size(); ++i) {
    capacity[i] = bounded(arcs_[i].capacity) ? scaled(arcs_[i].capacity, scale.flow) : simplex.INF;
    cost[i] = scaled(arcs_[i].cost, scale.cost);
  }
  // Each supply rounds on its own; NetworkSimplex needs them to balance
  // exactly, so the residue (half a unit per node at most) goes to the
  // largest demand.
  supply.resize(supply_.size());
  int64_t balance = 0;
  size_t largest_demand = supply_.size();  // none
  for (size_t n = 0; n < supply_.size(); ++n) {
    supply[n] = scaled(supply_[n], scale.flow);
    balance += supply[n];
    if (largest_demand == supply_.size() || supply[n] < supply[largest_demand]) largest_demand = n;
  }
  if (std::abs(balance) > static_cast<int64_t>(supply_.size())) return false;  // unbalanced
  if (largest_demand != supply_.size()) supply[largest_demand] -= balance;

  simplex.upperMap(IdMap<Graph::Arc>{capacity})
      .costMap(IdMap<Graph::Arc>{cost})
      .supplyMap(IdMap<Graph::Node>{supply});
  if (simplex.run() != Simplex::OPTIMAL) return false;
  // A saturated arc carries exactly its real capacity, as in a real-valued
  // solver: a block whose observation is cancelled in full gets 0, not the
  // rounding residue of its capacities.
  flow_.resize(arcs_.size());
  for (size_t i = 0; i < arcs_.size(); ++i) {
    const int64_t units = simplex.flow(graph.arcFromId(static_cast<int>(i)));
    flow_[i] = units == capacity[i] ? arcs_[i].capacity : static_cast<double>(units) / scale.flow;
  }
  return true;
}

}  // namespace dcpi::calc
