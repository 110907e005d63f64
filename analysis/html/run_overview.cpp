#include "analysis/html/run_overview.h"

#include <set>

namespace dcpi::html {
namespace {

uint64_t driver_dropped(const EpochMetadata& meta) {
  uint64_t dropped = 0;
  for (const auto& [cpu, stats] : meta.cpu_stats)
    for (const auto& [name, value] : stats)
      if (name.starts_with("dropped")) dropped += value;
  return dropped;
}

}  // namespace

RunOverview summarize_run(const ProfileDatabase& database, const SampleSet& samples) {
  RunOverview overview;
  std::set<uint32_t> cpus;
  std::set<uint64_t> read;
  for (const Profile& profile : samples.profiles) read.insert(profile.info.epoch);
  for (const auto& [epoch, period] : samples.periods) read.insert(epoch);
  for (const uint64_t epoch : read) {
    const EpochMetadata meta = database.epoch_metadata(epoch);
    overview.epochs.push_back({.epoch = epoch,
                               .samples = meta.samples,
                               .unknown_samples = meta.unknown_samples,
                               .driver_dropped = driver_dropped(meta),
                               .ring_dropped = meta.ring_samples_dropped,
                               .records_lost = meta.records_lost,
                               .cpus = meta.cpu_stats.size(),
                               .period = to_string(meta.period)});
    for (const auto& [cpu, stats] : meta.cpu_stats) cpus.insert(cpu);
  }
  for (const Profile& profile : samples.profiles)
    for (const ProfileRow& row : profile.rows) {
      overview.selected_samples += row.count;
      overview.by_pid[row.pid] += row.count;
      overview.by_cpu[row.cpu] += row.count;
      cpus.insert(row.cpu);
    }
  overview.cpus.assign(cpus.begin(), cpus.end());
  return overview;
}

}  // namespace dcpi::html
