// DCPI §6.1.5: each frequency estimate is predicted to be of low, medium or
// high confidence from the number of issue points it used, how tightly
// their ratios clustered, whether it came from propagation, and its
// magnitude (here: the samples behind it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dcpi::calc {

enum class Confidence : uint8_t { kLow, kMedium, kHigh };

std::string_view to_string(Confidence confidence);

struct ConfidenceInputs {
  size_t issue_points_used = 0;
  double ratio_spread = 1.0;  // max / min of the ratios averaged (1 = perfectly tight)
  double samples_used = 0;    // samples of the instructions behind the estimate
  bool small_sample_rule = false;
};

// Thresholds: high needs ≥ 3 issue points within 20 % of each other and
// ≥ 200 samples (sampling error ≈ 7 % or less); medium needs ≥ 2 issue
// points within the 1.5× cluster bound and ≥ 30 samples.
Confidence estimate_confidence(const ConfidenceInputs& inputs);

// A propagated estimate is never better than medium, nor better than the
// weakest estimate it was computed from.
Confidence propagated_confidence(Confidence weakest_input);

}  // namespace dcpi::calc
