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

#include "profiledb/event_scale.h"
#include "profiledb/own_cycles.h"
#include "profiledb/profile_db.h"

namespace dcpi {

struct SampleFilter {
  std::optional<std::vector<uint64_t>> epochs = {};  // nullopt: every epoch
  std::optional<std::string> image = {};             // guest path or its last component
  std::optional<uint32_t> pid = {};                  // a process: every thread of it
  std::optional<uint32_t> cpu = {};
  std::optional<uint32_t> tid = {};  // one thread (issue 29)
};

struct SampleSet {
  std::string label;              // what the set is called in reports ("prof.db", "epoch 2")
  std::vector<Profile> profiles;  // rows already filtered; profiles left with no rows dropped
  std::map<uint64_t, SamplingPeriod> periods = {};  // per epoch read, from its epoch.meta
  // Per epoch read: the own share of its CPUs' cycles and its late samples'
  // toll (profiledb/own_cycles.h).
  std::map<uint64_t, EpochOwnShares> own_shares = {};
  std::map<uint64_t, std::string> machines = {};  // per epoch read: qemu or ev5 (issue 14)
  // Per epoch read, its process table (epoch-N/processes; none before issue 29).
  std::map<uint64_t, ProcessTable> processes = {};
  // Per (epoch, event) of the profiles read: what one sample stands for
  // (issue 26: the period and, when counter 2 was time-shared, the share).
  std::map<std::pair<uint64_t, uint16_t>, EventScale> scales = {};
};

// The scale of `info`'s samples (an unknown one when the set has none).
EventScale scale_of(const SampleSet& set, const ProfileInfo& info);

bool image_matches(const ImageIdentity& image, const std::string& wanted);

// Reads every matching profile of the database. Throws ProfileDatabaseError /
// ProfileFormatError (from the reader), std::runtime_error for an epoch
// the database does not have, or for a filter image no epoch has (the
// message lists the images it has).
SampleSet load_samples(const ProfileDatabase& database, const SampleFilter& filter);

// Which epochs of a single database `dcpi stats` and `dcpi diff` compare:
// every one ("--epochs each") or the listed ones ("--epochs a,b,c").
struct ComparedEpochs {
  bool each = false;
  std::vector<uint64_t> listed = {};
};

// The sample sets `dcpi stats` and `dcpi diff` compare: one per database, or,
// with `epochs` and a single database (the caller checks), one per epoch.
std::vector<SampleSet> load_comparison_sets(const std::vector<std::string>& databases,
                                            const std::optional<ComparedEpochs>& epochs,
                                            const SampleFilter& filter);

// part as a percentage of total: 0 when total is 0 (shares of samples).
double percent_of(uint64_t part, uint64_t total);

// Stored rows name the thread (profiledb/profile_db.h): `tid` gets it and
// `pid` its process from `table` (the thread itself without a table).
void resolve_threads(Profile& profile, const ProcessTable* table);

// Applies the PID/CPU/TID filter to rows already in memory (used by load_samples).
Profile filter_rows(Profile profile, const SampleFilter& filter);

}  // namespace dcpi
