#include "analysis/samples/process_listing.h"

namespace dcpi {

std::vector<EpochProcesses> list_processes(const SampleSet& samples) {
  std::map<uint64_t, EpochProcesses> epochs;
  for (const auto& [epoch, machine] : samples.machines) {
    EpochProcesses& entry = epochs[epoch];
    entry.epoch = epoch;
    entry.machine = machine;
    if (const auto table = samples.processes.find(epoch); table != samples.processes.end()) {
      entry.has_table = true;
      entry.table = table->second;
    }
  }
  for (const Profile& profile : samples.profiles) {
    EpochProcesses& entry = epochs[profile.info.epoch];
    for (const ProfileRow& row : profile.rows) {
      entry.samples_by_tid[row.tid] += row.count;
      entry.samples_by_pid[row.pid] += row.count;
    }
  }
  std::vector<EpochProcesses> list;
  for (auto& [epoch, entry] : epochs) list.push_back(std::move(entry));
  return list;
}

std::string wait_status_text(int64_t status) {
  // Linux's encoding: exit code << 8, or the signal number (| 0x80 for a core).
  const int64_t signal = status & 0x7f;
  if (signal == 0) return "exit " + std::to_string((status >> 8) & 0xff);
  return "signal " + std::to_string(signal) + ((status & 0x80) ? " (core dumped)" : "");
}

}  // namespace dcpi
