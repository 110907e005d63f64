#include "analysis/calc/estimate/frequency_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dcpi::calc {

std::string_view to_string(EstimateMethod method) {
  switch (method) {
    case EstimateMethod::kNone:
      return "none";
    case EstimateMethod::kSmallSampleTotal:
      return "small-sample total";
    case EstimateMethod::kAllIssuePoints:
      return "all issue points";
    case EstimateMethod::kLowRatioCluster:
      return "low-ratio cluster";
    case EstimateMethod::kUnstalledPoints:
      return "unstalled issue points";
    case EstimateMethod::kPropagation:
      return "propagation";
  }
  return "?";
}

namespace {

// The earliest instruction j whose latency set M_i (a dependency or a busy
// unit), if there are instructions between j and i.
std::optional<size_t> dependence_window_start(const ScheduledInstruction& insn, size_t index) {
  std::optional<size_t> start;
  for (const StaticStall& stall : insn.stalls) {
    if (stall.cycles == 0 || !stall.culprit || *stall.culprit + 1 >= index) continue;
    if (stall.reason == StallCause::kSlotting) continue;
    start = std::min(start.value_or(index), *stall.culprit + 1);
  }
  return start;
}

// How far above a cluster's smallest ratio its other ratios may be: DCPI's
// 1.5, or less where that ratio's own sampling error (relative 1/sqrt(S))
// says a larger one is no longer the same frequency plus noise.
double cluster_bound(const EstimatorOptions& options, double low_samples) {
  if (options.cluster_noise_sigmas <= 0 || low_samples <= 0) return options.cluster_bound;
  return std::min(options.cluster_bound,
                  1.0 + options.cluster_noise_sigmas * 2.0 / std::sqrt(low_samples));
}

std::vector<IssuePointRatio> issue_point_ratios(std::span<const ScheduledBlockSamples> blocks) {
  std::vector<IssuePointRatio> ratios;
  size_t instructions = 0;
  for (const ScheduledBlockSamples& block : blocks) instructions += block.samples.size();
  ratios.reserve(instructions);  // at most one per instruction
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto& schedule = blocks[b].schedule->instructions;
    const auto& samples = blocks[b].samples;
    for (size_t i = 0; i < schedule.size(); ++i) {
      if (schedule[i].head_cycles == 0) continue;
      IssuePointRatio r{.block = b, .instruction = i, .window_start = i};
      r.window_start = dependence_window_start(schedule[i], i).value_or(i);
      bool palcode = false;
      for (size_t k = r.window_start; k <= i; ++k) {
        r.samples += samples[k];
        r.cycles += schedule[k].head_cycles;
        palcode = palcode || blocks[b].carries_palcode(k);
      }
      if (palcode) continue;
      r.ratio = r.samples / r.cycles;
      ratios.push_back(r);
    }
  }
  return ratios;
}

// The largest stall (cycles per execution beyond M_i) that frequency F
// implies for any instruction of the class.
double largest_implied_stall(std::span<const ScheduledBlockSamples> blocks, double frequency) {
  double largest = 0;
  for (const ScheduledBlockSamples& block : blocks) {
    for (size_t i = 0; i < block.samples.size(); ++i) {
      if (block.carries_palcode(i)) continue;
      const double cycles = block.samples[i] / frequency;
      largest = std::max(largest, cycles - block.schedule->instructions[i].head_cycles);
    }
  }
  return largest;
}

void use_all(ClassFrequencyEstimate& estimate) {
  double samples = 0, cycles = 0;
  double low = INFINITY, high = 0;
  for (IssuePointRatio& r : estimate.ratios) {
    r.used = true;
    samples += r.samples;
    cycles += r.cycles;
    low = std::min(low, r.ratio);
    high = std::max(high, r.ratio);
  }
  estimate.frequency = samples / cycles;
  estimate.issue_points_used = estimate.ratios.size();
  estimate.samples_used = samples;
  estimate.ratio_spread = low > 0 ? high / low : INFINITY;
}

// EstimatorOptions::clip_high_sigmas: from the cluster's F, the issue points
// whose ratio is within their own Poisson noise of F (σ_i = √(F / M_i)
// for a window of M_i cycles), pooled as Σ S / Σ M (each ratio weighted by
// its inverse variance, ∝ M_i), until the set stops changing. False if no
// issue point is left (the cluster's average stays).
bool refine_to_unstalled(ClassFrequencyEstimate& estimate, const EstimatorOptions& options) {
  double frequency = *estimate.frequency;
  // The kept set and the next round's, in one per-thread scratch vector
  // (issue 31: a vector per class was a third of the estimate's allocations).
  const size_t n = estimate.ratios.size();
  thread_local std::vector<uint8_t> sets;
  sets.assign(2 * n, 0);
  std::span<uint8_t> kept(sets.data(), n), next(sets.data() + n, n);
  constexpr int kMaxRounds = 32;  // the set converges in a few; a bound against cycling
  for (int round = 0; round < kMaxRounds; ++round) {
    std::fill(next.begin(), next.end(), 0);
    double samples = 0, cycles = 0;
    for (size_t k = 0; k < estimate.ratios.size(); ++k) {
      const IssuePointRatio& r = estimate.ratios[k];
      const double sigma = std::sqrt(std::max(frequency, 1e-9) / r.cycles);
      if (r.ratio > frequency + options.clip_high_sigmas * sigma) continue;
      if (r.ratio < frequency - options.clip_low_sigmas * sigma) continue;
      next[k] = 1;
      samples += r.samples;
      cycles += r.cycles;
    }
    if (cycles <= 0) return false;
    frequency = samples / cycles;
    if (std::equal(next.begin(), next.end(), kept.begin())) break;
    std::swap(kept, next);
  }
  double samples = 0, low = INFINITY, high = 0;
  size_t used = 0;
  for (size_t k = 0; k < estimate.ratios.size(); ++k) {
    IssuePointRatio& r = estimate.ratios[k];
    r.used = kept[k] != 0;
    if (!r.used) continue;
    ++used;
    samples += r.samples;
    low = std::min(low, r.ratio);
    high = std::max(high, r.ratio);
  }
  estimate.frequency = frequency;
  estimate.method = EstimateMethod::kUnstalledPoints;
  estimate.issue_points_used = used;
  estimate.samples_used = samples;
  estimate.ratio_spread = low > 0 ? high / low : INFINITY;
  return true;
}

}  // namespace

