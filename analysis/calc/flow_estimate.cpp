#include "analysis/calc/flow_estimate.h"

#include "analysis/calc/min_cost_flow.h"

namespace dcpi::calc {

// The network: block b is an arc b_in → b_out. Its observation is placed on
// that arc beforehand (b_out supplies w_b, b_in demands w_b); more flow
// costs `weight` per unit on a parallel arc b_in → b_out, less flow costs
// `weight` per unit on b_out → b_in (capacity w_b: cancelling the placed
// flow). CFG edges and virtual edges cost nothing; a return arc from the
// virtual end to the virtual start closes the circulation, so entry and exit
// counts are whatever conservation needs.
std::optional<FlowEstimate> estimate_flow(const ControlFlowGraph& cfg,
                                          const ExitAugmentation& augmentation,
                                          std::span<const BlockObservation> observations) {
  if (cfg.missing_edges()) return std::nullopt;
  const size_t n = cfg.blocks().size();
  const size_t start = 2 * n, end = 2 * n + 1;
  auto in = [](BlockId b) { return 2 * b; };
  auto out = [](BlockId b) { return 2 * b + 1; };
  MinCostFlow network(2 * n + 2);
  std::vector<size_t> more(n), less(n), edge_arcs;
  for (BlockId b = 0; b < n; ++b) {
    const double w = std::max(0.0, observations[b].frequency);
    const double cost = std::max(observations[b].weight, 1e-6);
    network.add_supply(out(b), w);
    network.add_supply(in(b), -w);
    more[b] = network.add_arc(in(b), out(b), MinCostFlow::kUnbounded, cost);
    less[b] = network.add_arc(out(b), in(b), w, cost);
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
  for (BlockId b = 0; b < n; ++b)
    result.block_frequency.push_back(std::max(0.0, observations[b].frequency) +
                                     network.flow(more[b]) - network.flow(less[b]));
  for (size_t arc : edge_arcs) result.edge_frequency.push_back(network.flow(arc));
  return result;
}

}  // namespace dcpi::calc
