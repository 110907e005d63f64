// Comparing several sample sets procedure by procedure: the variation
// statistics of dcpistats (DCPI §3.3, Figure 3) and the two-profile
// difference that DCPI's tools "highlight the differences in two separate
// profiles" (§3). A sample set is one run (database) or one epoch.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/samples/profile_table.h"

namespace dcpi {

struct SetTotal {
  std::string label;
  uint64_t samples = 0;
  std::map<uint64_t, SamplingPeriod> periods = {};  // the set's epochs and their sampling periods
  std::map<uint64_t, std::string> machines = {};    // the set's epochs and their machines
};

// "[8192, 9216)", "changed, within [8192, 65536)" (several periods in the
// epoch), or "unknown"; epochs of different periods: "epoch 1 ...; epoch 2 ...".
std::string periods_text(const std::map<uint64_t, SamplingPeriod>& periods);
// "ev5" when every epoch has that machine; else "epoch 1 qemu; epoch 2 ev5".
std::string machines_text(const std::map<uint64_t, std::string>& machines);

// One procedure across S sets. A set where the procedure has no samples
// counts as 0 in mean, std-dev, min and max (it was measured and got none);
// N is the number of sets where it has samples.
struct ProcedureVariation {
  std::string image_path;
  std::string procedure;
  std::vector<uint64_t> per_set;
  uint64_t sum = 0;
  double percent = 0;              // of all samples of all sets
  unsigned sets_with_samples = 0;  // N
  double mean = 0;
  double std_dev = 0;  // sample standard deviation (divisor S-1); 0 for one set
  uint64_t min = 0;
  uint64_t max = 0;
  double range_percent = 0;  // (max - min) / sum, the paper's "normalized range"
};

struct VariationReport {
  std::string event;
  std::vector<SetTotal> sets;
  uint64_t total = 0;
  std::vector<ProcedureVariation> rows;  // largest normalized range first
  std::vector<std::string> warnings;
};

// Throws std::runtime_error if `event` is in none of the sets.
VariationReport compare_sets(const std::vector<SampleSet>& sets, ImageResolver& resolver,
                             const std::string& event);

struct ProcedureShift {
  std::string image_path;        // in the before set (the after set's when only it has the row)
  std::string after_image_path;  // the same, unless --match name paired a renamed image
  std::string procedure;
  uint64_t before = 0;
  uint64_t after = 0;
  double before_percent = 0;
  double after_percent = 0;
  double change = 0;  // after_percent - before_percent, in percentage points
  // after / before in samples; nullopt when before is 0 (a new procedure).
  std::optional<double> ratio;
};

// How the rows of the two sets are paired (`dcpi diff --match`): by image
// path and procedure, or also across a renamed binary: an image only the
// after set has is paired with the image only the before set has that
// shares the most procedure names with it (perf diff pairs by name only).
enum class DiffMatch { kImage, kName };

struct RenamedImage {
  std::string before;
  std::string after;
  size_t shared_procedures = 0;
};

struct DiffReport {
  std::string event;
  SetTotal before;
  SetTotal after;
  std::vector<ProcedureShift> rows;   // largest |change| first
  std::vector<RenamedImage> renamed;  // --match name: the images it paired
  std::vector<std::string> warnings;
};

DiffReport diff_sets(const SampleSet& before, const SampleSet& after, ImageResolver& resolver,
                     const std::string& event, DiffMatch match = DiffMatch::kImage);

}  // namespace dcpi
