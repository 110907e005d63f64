// Counting mode's figures (issue 26 item 4, `dcpi stat`): what perfex (the
// R10000 paper, seed 003) and `perf stat` print for a process, from the
// virtual counters the kernel kept (epoch-N/processes, counts lines). Each
// event's count, the share of the process's time it was counted (under
// multiplexing, less than 1), the projection count / share, its rate, and
// perfex's estimated time: count x a typical cost per event. Renders nothing
// (analysis/reports/stat_output.h prints it).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiledb/process_table.h"

namespace dcpi {

struct StatEvent {
  std::string name;
  uint64_t count = 0;           // counted (user mode)
  uint64_t counted_cycles = 0;  // the time it had the counter
  double share = 0;             // counted_cycles / the process's cycles
  uint64_t projected = 0;       // count / share (the count itself when share is 1)
  // perfex's estimate: projected x a typical cost (cycles), when the event
  // has one (typical_cost).
  std::optional<uint64_t> typical_cost;
  std::optional<uint64_t> estimated_cycles;
  // The truth's stall cycles of the event's cause in the row's processes
  // (dcpi stat --truth, ev5): what the estimate ignores (overlap) shows.
  std::optional<uint64_t> truth_stall_cycles;
};

struct StatRow {
  uint32_t pid = 0;  // 0: the whole machine (the sum of every process's own counts)
  std::string program;
  bool with_children = false;  // its waited-for descendants' counts are added
  uint64_t processes = 1;      // processes whose counts are summed
  uint64_t cycles = 0;         // their time while counting, kernel mode included
  // User-mode instructions (the ev5 machine's counter 0 on issues); none
  // when not counted.
  std::optional<uint64_t> instructions;
  std::vector<StatEvent> events;
  std::vector<uint32_t> pids;  // the processes summed (with their descendants)
};

// A typical cost in cycles of one `event` on the ev5 machine (perfex's
// per-event cost): nothing for an event without one (cycles).
std::optional<uint64_t> typical_cost(const std::string& event);

// Default (perf stat's inheritance): each program the run started (a child
// of a process with no parent, i.e. of init) with its waited-for
// descendants. `all` (-a): every process on its own, then the machine's
// total (pid 0). Processes without counts are left out.
std::vector<StatRow> stat_rows(const ProcessTable& table, bool all);

}  // namespace dcpi