ClassFrequencyEstimate estimate_class_frequency(std::span<const ScheduledBlockSamples> blocks,
                                                const EstimatorOptions& options) {
  ClassFrequencyEstimate estimate;
  estimate.ratios = issue_point_ratios(blocks);
  if (estimate.ratios.empty()) return estimate;

  double total_samples = 0, total_cycles = 0;
  for (const ScheduledBlockSamples& block : blocks) {
    for (size_t i = 0; i < block.samples.size(); ++i) {
      if (block.carries_palcode(i)) continue;
      total_samples += block.samples[i];
      total_cycles += block.schedule->instructions[i].head_cycles;
    }
  }

  if (total_samples < options.small_sample_threshold) {
    estimate.method = EstimateMethod::kSmallSampleTotal;
    estimate.frequency = total_samples / total_cycles;
    for (IssuePointRatio& r : estimate.ratios) r.used = true;
    estimate.issue_points_used = estimate.ratios.size();
    estimate.samples_used = total_samples;
    estimate.confidence = estimate_confidence({.issue_points_used = estimate.issue_points_used,
                                               .samples_used = total_samples,
                                               .small_sample_rule = true});
    return estimate;
  }

  bool fell_back = false;  // no cluster passed the checks: the smallest was used anyway
  if (!options.machine_has_dynamic_stalls) {
    estimate.method = EstimateMethod::kAllIssuePoints;
    // Without windows each issue point counts its own samples once.
    for (IssuePointRatio& r : estimate.ratios) {
      const auto& block = blocks[r.block];
      r.window_start = r.instruction;
      r.samples = block.samples[r.instruction];
      r.cycles = block.schedule->instructions[r.instruction].head_cycles;
      r.ratio = r.samples / r.cycles;
    }
    use_all(estimate);
  } else {
    estimate.method = EstimateMethod::kLowRatioCluster;
    thread_local std::vector<size_t> order;  // per-thread scratch, as refine_to_unstalled's
    order.resize(estimate.ratios.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return estimate.ratios[a].ratio < estimate.ratios[b].ratio;
    });
    const size_t minimum =
        std::max<size_t>(1, static_cast<size_t>(std::ceil(options.min_cluster_fraction *
                                                          static_cast<double>(order.size()))));
    std::optional<std::pair<size_t, size_t>> chosen, fallback;  // [first, last) in `order`
    for (size_t first = 0; first < order.size() && !chosen; ++first) {
      const double low = estimate.ratios[order[first]].ratio;
      const double bound = cluster_bound(options, estimate.ratios[order[first]].samples);
      // `order` ascends by ratio: the cluster ends where the ratios first
      // exceed the bound (a scan from each `first` was quadratic in large
      // classes: issue 31).
      const double limit = bound * low;
      const size_t last = static_cast<size_t>(
          std::partition_point(order.begin() + static_cast<std::ptrdiff_t>(first), order.end(),
                               [&](size_t k) { return estimate.ratios[k].ratio <= limit; }) -
          order.begin());
      if (!fallback) fallback = {first, last};
      if (low <= 0 && last - first < order.size()) continue;  // zero ratios: anomalous samples
      if (last - first < minimum) continue;
      double sum = 0;
      for (size_t k = first; k < last; ++k) sum += estimate.ratios[order[k]].ratio;
      const double frequency = sum / static_cast<double>(last - first);
      if (largest_implied_stall(blocks, frequency) > options.max_plausible_stall_cycles) continue;
      chosen = {first, last};
    }
    fell_back = !chosen;
    const auto [first, last] = chosen.value_or(*fallback);
    double sum = 0, samples = 0;
    for (size_t k = first; k < last; ++k) {
      IssuePointRatio& r = estimate.ratios[order[k]];
      r.used = true;
      sum += r.ratio;
      samples += r.samples;
    }
    estimate.frequency = sum / static_cast<double>(last - first);
    estimate.issue_points_used = last - first;
    estimate.samples_used = samples;
    const double low = estimate.ratios[order[first]].ratio;
    const double high = estimate.ratios[order[last - 1]].ratio;
    estimate.ratio_spread = low > 0 ? high / low : INFINITY;
    if (options.clip_high_sigmas > 0 && !fell_back && *estimate.frequency > 0)
      refine_to_unstalled(estimate, options);
  }
  estimate.confidence = estimate_confidence({.issue_points_used = estimate.issue_points_used,
                                             .ratio_spread = estimate.ratio_spread,
                                             .samples_used = estimate.samples_used});
  if (fell_back) estimate.confidence = Confidence::kLow;
  return estimate;
}

}  // namespace dcpi::calc
