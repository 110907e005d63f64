#include "analysis/calc/truth/placement.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <random>

namespace dcpi::calc {
namespace {

// Every PC either side knows, in address order (the draws then do not depend
// on hash order, so a seed gives the same noise on every host).
struct Distributions {
  std::vector<uint64_t> pcs;
  std::vector<double> samples;  // per pc
  std::vector<double> truth;    // per pc, as a probability
};

Distributions align(const SamplesByAddress& samples,
                    const std::unordered_map<uint64_t, uint64_t>& cycles, uint64_t total_cycles) {
  std::map<uint64_t, std::pair<double, double>> by_pc;
  for (const auto& [pc, count] : samples)
    if (count > 0) by_pc[pc].first += count;
  for (const auto& [pc, count] : cycles)
    if (count > 0) by_pc[pc].second += static_cast<double>(count) / total_cycles;
  Distributions d;
  for (const auto& [pc, pair] : by_pc) {
    d.pcs.push_back(pc);
    d.samples.push_back(pair.first);
    d.truth.push_back(pair.second);
  }
  return d;
}

// ½ Σ |observed/N − p|.
double total_variation(const std::vector<double>& observed, double n,
                       const std::vector<double>& p) {
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += std::abs(observed[i] / n - p[i]);
  return sum / 2;
}

// One multinomial draw of n from p, as a chain of conditional binomials.
std::vector<double> multinomial(int64_t n, const std::vector<double>& p, std::mt19937_64& rng) {
  std::vector<double> draw(p.size(), 0);
  double mass = 1;
  for (size_t i = 0; i < p.size() && n > 0; ++i) {
    const double q = mass > 0 ? std::clamp(p[i] / mass, 0.0, 1.0) : 1.0;
    const int64_t k = q >= 1 ? n : std::binomial_distribution<int64_t>(n, q)(rng);
    draw[i] = static_cast<double>(k);
    n -= k;
    mass -= p[i];
  }
  return draw;
}

void add_noise(const Distributions& d, double n, const PlacementOptions& options,
               PlacementScore& score) {
  const int64_t whole = std::llround(n);
  if (whole <= 0 || options.draws <= 0) return;
  std::mt19937_64 rng(options.seed);
  std::vector<double> tvds;
  double sum = 0, sum_squares = 0;
  for (int i = 0; i < options.draws; ++i) {
    const double tvd =
        total_variation(multinomial(whole, d.truth, rng), static_cast<double>(whole), d.truth);
    tvds.push_back(tvd);
    sum += tvd;
    sum_squares += tvd * tvd;
  }
  score.draws = options.draws;
  score.noise_distance = sum / options.draws;
  score.noise_spread = std::sqrt(
      std::max(0.0, sum_squares / options.draws - score.noise_distance * score.noise_distance));
  const auto farther = std::count_if(tvds.begin(), tvds.end(),
                                     [&](double tvd) { return tvd >= score.distance; });
  score.noise_farther = static_cast<double>(farther) / options.draws;
  std::sort(tvds.begin(), tvds.end());
  const auto p95 = std::min(tvds.size() - 1, static_cast<size_t>(0.95 * tvds.size()));
  if (score.noise_distance > 0) score.noise_ratio_p95 = tvds[p95] / score.noise_distance;
}

void judge_instructions(const Distributions& d, double n, const PlacementOptions& options,
                        PlacementScore& score) {
  for (size_t i = 0; i < d.pcs.size(); ++i) {
    const double p = d.truth[i];
    const double expected = n * p;
    if (expected < options.min_expected || p >= 1) continue;
    ++score.judged;
    const PlacementOutlier o{.pc = d.pcs[i],
                             .samples = d.samples[i],
                             .expected = expected,
                             .z = (d.samples[i] - expected) / std::sqrt(n * p * (1 - p))};
    if (score.worst.pc == 0 || std::abs(o.z) > std::abs(score.worst.z)) score.worst = o;
    if (std::abs(o.z) > options.outlier_sigma) score.outliers.push_back(o);
  }
  std::sort(score.outliers.begin(), score.outliers.end(),
            [](const PlacementOutlier& a, const PlacementOutlier& b) {
              return std::abs(a.z) > std::abs(b.z);
            });
}

}  // namespace

PlacementScore score_placement(const SamplesByAddress& samples,
                               const std::unordered_map<uint64_t, uint64_t>& cycles,
                               const PlacementOptions& options) {
  PlacementScore score;
  for (const auto& [pc, count] : cycles) score.true_cycles += count;
  for (const auto& [pc, count] : samples) score.samples += std::max(0.0, count);
  if (score.true_cycles == 0 || score.samples <= 0) return score;
  const Distributions d = align(samples, cycles, score.true_cycles);
  score.instructions = d.pcs.size();
  score.distance = total_variation(d.samples, score.samples, d.truth);
  add_noise(d, score.samples, options, score);  // after the distance: it counts the draws beyond
  if (score.noise_distance > 0) score.ratio = score.distance / score.noise_distance;
  judge_instructions(d, score.samples, options, score);
  return score;
}

namespace {

bool inside(const std::vector<AddressRange>& ranges, uint64_t pc) {
  auto after = std::upper_bound(ranges.begin(), ranges.end(), pc,
                                [](uint64_t a, const AddressRange& r) { return a < r.start; });
  return after != ranges.begin() && pc < std::prev(after)->end;
}

}  // namespace

namespace {

std::vector<AddressRange> sorted_ranges(const std::vector<AddressRange>& ranges) {
  std::vector<AddressRange> sorted = ranges;
  std::sort(sorted.begin(), sorted.end(),
            [](const AddressRange& a, const AddressRange& b) { return a.start < b.start; });
  return sorted;
}

SamplesByAddress samples_inside(const SamplesByAddress& samples,
                                const std::vector<AddressRange>& sorted) {
  SamplesByAddress in_samples;
  for (const auto& [pc, count] : samples)
    if (inside(sorted, pc)) in_samples[pc] += count;
  return in_samples;
}

}  // namespace

PlacementScore score_event_placement_in(const SamplesByAddress& samples,
                                        const std::unordered_map<uint64_t, uint64_t>& events,
                                        const std::vector<AddressRange>& ranges,
                                        const PlacementOptions& options) {
  const std::vector<AddressRange> sorted = sorted_ranges(ranges);
  std::unordered_map<uint64_t, uint64_t> in_events;
  for (const auto& [pc, n] : events)
    if (n > 0 && inside(sorted, pc)) in_events[pc] = n;
  return score_placement(samples_inside(samples, sorted), in_events, options);
}

PlacementScore score_placement_in(const SamplesByAddress& samples, const GroundTruth& truth,
                                  const std::vector<AddressRange>& ranges,
                                  const PlacementOptions& options) {
  return score_placement_in(samples, truth, ranges, {}, options);
}

PlacementScore score_placement_in(const SamplesByAddress& samples, const GroundTruth& truth,
                                  const std::vector<AddressRange>& ranges,
                                  const std::vector<uint64_t>& palcode_landings,
                                  const PlacementOptions& options) {
  const std::vector<AddressRange> sorted = sorted_ranges(ranges);
  SamplesByAddress in_samples = samples_inside(samples, sorted);
  std::unordered_map<uint64_t, uint64_t> in_cycles;
  for (const auto& [pc, executions] : truth.instructions())
    if (executions > 0 && inside(sorted, pc)) in_cycles[pc] = truth.visible_cycles(pc);
  size_t left_out = 0;
  double left_out_samples = 0;
  if (!truth.knows_visibility())
    for (uint64_t pc : palcode_landings) {
      if (!inside(sorted, pc)) continue;
      ++left_out;
      if (const auto s = in_samples.find(pc); s != in_samples.end()) {
        left_out_samples += s->second;
        in_samples.erase(s);
      }
      in_cycles.erase(pc);
    }
  PlacementScore score = score_placement(in_samples, in_cycles, options);
  score.visible_cycles = truth.knows_visibility();
  score.left_out = left_out;
  score.left_out_samples = left_out_samples;
  return score;
}

}  // namespace dcpi::calc
