// The first phase of dcpicalc for one procedure (DCPI §6.1): schedule every
// block with the processor model, group blocks and edges into frequency
// classes, estimate each class's frequency from its samples, propagate
// along flow constraints, and rate the confidence of every estimate. The
// culprit phase (§6.3) reads the result.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "analysis/calc/estimate/cfg.h"
#include "analysis/calc/estimate/cycle_equivalence.h"
#include "analysis/calc/estimate/exit_augmentation.h"
#include "analysis/calc/estimate/flow_estimate.h"
#include "analysis/calc/estimate/frequency_estimate.h"
#include "analysis/calc/estimate/local_propagation.h"
#include "analysis/calc/model/processor_model.h"

namespace dcpi::calc {

// CYCLES samples per instruction address.
using SamplesByAddress = std::unordered_map<uint64_t, double>;

// Which frequencies the analysis reports: DCPI's (§6.1.3 per class, §6.1.4
// local propagation) or the flow-consistent one of flow_estimate.h (which
// keeps DCPI's where the CFG has missing edges).
enum class FrequencyEstimator : uint8_t { kDcpi, kFlow };
std::string_view to_string(FrequencyEstimator estimator);  // "dcpi", "flow"
std::optional<FrequencyEstimator> parse_estimator(std::string_view name);
// What the reports use unless told: the flow estimate, at least as accurate
// as DCPI's on every bundled workload on both machines (bench_calc_accuracy,
// bench_ev5: it fixes the classes of one or two stalled issue points §6.2
// blames for the >45 % bucket) at under 2x its time (bench-calc).
inline constexpr FrequencyEstimator kDefaultEstimator = FrequencyEstimator::kFlow;

// The CYCLES samples of each block's instructions, in one array by block
// (a std::vector per block was an allocation per block: issue 31).
class BlockSamples {
 public:
  BlockSamples() = default;
  BlockSamples(const ControlFlowGraph& cfg, const SamplesByAddress& samples);
  std::span<const double> operator[](BlockId b) const {
    return std::span<const double>(values_).subspan(first_[b], first_[b + 1] - first_[b]);
  }
  size_t size() const { return first_.size() - 1; }  // blocks

 private:
  std::vector<double> values_;
  std::vector<size_t> first_{0};  // per block, and one past the last: its first value's index
};

struct ProcedureAnalysis {
  ControlFlowGraph cfg;
  ExitAugmentation augmentation;
  FrequencyClasses classes;
  std::vector<BlockSchedule> schedules;                 // per block
  BlockSamples samples;                                 // per block, per instruction
  std::vector<ClassFrequencyEstimate> class_estimates;  // from samples, per class
  ClassFrequencies frequencies;                         // after propagation, per class
  bool flow_applied = false;  // `frequencies` are flow_estimate.h's (kFlow, no missing edges)
  // The instructions PALcode returns to after a CALL_PAL: no issue points,
  // calc's `P` (cfg.h palcode_landings).
  std::vector<PalcodeLanding> palcode_landings;

  std::optional<double> block_frequency(BlockId b) const {
    return frequencies.frequency[classes.block_class[b]];
  }
  std::optional<double> edge_frequency(EdgeId e) const {
    return frequencies.frequency[classes.edge_class[e]];
  }
  Confidence block_confidence(BlockId b) const {
    return frequencies.confidence[classes.block_class[b]];
  }
  Confidence edge_confidence(EdgeId e) const {
    return frequencies.confidence[classes.edge_class[e]];
  }
  // C_i = S_i / F: average cycles at the head of the issue queue (the "CPI"
  // column of Figure 2), when the block's frequency is known and non-zero.
  std::optional<double> cycles_per_execution(BlockId b, size_t instruction) const;
};

ProcedureAnalysis analyze_procedure(ControlFlowGraph cfg, const ProcessorModel& model,
                                    const SamplesByAddress& samples, EstimatorOptions options = {},
                                    FrequencyEstimator estimator = FrequencyEstimator::kDcpi);

}  // namespace dcpi::calc
