#include "qemu/machine/plugins/ev5/truth_file.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "firmware/truth_format.h"
#include "qemu/machine/truth/truth_writer.h"

namespace dcpi::ev5 {

namespace {

struct Totals {
  std::map<uint64_t, uint64_t> executions;
  std::map<uint64_t, int64_t> cycles;
  std::map<std::tuple<uint64_t, StallCause, uint64_t>, uint64_t> stalls;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> edges;
  std::map<std::string, uint64_t> events;
  // Visible cycles per PC (sample_visibility.h), in a sampling run.
  std::map<uint64_t, int64_t> visible;
  bool sampling = false;
};

void add_static(const BlockRecord& block, Totals& totals) {
  for (size_t i = 0; i < block.timing.instructions.size(); ++i) {
    const uint64_t n = block.executions(i);
    if (!n) continue;
    const InstructionTiming& t = block.timing.instructions[i];
    totals.executions[t.pc] += n;
    totals.cycles[t.pc] += static_cast<int64_t>(n * t.cost);
    for (uint8_t k = 0; k < t.stall_count; ++k)
      totals.stalls[{t.pc, t.stalls[k].cause, t.stalls[k].culprit}] += n * t.stalls[k].cycles;
  }
}

void add_visible(const SampleVisibility& sampling, Totals& totals) {
  if (!sampling.enabled()) return;
  totals.sampling = true;
  uint64_t sum = 0;
  for (const auto& [pc, cycles] : sampling.visible()) {
    totals.visible[pc] += cycles;
    sum += static_cast<uint64_t>(std::max<int64_t>(cycles, 0));
  }
  totals.events[DCPI_TRUTH_VISIBLE_CYCLES_EVENT] += sum;
}

void add_dynamic(const VcpuModel& vcpu, Totals& totals) {
  const VcpuTruth& truth = vcpu.truth();
  for (const auto& [key, cycles] : truth.stalls) {
    totals.stalls[key] += cycles;
    totals.cycles[std::get<0>(key)] += static_cast<int64_t>(cycles);
  }
  for (const auto& [pc, cycles] : truth.cycle_corrections) totals.cycles[pc] += cycles;
  add_visible(truth.visibility, totals);
  for (const auto& [edge, count] : truth.edges) totals.edges[edge] += count;
  const MemoryEvents& m = vcpu.memory_events();
  totals.events["icache_miss"] += m.icache_miss;
  totals.events["dcache_miss"] += m.dcache_miss;
  totals.events["scache_miss"] += m.scache_miss;
  totals.events["bcache_miss"] += m.bcache_miss;
  totals.events["wbuf_full"] += m.wbuf_full;
  totals.events["invalidated"] += m.invalidated;
  totals.events["interventions"] += m.interventions;
  totals.events["itb_miss"] += truth.itb_miss;
  totals.events["dtb_miss"] += truth.dtb_miss;
  totals.events["mispredict"] += truth.mispredict;
  totals.events["exact_exits"] += truth.exact_exits;
}

void write_visible(truth::TruthWriter& out, const Totals& totals) {
  for (const auto& [pc, cycles] : totals.visible)
    if (cycles > 0) out.visible(pc, static_cast<uint64_t>(cycles));
}

// The records in the format's order (firmware/truth_format.h), each kind
// sorted: insn, edge, cycles, stall, the run's events, then visible.
void write(truth::TruthWriter& out, const Totals& totals, size_t vcpus) {
  out.machine(DCPI_TRUTH_MACHINE_EV5);
  out.vcpus(vcpus);
  for (const auto& [pc, n] : totals.executions) out.insn(pc, n);
  for (const auto& [edge, n] : totals.edges) out.edge(edge.first, edge.second, n);
  uint64_t all_cycles = 0, instructions = 0;
  for (const auto& [pc, n] : totals.executions) instructions += n;
  for (const auto& [pc, cycles] : totals.cycles) {
    const uint64_t c = cycles > 0 ? static_cast<uint64_t>(cycles) : 0;
    all_cycles += c;
    out.cycles(pc, c);
  }
  for (const auto& [key, cycles] : totals.stalls) {
    const auto& [pc, cause, culprit] = key;
    if (cycles)
      out.stall(pc, cause, cycles, culprit == kNoCulprit ? std::nullopt : std::optional(culprit));
  }
  out.event("instructions", instructions);
  out.event("cycles", all_cycles);
  for (const auto& [name, n] : totals.events) out.event(name.c_str(), n);
  if (totals.sampling) write_visible(out, totals);
}

}  // namespace

bool write_truth_file(const std::string& path, const std::vector<const BlockRecord*>& blocks,
                      const std::vector<const VcpuModel*>& vcpus, const std::string& images) {
  Totals totals;
  for (const BlockRecord* block : blocks) add_static(*block, totals);
  for (const VcpuModel* vcpu : vcpus) add_dynamic(*vcpu, totals);
  truth::TruthWriter out;
  const int version = totals.sampling ? DCPI_TRUTH_VERSION_VISIBLE : DCPI_TRUTH_VERSION_TIMED;
  if (!out.open(path, version, images)) return false;
  write(out, totals, vcpus.size());
  return out.close();
}

}  // namespace dcpi::ev5
