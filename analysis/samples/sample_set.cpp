#include "analysis/samples/sample_set.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

namespace dcpi {

bool image_matches(const ImageIdentity& image, const std::string& wanted) {
  if (image.unknown) return wanted == "[unknown]" || wanted == "unknown";
  return image.path == wanted || std::filesystem::path(image.path).filename() == wanted;
}

void resolve_threads(Profile& profile, const ProcessTable* table) {
  for (ProfileRow& row : profile.rows) {
    row.tid = row.pid;
    if (table) row.pid = table->process_of(row.tid);
  }
  if (table) std::sort(profile.rows.begin(), profile.rows.end());
}

Profile filter_rows(Profile profile, const SampleFilter& filter) {
  if (!filter.pid && !filter.cpu && !filter.tid) return profile;
  std::erase_if(profile.rows, [&](const ProfileRow& row) {
    return (filter.pid && row.pid != *filter.pid) || (filter.cpu && row.cpu != *filter.cpu) ||
           (filter.tid && row.tid != *filter.tid);
  });
  profile.info.row_count = profile.rows.size();
  profile.info.total_count = 0;
  for (const ProfileRow& row : profile.rows) profile.info.total_count += row.count;
  return profile;
}

namespace {

// --image names no image of any epoch (issue 16): say which the database has,
// rather than print an empty report.
void require_known_image(const ProfileDatabase& database, const std::string& wanted) {
  std::set<std::string> names;
  for (uint64_t epoch : database.epochs())
    for (const ProfileInfo& info : database.profiles(epoch)) {
      if (image_matches(info.image, wanted)) return;
      names.insert(info.image.unknown ? "[unknown]" : info.image.path);
    }
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  throw std::runtime_error("no image '" + wanted + "' in " + database.directory().string() +
                           (names.empty() ? " (it holds no profiles)" : "; it has " + list));
}

}  // namespace

SampleSet load_samples(const ProfileDatabase& database, const SampleFilter& filter) {
  if (filter.image) require_known_image(database, *filter.image);
  SampleSet set;
  set.label = database.directory().filename().string();
  if (set.label.empty()) set.label = database.directory().string();
  for (uint64_t epoch : database.select_epochs(filter.epochs)) {
    const EpochMetadata metadata = database.epoch_metadata(epoch);
    set.periods[epoch] = metadata.period;
    set.own_shares[epoch] = epoch_own_shares(database, epoch, metadata);
    set.machines[epoch] = metadata.machine;
    const std::optional<ProcessTable> table = database.process_table(epoch);
    if (table) set.processes[epoch] = *table;
    for (const ProfileInfo& info : database.profiles(epoch)) {
      if (filter.image && !image_matches(info.image, *filter.image)) continue;
      set.scales[{epoch, info.event}] = event_scale(metadata, info.event);
      Profile profile = database.read_profile(info);
      resolve_threads(profile, table ? &*table : nullptr);
      profile = filter_rows(std::move(profile), filter);
      if (!profile.rows.empty()) set.profiles.push_back(std::move(profile));
    }
  }
  return set;
}

std::vector<SampleSet> load_comparison_sets(const std::vector<std::string>& databases,
                                            const std::optional<ComparedEpochs>& epochs,
                                            const SampleFilter& filter) {
  std::vector<SampleSet> sets;
  if (epochs) {
    const ProfileDatabase database = ProfileDatabase::open(databases.at(0));
    const std::vector<uint64_t> chosen = epochs->each ? database.epochs() : epochs->listed;
    for (uint64_t epoch : chosen) {
      SampleFilter one = filter;
      one.epochs = std::vector<uint64_t>{epoch};
      sets.push_back(load_samples(database, one));
      sets.back().label = "epoch " + std::to_string(epoch);
    }
    return sets;
  }
  for (const std::string& path : databases) {
    sets.push_back(load_samples(ProfileDatabase::open(path), filter));
    sets.back().label = path;  // the path as typed: distinct even when base names repeat
  }
  return sets;
}

EventScale scale_of(const SampleSet& set, const ProfileInfo& info) {
  const auto found = set.scales.find({info.epoch, info.event});
  return found == set.scales.end() ? EventScale{} : found->second;
}

double percent_of(uint64_t part, uint64_t total) {
  return total == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(total);
}

}  // namespace dcpi
