#include "analysis/samples/process_counts.h"

#include <cmath>
#include <map>

namespace dcpi {
namespace {

// Cycles summed with each event's (count, counted cycles), own and
// optionally the children's.
struct Totals {
  uint64_t cycles = 0;
  uint64_t processes = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> events;

  void add(const ProcessCounts& c, bool children) {
    cycles += c.cycles + (children ? c.child_cycles : 0);
    processes += 1 + (children ? c.children : 0);
    for (const auto& [name, e] : c.events) {
      auto& [count, counted] = events[name];
      count += e.count + (children ? e.child_count : 0);
      counted += e.counted_cycles + (children ? e.child_counted_cycles : 0);
    }
  }
};

StatEvent stat_event(const std::string& name, uint64_t count, uint64_t counted, uint64_t cycles) {
  StatEvent e{name, count, counted, 0, count, typical_cost(name), std::nullopt, std::nullopt};
  e.share = cycles == 0 ? 0 : static_cast<double>(counted) / static_cast<double>(cycles);
  // The R10000 paper's projection: what the counter would have counted had
  // the event had it all the time (exact when it did).
  if (counted != cycles && e.share > 0)
    e.projected = static_cast<uint64_t>(std::llround(static_cast<double>(count) / e.share));
  if (e.typical_cost) e.estimated_cycles = e.projected * *e.typical_cost;
  return e;
}

StatRow row_of(uint32_t pid, std::string program, bool children, const Totals& t) {
  StatRow row{pid, std::move(program), children, t.processes, t.cycles, {}, {}, {}};
  for (const auto& [name, e] : t.events) {
    if (name == kInstructionsCountName) {
      row.instructions = e.first;  // counter 0: counted all the time
      continue;
    }
    row.events.push_back(stat_event(name, e.first, e.second, t.cycles));
  }
  return row;
}

// `pid` and, with `children`, every descendant the table knows.
std::vector<uint32_t> pids_of(const ProcessTable& table, uint32_t pid, bool children) {
  std::vector<uint32_t> pids{pid};
  for (size_t i = 0; children && i < pids.size(); ++i)
    for (const auto& [other, process] : table.processes)
      if (process.parent == pids[i] && other != pids[i]) pids.push_back(other);
  return pids;
}

}  // namespace

// The ev5 machine's typical costs (qemu/machine/plugins/ev5/machine.h, the
// 21164 HRM): an I- or D-cache miss that hits the S-cache (8 cycles), a TB
// miss's PALcode refill (25), a branch or jump-target mispredict (5). perfex used the
// R10000's typical costs the same way: it ignores overlap, which the
// truth's stall cycles beside it show.
std::optional<uint64_t> typical_cost(const std::string& event) {
  if (event == "imiss" || event == "dmiss") return 8;
  if (event == "itbmiss" || event == "dtbmiss") return 25;
  if (event == "branchmp" || event == "pcmispredict") return 5;
  return std::nullopt;
}

std::vector<StatRow> stat_rows(const ProcessTable& table, bool all) {
  std::vector<StatRow> rows;
  Totals machine;
  for (const auto& [pid, process] : table.processes) {
    if (!process.counts) continue;
    if (all) {
      Totals own;
      own.add(*process.counts, false);
      machine.add(*process.counts, false);
      rows.push_back(row_of(pid, table.program_name(pid), false, own));
      rows.back().pids = {pid};
      continue;
    }
    const auto parent = table.processes.find(process.parent);
    const bool started_by_init = parent != table.processes.end() && parent->second.parent == 0;
    if (!started_by_init) continue;
    Totals inherited;
    inherited.add(*process.counts, true);
    rows.push_back(row_of(pid, table.program_name(pid), true, inherited));
    rows.back().pids = pids_of(table, pid, true);
  }
  if (all && machine.processes != 0) {
    rows.push_back(row_of(0, "", false, machine));
    for (const auto& [pid, process] : table.processes)
      if (process.counts) rows.back().pids.push_back(pid);
  }
  return rows;
}

}  // namespace dcpi
