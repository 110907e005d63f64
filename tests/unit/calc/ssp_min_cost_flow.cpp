#include "ssp_min_cost_flow.h"

#include <algorithm>
#include <deque>
#include <limits>

namespace dcpi::calc::testing {

namespace {
constexpr double kEpsilon = 1e-9;
constexpr size_t kNoArc = std::numeric_limits<size_t>::max();
}  // namespace

size_t SspMinCostFlow::add_residual_pair(size_t from, size_t to, double capacity, double cost) {
  arcs_.push_back({.to = to, .capacity = capacity, .cost = cost});
  out_[from].push_back(arcs_.size() - 1);
  arcs_.push_back({.to = from, .capacity = 0, .cost = -cost});
  out_[to].push_back(arcs_.size() - 1);
  return arcs_.size() / 2 - 1;
}

size_t SspMinCostFlow::add_arc(size_t from, size_t to, double capacity, double cost) {
  ++added_;
  return add_residual_pair(from, to, capacity, cost);
}

double SspMinCostFlow::total_cost() const {
  double sum = 0;
  for (size_t a = 0; a < added_; ++a) sum += arcs_[2 * a].cost * arcs_[2 * a].flow;
  return sum;
}

// SPFA: Bellman-Ford with a queue. The residual network has negative arcs
// (reverses) but no negative cycle, because every augmentation follows a
// shortest path. `via[n]` is the arc that reaches node n.
bool SspMinCostFlow::shortest_path(size_t source, size_t sink, std::vector<size_t>& via) const {
  const size_t n = out_.size();
  std::vector<double> distance(n, std::numeric_limits<double>::infinity());
  std::vector<bool> queued(n, false);
  via.assign(n, kNoArc);
  std::deque<size_t> work{source};
  distance[source] = 0;
  queued[source] = true;
  while (!work.empty()) {
    const size_t u = work.front();
    work.pop_front();
    queued[u] = false;
    for (size_t a : out_[u]) {
      const Arc& arc = arcs_[a];
      if (arc.residual() <= kEpsilon) continue;
      const double d = distance[u] + arc.cost;
      if (d < distance[arc.to] - 1e-12) {
        distance[arc.to] = d;
        via[arc.to] = a;
        if (!queued[arc.to]) work.push_back(arc.to), queued[arc.to] = true;
      }
    }
  }
  return via[sink] != kNoArc;
}

bool SspMinCostFlow::solve() {
  // A super source feeding every supply and a super sink draining every demand.
  const size_t source = out_.size(), sink = out_.size() + 1;
  out_.resize(out_.size() + 2);
  double total = 0;
  for (size_t node = 0; node < supply_.size(); ++node) {
    if (supply_[node] > kEpsilon)
      add_residual_pair(source, node, supply_[node], 0), total += supply_[node];
    if (supply_[node] < -kEpsilon) add_residual_pair(node, sink, -supply_[node], 0);
  }
  double sent = 0;
  std::vector<size_t> via;
  while (sent < total - kEpsilon * (1 + total) && shortest_path(source, sink, via)) {
    double push = std::numeric_limits<double>::infinity();
    for (size_t v = sink; v != source; v = arcs_[via[v] ^ 1].to)
      push = std::min(push, arcs_[via[v]].residual());
    for (size_t v = sink; v != source; v = arcs_[via[v] ^ 1].to) {
      arcs_[via[v]].flow += push;
      arcs_[via[v] ^ 1].flow -= push;
    }
    sent += push;
  }
  return sent >= total - 1e-6 * (1 + total);
}

}  // namespace dcpi::calc::testing
