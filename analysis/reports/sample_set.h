// The samples a report looks at: profiles read from a database, narrowed by
// epoch, image, PID and CPU (DCPI §3: dcpiprof and friends select which
// profiles to read; §4.3.3: the database keeps epochs apart so runs can be
// compared). Loading is separate from reporting so reports can be tested on
// hand-built profiles.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cli/cli_options.h"
#include "hostdump/profiledb/profile_db.h"

namespace dcpi {

struct SampleFilter {
  std::optional<std::vector<uint64_t>> epochs = {};  // nullopt: every epoch
  std::optional<std::string> image = {};             // guest path or its last component
  std::optional<uint32_t> pid = {};
  std::optional<uint32_t> cpu = {};
};

struct SampleSet {
  std::string label;              // what the set is called in reports ("prof.db", "epoch 2")
  std::vector<Profile> profiles;  // rows already filtered; profiles left with no rows dropped
  std::map<uint64_t, SamplingPeriod> periods = {};  // per epoch read, from its epoch.meta
};

bool image_matches(const ImageIdentity& image, const std::string& wanted);

// Reads every matching profile of the database. Throws ProfileDatabaseError /
// ProfileFormatError (from the reader) and std::runtime_error for an epoch
// the database does not have.
SampleSet load_samples(const ProfileDatabase& database, const SampleFilter& filter);

// The sample sets `dcpi stats` and `dcpi diff` compare: one per database, or,
// with `epochs` ("a,b,c" or "each") and a single database, one per epoch.
std::vector<SampleSet> load_comparison_sets(const std::vector<std::string>& databases,
                                            const std::optional<std::string>& epochs,
                                            const SampleFilter& filter);

// Applies the PID/CPU filter to rows already in memory (used by load_samples).
Profile filter_rows(Profile profile, const SampleFilter& filter);

// The filter options every report shares: --image, --pid, --cpu, --epoch.
// "--epoch all" (the default) selects every epoch; "--epoch N" one; with
// allow_list "--epochs a,b,c" also parses.
SampleFilter parse_sample_filter(const ParsedOptions& options);
// --epoch N[,N...] or all (nullopt).
std::optional<std::vector<uint64_t>> parse_epoch_option(const ParsedOptions& options);
std::vector<uint64_t> parse_number_list(const std::string& text, const std::string& option);
uint64_t parse_number(const std::string& text, const std::string& option);

// Removes every "--name VALUE" / "--name=VALUE" from `arguments` and returns
// the values in order (ParsedOptions keeps one value per name; stats and diff
// take several databases).
std::vector<std::string> take_repeated_option(std::vector<std::string>& arguments,
                                              const std::string& name);

}  // namespace dcpi
