#include "analysis/calc/truth/scoring.h"

#include <cmath>
#include <cstdlib>

namespace dcpi::calc {

int error_bucket(double estimated, double exact) {
  constexpr double kSlack = 1e-9;  // so that 0.90 lands in −10 %, not −15 %
  if (exact <= 0) return estimated <= 0 ? 1 : 10;
  const double ratio = estimated / exact;
  if (ratio < 1) {
    const int k = static_cast<int>(std::ceil((1 - ratio) * 20 - kSlack));
    return -std::min(std::max(k, 1), 10);
  }
  const int k = static_cast<int>(std::floor((ratio - 1) * 20 + kSlack)) + 1;
  return std::min(k, 10);
}

std::string bucket_label(int bucket) {
  if (bucket <= -10) return "<-45%";
  if (bucket >= 10) return ">=+45%";
  return (bucket < 0 ? "-" : "+") + std::to_string(5 * std::abs(bucket)) + "%";
}

void ErrorHistogram::add(const ScoredCount& item) {
  weights_[index(error_bucket(item.estimated, item.exact))] += item.weight;
  total_ += item.weight;
}

double ErrorHistogram::fraction_within(int percent) const {
  if (total_ <= 0) return 0;
  double within = 0;
  for (int bucket : buckets())
    if (5 * std::abs(bucket) <= percent && std::abs(bucket) < 10) within += weight(bucket);
  return within / total_;
}

std::vector<int> ErrorHistogram::buckets() const {
  std::vector<int> result;
  for (int k = -10; k <= 10; ++k)
    if (k != 0) result.push_back(k);
  return result;
}

ErrorHistogram score(std::span<const ScoredCount> items) {
  ErrorHistogram histogram;
  for (const ScoredCount& item : items) histogram.add(item);
  return histogram;
}

std::vector<ScoredCount> instruction_scores(const ProcedureAnalysis& analysis,
                                            const GroundTruth& truth, double mean_period) {
  std::vector<ScoredCount> result;
  for (BlockId b = 0; b < analysis.cfg.blocks().size(); ++b) {
    const std::optional<double> frequency = analysis.block_frequency(b);
    const auto& code = analysis.cfg.block(b).instructions;
    for (size_t i = 0; i < code.size(); ++i) {
      const double samples = analysis.samples[b][i];
      if (samples <= 0) continue;
      result.push_back({.estimated = frequency.value_or(0) * mean_period,
                        .exact = static_cast<double>(truth.executions(code[i].address)),
                        .weight = samples});
    }
  }
  return result;
}

std::vector<ScoredCount> edge_scores(const ProcedureAnalysis& analysis, const GroundTruth& truth,
                                     double mean_period) {
  std::vector<ScoredCount> result;
  for (EdgeId e = 0; e < analysis.cfg.edges().size(); ++e) {
    const std::optional<double> frequency = analysis.edge_frequency(e);
    if (!frequency) continue;
    const CfgEdge& edge = analysis.cfg.edge(e);
    const uint64_t from = analysis.cfg.block(edge.from).instructions.back().address;
    const uint64_t to = analysis.cfg.block(edge.to).start;
    const double exact = static_cast<double>(truth.transfers(from, to));
    result.push_back({.estimated = *frequency * mean_period, .exact = exact, .weight = exact});
  }
  return result;
}

}  // namespace dcpi::calc
