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

// One machine, or every one the epochs name ("mixed: ev5, qemu").
std::string machines_named(const std::set<std::string>& machines) {
  if (machines.empty()) return std::string(kMachineQemu);
  if (machines.size() == 1) return *machines.begin();
  std::string text = "mixed:";
  for (const std::string& machine : machines) text += (text.back() == ':' ? " " : ", ") + machine;
  return text;
}

}  // namespace

RunOverview summarize_run(const ProfileDatabase& database, const SampleSet& samples) {
  RunOverview overview;
  std::set<uint32_t> cpus;
  std::set<uint64_t> read;
  std::set<std::string> machines;
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
    machines.insert(meta.machine);
  }
  overview.machine = machines_named(machines);
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
