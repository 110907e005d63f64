// Estimating the frequency F of one equivalence class from its samples
// (DCPI §6.1.3). Every instruction of the class executes F times per
// sampling period. An issue point i (M_i > 0) without dynamic stalls has
// S_i ≈ F·M_i, and dynamic stalls only add samples, so F is estimated by
// averaging a cluster of the smaller ratios S_i/M_i:
//  - an issue point whose M_i was set by a dependency on (or a functional
//    unit held by) an earlier instruction j uses the window ratio
//    Σ_{k=j+1..i} S_k / Σ_{k=j+1..i} M_k, which dynamic stalls between j and i
//    cannot push below F;
//  - a cluster is a run of sorted ratios with max ≤ bound·min (1.5); starting
//    from the smallest, a cluster is discarded if it holds too small a
//    fraction of the issue points or would imply an implausibly large stall
//    for another instruction of the class;
//  - a class with few samples uses Σ S_i / Σ M_i over all its instructions;
//  - a machine without dynamic stalls (QEMU) has nothing to avoid: every
//    issue point is unbiased and Σ S_i / Σ M_i over all of them is used;
//  - on any machine, the instruction PALcode returns to after a CALL_PAL
//    holds PALcode's samples too (DCPI §4.1.3): it is no issue point.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "analysis/calc/estimate/confidence.h"
#include "analysis/calc/model/processor_model.h"

namespace dcpi::calc {

struct ScheduledBlockSamples {
  const BlockSchedule* schedule = nullptr;
  // S_i, one per instruction of the block: a view of the analysis's (a copy
  // per block of every class was a tenth of the estimate's time: issue 31).
  std::span<const double> samples;
  // Per instruction, whether its samples include PALcode's cycles (the
  // first after a CALL_PAL that runs PALcode, DCPI §4.1.3): no issue point
  // or window stands on it, and the small-sample total leaves it out.
  // Empty: none does.
  std::span<const uint8_t> palcode_time;
  bool carries_palcode(size_t i) const { return !palcode_time.empty() && palcode_time[i] != 0; }
};

struct EstimatorOptions {
  double cluster_bound = 1.5;  // §6.1.3: max ratio ≤ 1.5 × min ratio
  // "Similar ratios" (§6.1.3) also within this many sampling errors of the
  // cluster's smallest ratio (relative 2 / sqrt(its samples): the difference
  // of two ratios, the smallest of several low by chance), so a well-sampled
  // class leaves out an issue point stalled 20 % of the time, which 1.5
  // alone averages in; 0: the 1.5 bound only.
  double cluster_noise_sigmas = 3;
  double small_sample_threshold = 40;       // fewer samples in the class: Σ S / Σ M
  double min_cluster_fraction = 0.2;        // of the class's issue points
  double max_plausible_stall_cycles = 400;  // ≈ 10 memory fills on a 21164
  // Refine the cluster's F to the issue points consistent with it: keep a
  // ratio within [F − low·σ_i, F + high·σ_i], σ_i = √(F / M_i) the Poisson
  // error of S_i / M_i at frequency F with no stall, set F = Σ S / Σ M over
  // those, repeat until stable. Dynamic stalls only add samples, so an issue
  // point stalled by more than its own noise is dropped however many issue
  // points share the class; the 1.5 bound (or 3 sampling errors of the
  // smallest ratio, which picks the lowest of several by chance) keeps a
  // point stalled 20 % of the time at ~150 samples a point, and the
  // average then overshoots by several percent (compress on ev5: +4 to +6 %
  // on its hottest blocks, docs/calc.md). 2: a point 2 sigma high is
  // dropped (the estimate then runs low by ~0.05 sigma of one point); 0: the
  // cluster's average as is.
  double clip_high_sigmas = 2;
  double clip_low_sigmas = 4;
  bool machine_has_dynamic_stalls = true;
};

enum class EstimateMethod : uint8_t {
  kNone,              // no issue points: left to propagation (§6.1.4)
  kSmallSampleTotal,  // Σ S / Σ M over the class
  kAllIssuePoints,    // no dynamic stalls possible: Σ S / Σ M over the issue points
  kLowRatioCluster,   // the average of a cluster of small ratios
  kUnstalledPoints,   // the cluster refined to the issue points within their noise of F
  kPropagation,       // set by local propagation
};

std::string_view to_string(EstimateMethod method);

struct IssuePointRatio {
  size_t block = 0;         // index into the span given to the estimator
  size_t instruction = 0;   // index in the block
  size_t window_start = 0;  // first instruction of the ratio's window (= instruction if none)
  double samples = 0;       // Σ S over the window
  double cycles = 0;        // Σ M over the window
  double ratio = 0;
  bool used = false;  // averaged into the estimate (the * of Figure 7)
};

struct ClassFrequencyEstimate {
  std::optional<double> frequency;  // F: executions per sampling period
  EstimateMethod method = EstimateMethod::kNone;
  std::vector<IssuePointRatio> ratios;
  size_t issue_points_used = 0;
  double ratio_spread = 1.0;
  double samples_used = 0;
  Confidence confidence = Confidence::kLow;
};

ClassFrequencyEstimate estimate_class_frequency(std::span<const ScheduledBlockSamples> blocks,
                                                const EstimatorOptions& options);

}  // namespace dcpi::calc
