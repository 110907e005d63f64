// The overview at the top of the HTML report: what the run was (machine,
// CPUs, sampling period, epochs), how many samples it stored and lost, and
// how they divide between processes and CPUs (DCPI §4.3.3: the database
// keeps per-epoch profiles with PID and CPU, §3.1: dcpiprof's breakdowns).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/samples/sample_set.h"
#include "profiledb/profile_db.h"

namespace dcpi::html {

struct EpochSummary {
  uint64_t epoch = 0;
  uint64_t samples = 0;          // stored, unknown included (epoch.meta)
  uint64_t unknown_samples = 0;  // of those, no image claimed
  uint64_t driver_dropped = 0;   // Σ over CPUs of the driver's dropped_* counters
  uint64_t ring_dropped = 0;     // samples the transfer ring could not take
  uint64_t records_lost = 0;     // transfer-record sequence gaps
  size_t cpus = 0;               // CPUs that reported driver statistics
  std::string period;            // "[60000, 64000)", "unknown", ...
};

struct RunOverview {
  // The machine the samples came from, as the epochs record it (epoch.meta
  // `machine`: qemu or ev5); "mixed: ev5, qemu" when they differ.
  std::string machine{kMachineQemu};
  std::vector<EpochSummary> epochs;
  std::vector<uint32_t> cpus;           // CPU numbers seen in statistics or samples
  uint64_t selected_samples = 0;        // in the (filtered) sample set, every event
  std::map<uint32_t, uint64_t> by_pid;  // selected samples per PID (0: kernel)
  std::map<uint32_t, uint64_t> by_cpu;  // selected samples per CPU
};

RunOverview summarize_run(const ProfileDatabase& database, const SampleSet& samples);

}  // namespace dcpi::html
