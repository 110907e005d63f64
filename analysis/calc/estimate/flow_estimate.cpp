#include "analysis/calc/estimate/flow_estimate.h"

#include <algorithm>
#include <cmath>

#include "analysis/calc/estimate/min_cost_flow.h"

namespace dcpi::calc {

namespace {

constexpr int kSteps = 8;  // half-sigma steps of the quadratic part: 4 sigma

// The convex cost of moving f_b away from w_b, as arcs of increasing cost:
// step k (deviations in [kδ, (k+1)δ), δ = σ/2, σ = √S_b / M_b) costs the
// quadratic's slope in its middle, M_b²(k + ½)δ / S_b, per unit; the last
// step is unbounded. `room` caps the total (a frequency cannot go below 0).
// The arcs get consecutive ids (issue 31: a vector of them per block and
// direction was most of the flow pass's allocations).
struct ArcRange {
  size_t first = 0, count = 0;
};

ArcRange add_cost_steps(MinCostFlow& network, size_t from, size_t to, const BlockObservation& o,
                        double room) {
  const double samples = std::max(o.samples, 1.0);
  const double weight = std::max(o.weight, 1e-6);
  const double delta = std::sqrt(samples) / weight / 2;
  ArcRange arcs;
  for (int k = 0; k <= kSteps && room > 0; ++k) {
    const double capacity = k == kSteps ? room : std::min(delta, room);
    const size_t arc =
        network.add_arc(from, to, capacity, weight * weight * (k + 0.5) * delta / samples);
    if (arcs.count++ == 0) arcs.first = arc;
    room -= capacity;
  }
  return arcs;
}

double total_flow(const MinCostFlow& network, ArcRange arcs) {
  double sum = 0;
  for (size_t a = arcs.first; a < arcs.first + arcs.count; ++a) sum += network.flow(a);
  return sum;
}

}  // namespace

// The network: block b is an arc b_in → b_out. Its observation is placed on
// that arc beforehand (b_out supplies w_b, b_in demands w_b); more flow
// costs on arcs b_in → b_out, less flow on arcs b_out → b_in (at most w_b:
// cancelling the placed flow), both by add_cost_steps. CFG edges and virtual
// edges cost nothing; a return arc from the virtual end to the virtual start
// closes the circulation, so entry and exit counts are whatever
// conservation needs.
std::optional<FlowEstimate> estimate_flow(const ControlFlowGraph& cfg,
                                          const ExitAugmentation& augmentation,
                                          std::span<const BlockObservation> observations) {
  if (cfg.missing_edges()) return std::nullopt;
  const size_t n = cfg.blocks().size();
  const size_t start = 2 * n, end = 2 * n + 1;
  auto in = [](BlockId b) { return 2 * b; };
  auto out = [](BlockId b) { return 2 * b + 1; };
  MinCostFlow network(2 * n + 2);
  network.reserve_arcs(2 * (kSteps + 1) * n + cfg.edges().size() +
                       augmentation.from_virtual_start.size() + augmentation.to_virtual_end.size() +
                       1);
  std::vector<ArcRange> more(n), less(n);
  std::vector<size_t> edge_arcs;
  edge_arcs.reserve(cfg.edges().size());
  for (BlockId b = 0; b < n; ++b) {
    const double w = std::max(0.0, observations[b].frequency);
    network.add_supply(out(b), w);
    network.add_supply(in(b), -w);
    more[b] = add_cost_steps(network, in(b), out(b), observations[b], MinCostFlow::kUnbounded);
    less[b] = add_cost_steps(network, out(b), in(b), observations[b], w);
  }
  for (const CfgEdge& e : cfg.edges())
    edge_arcs.push_back(network.add_arc(out(e.from), in(e.to), MinCostFlow::kUnbounded, 0));
  for (BlockId b : augmentation.from_virtual_start)
    network.add_arc(start, in(b), MinCostFlow::kUnbounded, 0);
  for (BlockId b : augmentation.to_virtual_end)
    network.add_arc(out(b), end, MinCostFlow::kUnbounded, 0);
  network.add_arc(end, start, MinCostFlow::kUnbounded, 0);
  if (!network.solve()) return std::nullopt;

  FlowEstimate result;
  result.block_frequency.reserve(n);
  result.edge_frequency.reserve(edge_arcs.size());
  for (BlockId b = 0; b < n; ++b)
    result.block_frequency.push_back(std::max(0.0, observations[b].frequency) +
                                     total_flow(network, more[b]) - total_flow(network, less[b]));
  for (size_t arc : edge_arcs) result.edge_frequency.push_back(network.flow(arc));
  return result;
}

}  // namespace dcpi::calc
