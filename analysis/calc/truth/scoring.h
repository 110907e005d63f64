// Scoring frequency estimates against exact counts, as in DCPI §6.2,
// Figures 8 and 9: each estimate FP (frequency × mean sampling period) is
// put in a 5 %-wide error bucket (the −15 % bucket holds 0.85 ≤ FP/count <
// 0.90; +5 % holds 1.00 ≤ FP/count < 1.05; the outermost buckets are
// < −45 % and ≥ +45 %), and the buckets are weighted by CYCLES samples for
// instructions (Figure 8) or by executions for edges (Figure 9).
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "analysis/calc/estimate/procedure_analysis.h"
#include "analysis/calc/truth/ground_truth.h"

namespace dcpi::calc {

struct ScoredCount {
  double estimated = 0;  // FP
  double exact = 0;      // the measured execution count
  double weight = 0;     // samples (instructions) or executions (edges)
};

// −10 … −1 and +1 … +10: bucket k covers errors in (5(k−1) %, 5k %] below
// or [5(k−1) %, 5k %) above; ±10 are the open-ended outer buckets.
int error_bucket(double estimated, double exact);
std::string bucket_label(int bucket);  // "-15%", "+5%", "<-45%", ">=+45%"

class ErrorHistogram {
 public:
  void add(const ScoredCount& item);
  double weight(int bucket) const { return weights_[index(bucket)]; }
  double total_weight() const { return total_; }
  // Fraction of the weight whose error is within ±percent (a multiple of 5).
  double fraction_within(int percent) const;
  std::vector<int> buckets() const;  // −10 … −1, 1 … 10 in order

 private:
  static size_t index(int bucket) {
    return static_cast<size_t>(bucket < 0 ? bucket + 10 : bucket + 9);
  }
  std::array<double, 20> weights_{};
  double total_ = 0;
};

ErrorHistogram score(std::span<const ScoredCount> items);

// Figure 8: one item per instruction with samples, weighted by its samples.
std::vector<ScoredCount> instruction_scores(const ProcedureAnalysis& analysis,
                                            const GroundTruth& truth, double mean_period);
// Figure 9: one item per CFG edge that has an estimate, weighted by its
// exact executions.
std::vector<ScoredCount> edge_scores(const ProcedureAnalysis& analysis, const GroundTruth& truth,
                                     double mean_period);

}  // namespace dcpi::calc
