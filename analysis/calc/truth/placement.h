// The sample-placement oracle (issue 25): do the samples sit where the
// machine's exact cycles are? On a timed machine the truth knows every
// instruction's cycles, so the per-PC distribution of samples can be held
// against it directly, before any estimate is made. The measure is the total
// variation distance between the two distributions, reported as a multiple of
// the distance that sampling noise alone gives: multinomial draws of the same
// number of samples from the truth. A ratio near 1 means the samples are as
// well placed as an ideal sampler's; the per-instruction z-scores name the
// PCs that are not (a skid shows as a deficit on one PC and a surplus on its
// neighbour).
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analysis/calc/estimate/procedure_analysis.h"
#include "analysis/calc/truth/ground_truth.h"

namespace dcpi::calc {

struct PlacementOptions {
  uint64_t seed = 1;          // the noise draws are reproducible
  int draws = 64;             // multinomial draws for the noise distance
  double min_expected = 200;  // instructions judged one by one from this many expected samples
  double outlier_sigma = 4;   // an instruction beyond this many σ is an outlier
};

// One instruction whose samples are further from their expectation than
// outlier_sigma standard deviations.
struct PlacementOutlier {
  uint64_t pc = 0;
  double samples = 0;
  double expected = 0;  // samples × (pc's share of the true cycles)
  double z = 0;         // (samples − expected) / √(N p (1 − p))
};

struct PlacementScore {
  double samples = 0;         // N: the samples in the scored range
  uint64_t true_cycles = 0;   // the truth's cycles in the scored range
  size_t instructions = 0;    // PCs with samples or true cycles
  double distance = 0;        // TVD(samples / N, cycles / Σ cycles)
  double noise_distance = 0;  // mean TVD of the draws from the truth
  double noise_spread = 0;    // standard deviation of the draws' TVDs
  int draws = 0;
  // distance / noise_distance; 0 when nothing can be judged (no samples or
  // no cycles).
  double ratio = 0;
  // How far an ideal sampler's own ratio goes: the share of the draws at
  // least as far from the truth as the samples (a Monte Carlo p-value; a
  // small share says the samples are farther than noise), and the 95th
  // percentile of the draws' distance / noise_distance. With few
  // instructions the noise's spread is wide and a ratio of 1.3 can be noise.
  double noise_farther = 0;
  double noise_ratio_p95 = 0;
  size_t judged = 0;  // instructions with ≥ min_expected expected samples
  // The judged instructions beyond outlier_sigma, largest |z| first.
  std::vector<PlacementOutlier> outliers;
  // The judged instruction with the largest |z| (pc 0 when none was judged).
  PlacementOutlier worst;
  // The expectation was the truth's visible cycles (version 4: PAL's where
  // PAL returns, none from a delivery to the reload), not all its cycles.
  bool visible_cycles = false;
  // Without visible lines (the qemu machine's truth): the instructions
  // PALcode returns to after a CALL_PAL, and those after a wtint (a halted
  // CPU's sleep) or a swpipl (a masked stretch), left out with their
  // samples, since that time lands there and the truth cannot say how much
  // (DCPI §4.1.3).
  size_t left_out = 0;
  double left_out_samples = 0;
};

// samples: per PC (any PC: samples where the truth has no cycles count as
// misplaced). cycles: the truth's cycles per PC in the scored range.
PlacementScore score_placement(const SamplesByAddress& samples,
                               const std::unordered_map<uint64_t, uint64_t>& cycles,
                               const PlacementOptions& options = {});

// The oracle over [start, end) address ranges (an image's procedures, or
// one): the samples and the truth's cycles that fall inside them (its
// visible cycles when it has them, GroundTruth::visible_cycles).
struct AddressRange {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
};
PlacementScore score_placement_in(const SamplesByAddress& samples, const GroundTruth& truth,
                                  const std::vector<AddressRange>& ranges,
                                  const PlacementOptions& options = {});
// The same, leaving out `palcode_landings` (the instructions PALcode returns
// to) when the truth has no visible lines to say what lands there.
PlacementScore score_placement_in(const SamplesByAddress& samples, const GroundTruth& truth,
                                  const std::vector<AddressRange>& ranges,
                                  const std::vector<uint64_t>& palcode_landings,
                                  const PlacementOptions& options = {});

// The same oracle for an event's samples (issue 26): against the truth's
// count of that event per PC (GroundTruth::pc_events, version 6) inside the
// ranges, where the event's samples should be in proportion (the model
// delivers the counter's interrupt at the event's instruction).
PlacementScore score_event_placement_in(const SamplesByAddress& samples,
                                        const std::unordered_map<uint64_t, uint64_t>& events,
                                        const std::vector<AddressRange>& ranges,
                                        const PlacementOptions& options = {});

}  // namespace dcpi::calc
