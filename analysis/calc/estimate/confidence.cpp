#include "analysis/calc/estimate/confidence.h"

#include <algorithm>

namespace dcpi::calc {

std::string_view to_string(Confidence confidence) {
  switch (confidence) {
    case Confidence::kLow:
      return "low";
    case Confidence::kMedium:
      return "medium";
    case Confidence::kHigh:
      return "high";
  }
  return "?";
}

Confidence estimate_confidence(const ConfidenceInputs& inputs) {
  if (inputs.small_sample_rule) return Confidence::kLow;
  if (inputs.issue_points_used >= 3 && inputs.ratio_spread <= 1.2 && inputs.samples_used >= 200)
    return Confidence::kHigh;
  if (inputs.issue_points_used >= 2 && inputs.ratio_spread <= 1.5 && inputs.samples_used >= 30)
    return Confidence::kMedium;
  return Confidence::kLow;
}

Confidence propagated_confidence(Confidence weakest_input) {
  return std::min(weakest_input, Confidence::kMedium);
}

}  // namespace dcpi::calc
