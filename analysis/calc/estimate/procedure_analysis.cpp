#include "analysis/calc/estimate/procedure_analysis.h"

#include <span>

namespace dcpi::calc {

std::string_view to_string(FrequencyEstimator estimator) {
  return estimator == FrequencyEstimator::kFlow ? "flow" : "dcpi";
}

std::optional<FrequencyEstimator> parse_estimator(std::string_view name) {
  if (name == "dcpi") return FrequencyEstimator::kDcpi;
  if (name == "flow") return FrequencyEstimator::kFlow;
  return std::nullopt;
}

namespace {

// Per block, which instructions' samples include PALcode's cycles (the
// analysis's palcode_landings); nothing stored for a procedure without them.
class PalcodeTime {
 public:
  PalcodeTime(const ControlFlowGraph& cfg, const std::vector<PalcodeLanding>& landings) {
    if (landings.empty()) return;
    for (BlockId b = 0; b < cfg.blocks().size(); ++b) {
      first_.push_back(marks_.size());
      marks_.resize(marks_.size() + cfg.block(b).instructions.size(), 0);
    }
    first_.push_back(marks_.size());
    for (const PalcodeLanding& l : landings) marks_[first_[l.block] + l.instruction] = 1;
  }
  std::span<const uint8_t> operator[](BlockId b) const {
    if (marks_.empty()) return {};
    return std::span<const uint8_t>(marks_).subspan(first_[b], first_[b + 1] - first_[b]);
  }

 private:
  std::vector<uint8_t> marks_;
  std::vector<size_t> first_;
};

// flow_estimate.h over the procedure: each block observed alone with the
// §6.1.3 estimator, weighted by the cycles of the issue points it used; the flow then replaces
// every class's frequency (members of a class carry equal flow in any
// circulation: that is what cycle equivalence means).
void apply_flow_estimate(ProcedureAnalysis& result, const EstimatorOptions& options,
                         const PalcodeTime& palcode) {
  std::vector<BlockObservation> observed;
  observed.reserve(result.cfg.blocks().size());
  for (BlockId b = 0; b < result.cfg.blocks().size(); ++b) {
    const ScheduledBlockSamples alone{
        .schedule = &result.schedules[b], .samples = result.samples[b], .palcode_time = palcode[b]};
    const ClassFrequencyEstimate e = estimate_class_frequency({&alone, 1}, options);
    // The observation's Poisson variance is that of the issue points it rests
    // on, w_b / Σ M_used: samples a dynamic stall added elsewhere in the block
    // say nothing about w_b. Counted in (all the block's samples over its
    // best-case cycles), callpal's loop block, 7 issue points and one 26-cycle
    // I-cache stall, had a σ 2x too wide, and two one-issue-point blocks of
    // its class stalled 8 cycles each pulled the flow 9.5 % high (ev5, one
    // run; 1.2 % with this variance).
    double used_cycles = 0;
    for (const IssuePointRatio& r : e.ratios)
      if (r.used) used_cycles += r.cycles;
    const double w = e.frequency.value_or(0);
    if (w > 0 && used_cycles > 0 && e.method != EstimateMethod::kSmallSampleTotal) {
      observed.push_back({.frequency = w, .weight = used_cycles, .samples = w * used_cycles});
      continue;
    }
    // Few samples or none: Σ M_i, the samples one more execution per period
    // is expected to add, and the block's samples as their variance.
    const double cycles = result.schedules[b].best_case_cycles;
    double samples = 0;
    for (size_t i = 0; i < result.samples[b].size(); ++i)
      if (!alone.carries_palcode(i)) samples += result.samples[b][i];
    observed.push_back({.frequency = w, .weight = cycles, .samples = samples});
  }
  const std::optional<FlowEstimate> flow = estimate_flow(result.cfg, result.augmentation, observed);
  if (!flow) return;
  const size_t n = result.classes.class_count;
  std::vector<double> sum(n, 0.0), count(n, 0.0);
  for (BlockId b = 0; b < flow->block_frequency.size(); ++b)
    sum[result.classes.block_class[b]] += flow->block_frequency[b],
        ++count[result.classes.block_class[b]];
  for (EdgeId e = 0; e < flow->edge_frequency.size(); ++e)
    sum[result.classes.edge_class[e]] += flow->edge_frequency[e],
        ++count[result.classes.edge_class[e]];
  for (ClassId c = 0; c < n; ++c) {
    if (count[c] == 0) continue;
    result.frequencies.frequency[c] = sum[c] / count[c];
    result.frequencies.propagated[c] = false;
  }
  result.flow_applied = true;
}

}  // namespace

BlockSamples::BlockSamples(const ControlFlowGraph& cfg, const SamplesByAddress& samples) {
  first_.reserve(cfg.blocks().size() + 1);
  for (const BasicBlock& block : cfg.blocks())
    first_.push_back(first_.back() + block.instructions.size());
  values_.reserve(first_.back());
  for (const BasicBlock& block : cfg.blocks())
    for (const InstructionRecord& insn : block.instructions) {
      const auto found = samples.find(insn.address);
      values_.push_back(found == samples.end() ? 0.0 : found->second);
    }
}

std::optional<double> ProcedureAnalysis::cycles_per_execution(BlockId b, size_t instruction) const {
  const std::optional<double> frequency = block_frequency(b);
  if (!frequency || *frequency <= 0) return std::nullopt;
  return samples[b][instruction] / *frequency;
}

ProcedureAnalysis analyze_procedure(ControlFlowGraph cfg, const ProcessorModel& model,
                                    const SamplesByAddress& samples, EstimatorOptions options,
                                    FrequencyEstimator estimator) {
  options.machine_has_dynamic_stalls = model.has_dynamic_stalls();
  ProcedureAnalysis result;
  result.cfg = std::move(cfg);
  result.augmentation = augment_for_exit(result.cfg);
  result.classes = frequency_classes(result.cfg, result.augmentation);

  result.schedules.reserve(result.cfg.blocks().size());
  for (const BasicBlock& block : result.cfg.blocks())
    result.schedules.push_back(model.schedule_block(block.instructions));
  result.samples = BlockSamples(result.cfg, samples);

  const size_t class_count = result.classes.class_count;
  result.frequencies.frequency.assign(class_count, std::nullopt);
  result.frequencies.confidence.assign(class_count, Confidence::kLow);
  result.frequencies.propagated.assign(class_count, false);
  const ClassBlocks blocks_by_class = result.classes.blocks_by_class();
  result.class_estimates.reserve(class_count);
  result.palcode_landings = palcode_landings(result.cfg);
  const PalcodeTime palcode(result.cfg, result.palcode_landings);
  std::vector<ScheduledBlockSamples> members;
  for (ClassId c = 0; c < class_count; ++c) {
    members.clear();
    for (BlockId b : blocks_by_class[c])
      members.push_back({.schedule = &result.schedules[b],
                         .samples = result.samples[b],
                         .palcode_time = palcode[b]});
    ClassFrequencyEstimate estimate = estimate_class_frequency(members, options);
    result.frequencies.frequency[c] = estimate.frequency;
    result.frequencies.confidence[c] = estimate.confidence;
    result.class_estimates.push_back(std::move(estimate));
  }
  propagate_frequencies(result.cfg, result.classes, result.augmentation, result.frequencies);
  if (estimator == FrequencyEstimator::kFlow) apply_flow_estimate(result, options, palcode);
  return result;
}

}  // namespace dcpi::calc
