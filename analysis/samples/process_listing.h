// What `dcpi procs` lists (issue 29): each epoch's process table
// (epoch-N/processes) with the samples of every process and thread, like
// `ps -eLf` for a profiled run (the R10000 paper's tools reported per
// thread; perf report --sort pid,tid). Computed here, rendered by
// analysis/reports/procs_output.h.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/samples/sample_set.h"

namespace dcpi {

struct EpochProcesses {
  uint64_t epoch = 0;
  std::string machine;
  bool has_table = false;  // false: an epoch written before issue 29
  ProcessTable table;
  std::map<uint32_t, uint64_t> samples_by_tid;  // every event, the thread's
  std::map<uint32_t, uint64_t> samples_by_pid;  // the process's, all threads
};

// One entry per epoch of `samples` (which load_samples filled).
std::vector<EpochProcesses> list_processes(const SampleSet& samples);

// A Linux wait status as people read it: "exit 0", "signal 11 (core dumped)".
std::string wait_status_text(int64_t status);

}  // namespace dcpi
