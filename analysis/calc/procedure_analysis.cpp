#include "analysis/calc/procedure_analysis.h"

namespace dcpi::calc {

std::optional<double> ProcedureAnalysis::cycles_per_execution(BlockId b, size_t instruction) const {
  const std::optional<double> frequency = block_frequency(b);
  if (!frequency || *frequency <= 0) return std::nullopt;
  return samples[b][instruction] / *frequency;
}

ProcedureAnalysis analyze_procedure(ControlFlowGraph cfg, const ProcessorModel& model,
                                    const SamplesByAddress& samples, EstimatorOptions options) {
  options.machine_has_dynamic_stalls = model.has_dynamic_stalls();
  ProcedureAnalysis result;
  result.cfg = std::move(cfg);
  result.augmentation = augment_for_exit(result.cfg);
  result.classes = frequency_classes(result.cfg, result.augmentation);

  for (const BasicBlock& block : result.cfg.blocks()) {
    result.schedules.push_back(model.schedule_block(block.instructions));
    std::vector<double>& block_samples = result.samples.emplace_back();
    for (const InstructionRecord& insn : block.instructions) {
      const auto found = samples.find(insn.address);
      block_samples.push_back(found == samples.end() ? 0.0 : found->second);
    }
  }

  const size_t class_count = result.classes.class_count;
  result.frequencies.frequency.assign(class_count, std::nullopt);
  result.frequencies.confidence.assign(class_count, Confidence::kLow);
  result.frequencies.propagated.assign(class_count, false);
  for (ClassId c = 0; c < class_count; ++c) {
    std::vector<ScheduledBlockSamples> members;
    for (BlockId b : result.classes.blocks_in(c))
      members.push_back({.schedule = &result.schedules[b], .samples = result.samples[b]});
    ClassFrequencyEstimate estimate = estimate_class_frequency(members, options);
    result.frequencies.frequency[c] = estimate.frequency;
    result.frequencies.confidence[c] = estimate.confidence;
    result.class_estimates.push_back(std::move(estimate));
  }
  propagate_frequencies(result.cfg, result.classes, result.augmentation, result.frequencies);
  return result;
}

}  // namespace dcpi::calc
