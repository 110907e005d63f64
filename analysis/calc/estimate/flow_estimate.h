// A globally flow-consistent frequency estimate, beside DCPI's local one
// (§6.1.3-6.1.4 estimate each frequency class from its own samples and
// propagate along single flow constraints). Here every block's own samples
// give an observed frequency w_b (the §6.1.3 estimator applied to the block
// alone) and the estimate is the flow f that satisfies conservation on
// every block — in = out, on the CFG augmented with virtual entry and exit
// edges (exit_augmentation.h) — and is most likely given the samples:
//
//     minimise  Σ_b  cost_b(f_b − w_b)
//
// where cost_b is the sampling error's negative log-likelihood, (M_b·d)² /
// (2·S_b) for a deviation d: M_b is Σ M_i over the issue points w_b was
// estimated from (procedure_analysis.cpp; the whole best case for a block
// of few samples), so M_b·d is the deviation in their samples, and S_b
// (≈ M_b·w_b, at least 1) their Poisson variance: a dynamic stall's samples
// elsewhere in the block do not widen it. It is a weighted least squares, made piecewise
// linear (half-sigma steps) for the flow solver and linear beyond 4 sigma,
// so one wild block cannot drag the rest (Huber's loss). A two-instruction
// block whose few samples are noise is overruled by the long blocks it must
// agree with. This is minimum-cost-flow profile inference as in LLVM's
// SampleProfileInference ("profi": He, Zhang, Panchenko, Lin, Li, Kimmel,
// Lavaee, Ghattas, "Profile Inference Revisited", CGO 2022), reduced to its
// core: no block-count rebalancing heuristics, real-valued flows.
#pragma once
#include <optional>
#include <span>
#include <vector>

#include "analysis/calc/estimate/cfg.h"
#include "analysis/calc/estimate/exit_augmentation.h"

namespace dcpi::calc {

struct BlockObservation {
  double frequency = 0;  // w_b: executions per sampling period from the block's own samples
  double weight =
      0;  // M_b: samples per unit of frequency (the cycles of the issue points w_b rests on)
  double samples = 0;  // S_b: the variance of M_b·w_b, those issue points' samples (≈ M_b·w_b)
};

struct FlowEstimate {
  std::vector<double> block_frequency;  // f_b, per block
  std::vector<double> edge_frequency;   // per CFG edge
};

// Nothing for a CFG with missing edges: conservation does not hold there
// (an unknown jump's flow goes somewhere), so the local estimate stays.
std::optional<FlowEstimate> estimate_flow(const ControlFlowGraph& cfg,
                                          const ExitAugmentation& augmentation,
                                          std::span<const BlockObservation> observations);

}  // namespace dcpi::calc
