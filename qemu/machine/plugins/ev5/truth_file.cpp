#include "qemu/machine/plugins/ev5/truth_file.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "firmware/ev5_counters.h"
#include "firmware/events.h"
#include "firmware/profileme.h"
#include "firmware/truth_format.h"
#include "qemu/machine/truth/truth_writer.h"

namespace dcpi::ev5 {

namespace {

// ProfileMe's latency truths' `pcevent` names (docs/profileme.md).
constexpr const char* kCompleteLatency = "complete_latency";
constexpr const char* kLoadLatency = "load_latency";
constexpr const char* kStallBuckets[PROFILEME_LATENCY_BUCKETS] = {
    "stall_log2_0", "stall_log2_1", "stall_log2_2", "stall_log2_3",
    "stall_log2_4", "stall_log2_5", "stall_log2_6", "stall_log2_7"};
constexpr const char* kLoadBuckets[PROFILEME_LATENCY_BUCKETS] = {
    "load_log2_0", "load_log2_1", "load_log2_2", "load_log2_3",
    "load_log2_4", "load_log2_5", "load_log2_6", "load_log2_7"};

// One address space's lines (truth space 0: the shared kernel and PALcode
// ones), PCs as the guest ran them.
struct SpaceTotals {
  std::map<uint64_t, uint64_t> executions;
  std::map<uint64_t, int64_t> cycles;
  std::map<std::tuple<uint64_t, StallCause, uint64_t>, uint64_t> stalls;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> edges;
  // Visible cycles per PC (sample_visibility.h), in a sampling run.
  std::map<uint64_t, int64_t> visible;
  // Counter events per (event name, PC): the `pcevent` lines.
  std::map<std::pair<const char*, uint64_t>, uint64_t> events;
};

struct Totals {
  std::map<uint32_t, SpaceTotals> spaces;
  std::map<std::string, uint64_t> events;
  bool sampling = false;
  bool profileme = false;  // ProfileMe was armed on some CPU: its latency truths
  uint64_t instructions = 0, cycles = 0;

  SpaceTotals& of(uint64_t key) { return spaces[truth_space_of(key)]; }
};

// A line goes with its first user PC's space (a stall charged in the kernel
// for a user load, an edge into a user block), else with the shared lines.
uint32_t space_of(uint64_t first, uint64_t second) {
  return truth_space_of(first) ? truth_space_of(first) : truth_space_of(second);
}

// Counter 1's issue-width events of a block's issue groups, from each
// instruction's executions (the model counts them per entry, as it ran:
// VcpuModel::count_issue_groups): a group whose first j instructions ran
// issued j in its cycle; its first instruction's static wait is non-issue
// cycles (and a long stall beyond 15). Dynamic stalls are booked as they
// happen (VcpuModel::stalled).
void add_issue_groups(const BlockTiming& timing, uint32_t space,
                      const std::vector<uint64_t>& executions, Totals& totals) {
  static constexpr int kWidth[] = {DCPI_EVENT_ISSUE1, DCPI_EVENT_ISSUE2, DCPI_EVENT_ISSUE3,
                                   DCPI_EVENT_ISSUE4};
  const auto add = [&](uint64_t pc, int event, uint64_t n) {
    const char* name = kEventNames[event];
    totals.events[name] += n;
    if (n) totals.of(truth_key(pc, space)).events[{name, pc}] += n;
  };
  for (size_t i = 0; i < timing.instructions.size(); ++i) {
    const InstructionTiming& t = timing.instructions[i];
    if (t.issue_width == 0) continue;
    for (size_t j = 1; j <= t.issue_width; ++j) {
      const uint64_t ran = executions[i + j - 1];
      const uint64_t further = j < t.issue_width ? executions[i + j] : 0;
      add(t.pc, kWidth[j - 1], ran > further ? ran - further : 0);
    }
    add(t.pc, DCPI_EVENT_NONISSUE, executions[i] * (t.cost - 1));
    if (t.cost > 1 + EV5_LONG_STALL_CYCLES) add(t.pc, DCPI_EVENT_LONGSTALLS, executions[i]);
  }
}

void add_block(const BlockRecord& block, uint32_t space, uint64_t entries,
               const std::map<std::pair<const BlockRecord*, uint32_t>, uint64_t>& cuts,
               Totals& totals) {
  uint64_t left = 0;
  std::vector<uint64_t> executions(block.timing.instructions.size());
  for (size_t i = 0; i < block.timing.instructions.size(); ++i) {
    if (auto cut = cuts.find({&block, static_cast<uint32_t>(i)}); cut != cuts.end())
      left += cut->second;
    const uint64_t n = entries > left ? entries - left : 0;
    executions[i] = n;
    if (!n) continue;
    const InstructionTiming& t = block.timing.instructions[i];
    const uint64_t key = truth_key(t.pc, space);
    SpaceTotals& lines = totals.of(key);
    lines.executions[t.pc] += n;
    lines.cycles[t.pc] += static_cast<int64_t>(n * t.cost);
    // Issue -> completion of an operate is its unit latency every time; a
    // load's is booked as its data return (add_profileme_truth).
    if (totals.profileme && !t.load) {
      lines.events[{kCompleteLatency, t.pc}] += n * t.latency;
      totals.events[kCompleteLatency] += n * t.latency;
    }
    for (uint8_t k = 0; k < t.stall_count; ++k) {
      const uint64_t culprit = t.stalls[k].culprit;
      lines.stalls[{t.pc, t.stalls[k].cause, culprit}] += n * t.stalls[k].cycles;
    }
  }
  add_issue_groups(block.timing, space, executions, totals);
}

void add_blocks(const VcpuTruth& truth, Totals& totals) {
  for (const auto& [space, counts] : truth.blocks) {
    for (const auto& [block, entries] : counts.entries)
      add_block(*block, space, entries, counts.cuts, totals);
  }
}

void add_visible(const SampleVisibility& sampling, Totals& totals) {
  if (!sampling.enabled()) return;
  totals.sampling = true;
  uint64_t sum = 0;
  for (const auto& [key, weight] : sampling.visible()) {
    const auto cycles = static_cast<int64_t>(std::llround(weight));
    totals.of(key).visible[truth_pc_of(key)] += cycles;
    sum += static_cast<uint64_t>(std::max<int64_t>(cycles, 0));
  }
  totals.events[DCPI_TRUTH_VISIBLE_CYCLES_EVENT] += sum;
  totals.events["waited_cycles"] += static_cast<uint64_t>(sampling.waited_total());
}

void add_dynamic(const VcpuTruth& truth, Totals& totals) {
  for (const auto& [key, cycles] : truth.stalls) {
    const auto& [pc, cause, culprit] = key;
    SpaceTotals& lines = totals.spaces[space_of(pc, culprit)];
    lines.stalls[{truth_pc_of(pc), cause, truth_pc_of(culprit)}] += cycles;
    totals.of(pc).cycles[truth_pc_of(pc)] += static_cast<int64_t>(cycles);
  }
  for (const auto& [key, cycles] : truth.cycle_corrections)
    totals.of(key).cycles[truth_pc_of(key)] += cycles;
  for (const auto& [edge, count] : truth.edges)
    totals.spaces[space_of(edge.first, edge.second)]
        .edges[{truth_pc_of(edge.first), truth_pc_of(edge.second)}] += count;
  add_visible(truth.visibility, totals);
}

// The name a counter event has in samples and profiles (firmware/events.h),
// which the truth's `pcevent` lines use so that both compare by name.
const char* counted_event_name(ModelEvent event) {
  switch (event) {
    case ModelEvent::kICacheMiss:
      return kEventNames[DCPI_EVENT_IMISS];
    case ModelEvent::kItbMiss:
      return kEventNames[DCPI_EVENT_ITBMISS];
    case ModelEvent::kDCacheMiss:
      return kEventNames[DCPI_EVENT_DMISS];
    case ModelEvent::kDtbMiss:
      return kEventNames[DCPI_EVENT_DTBMISS];
    case ModelEvent::kBranchMispredict:
      return kEventNames[DCPI_EVENT_BRANCHMP];
    case ModelEvent::kPcMispredict:
      return kEventNames[DCPI_EVENT_PCMISPREDICT];
    case ModelEvent::kLoadReplay:
      return kEventNames[DCPI_EVENT_REPLAY];
    case ModelEvent::kLoad:
      return kEventNames[DCPI_EVENT_LOADS];
    case ModelEvent::kStore:
      return kEventNames[DCPI_EVENT_STORES];
    case ModelEvent::kNonIssue:
      return kEventNames[DCPI_EVENT_NONISSUE];
    case ModelEvent::kIssue1:
      return kEventNames[DCPI_EVENT_ISSUE1];
    case ModelEvent::kIssue2:
      return kEventNames[DCPI_EVENT_ISSUE2];
    case ModelEvent::kIssue3:
      return kEventNames[DCPI_EVENT_ISSUE3];
    case ModelEvent::kIssue4:
      return kEventNames[DCPI_EVENT_ISSUE4];
    case ModelEvent::kLongStall:
      return kEventNames[DCPI_EVENT_LONGSTALLS];
    default:
      return nullptr;
  }
}

// Each counter event per PC in its space's lines, and its whole-run sum as
// an `event` line of the same name (firmware/truth_format.h, version 6).
void add_counted_events(const VcpuTruth& truth, Totals& totals) {
  // Every counted event has its line, 0 included: the file says it counted.
  for (int e = 0; e < static_cast<int>(ModelEvent::kCount); ++e)
    if (const char* name = counted_event_name(static_cast<ModelEvent>(e))) totals.events[name];
  for (const auto& [key, n] : truth.events) {
    const char* name = counted_event_name(static_cast<ModelEvent>(key.second));
    if (!name) continue;
    totals.of(key.first).events[{name, truth_pc_of(key.first)}] += n;
    totals.events[name] += n;
  }
}

// Counts per truth key as `pcevent PC NAME N` lines in their spaces, and
// their sum as `event NAME` (its line present, 0 included: it was counted).
template <typename CountsByKey>
void add_pc_counts(const char* name, const CountsByKey& counts, Totals& totals) {
  totals.events[name];
  for (const auto& [key, n] : counts) {
    totals.of(key).events[{name, truth_pc_of(key)}] += n;
    totals.events[name] += n;
  }
}

// Where each sampled event's samples can land (event_visibility.h): the
// `pcevent PC visible_NAME W` lines and their sum `event visible_NAME`,
// written for every event a counter sampled (firmware/truth_format.h).
void add_visible_events(const EventVisibility& visible, Totals& totals) {
  for (int e = 0; e < static_cast<int>(ModelEvent::kCount); ++e) {
    const SampleVisibility* v = visible.of(static_cast<ModelEvent>(e));
    const char* event = counted_event_name(static_cast<ModelEvent>(e));
    if (!v || !event) continue;
    // The space lines key names by pointer: one lasting string per event.
    static std::array<std::string, static_cast<size_t>(ModelEvent::kCount)> names;
    std::string& held = names[static_cast<size_t>(e)];
    if (held.empty()) held = std::string(DCPI_TRUTH_VISIBLE_EVENT_PREFIX) + event;
    const char* name = held.c_str();
    uint64_t& sum = totals.events[held];
    for (const auto& [key, weight] : v->visible()) {
      const int64_t n = std::llround(weight);
      if (n <= 0) continue;
      totals.of(key).events[{name, truth_pc_of(key)}] += static_cast<uint64_t>(n);
      sum += static_cast<uint64_t>(n);
    }
  }
}

// ProfileMe's truths (issue 27), once the unit was armed: wasted issue
// slots per PC in a paired run (issue_slots.h), the wrong path's squashed
// fetches per PC.
// A latency distribution's lines: each bucket's whole-file line, 0
// included, and its counts per PC (`buckets` keyed by (truth key, bucket)).
template <typename Buckets>
void add_bucket_counts(const char* const (&names)[PROFILEME_LATENCY_BUCKETS],
                       const Buckets& buckets, Totals& totals) {
  for (const char* name : names) totals.events[name];
  for (const auto& [key, n] : buckets) {
    totals.of(key.first).events[{names[key.second], truth_pc_of(key.first)}] += n;
    totals.events[names[key.second]] += n;
  }
}

void add_profileme_truth(const VcpuModel& vcpu, Totals& totals) {
  if (vcpu.issue_slots_watched())
    add_pc_counts("wasted_slots", vcpu.issue_slots().wasted(), totals);
  if (!vcpu.truth().profile_unit) return;
  totals.events["profileme_records"] += vcpu.profileme_records();
  const LatencyTruth& latency = vcpu.truth().latency;
  add_pc_counts("squashed", vcpu.truth().squashed_fetches, totals);
  add_pc_counts("trap", latency.traps, totals);
  add_pc_counts(kLoadLatency, latency.load_cycles, totals);
  add_pc_counts(kCompleteLatency, latency.load_cycles, totals);  // a load completes with its data
  add_bucket_counts(kStallBuckets, latency.stall_buckets, totals);
  add_bucket_counts(kLoadBuckets, latency.load_buckets, totals);
}

void add_events(const VcpuModel& vcpu, Totals& totals) {
  const VcpuTruth& truth = vcpu.truth();
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
  totals.events["pc_mispredict"] += truth.pc_mispredict;
  totals.events["load_replays"] += truth.load_replays;
  totals.events["exact_exits"] += truth.exact_exits;
  totals.events["halted_cycles"] += truth.halted;
}

void count_all(Totals& totals) {
  for (const auto& [space, lines] : totals.spaces) {
    for (const auto& [pc, n] : lines.executions) totals.instructions += n;
    for (const auto& [pc, cycles] : lines.cycles)
      totals.cycles += cycles > 0 ? static_cast<uint64_t>(cycles) : 0;
  }
}

// One space's per-PC records in the format's order, each kind sorted.
void write_lines(truth::TruthWriter& out, const SpaceTotals& lines) {
  for (const auto& [pc, n] : lines.executions) out.insn(pc, n);
  for (const auto& [edge, n] : lines.edges) out.edge(edge.first, edge.second, n);
  for (const auto& [pc, cycles] : lines.cycles) out.cycles(pc, cycles > 0 ? uint64_t(cycles) : 0);
  for (const auto& [key, cycles] : lines.stalls) {
    const auto& [pc, cause, culprit] = key;
    if (cycles)
      out.stall(pc, cause, cycles, culprit == kNoCulprit ? std::nullopt : std::optional(culprit));
  }
}

void write_visible(truth::TruthWriter& out, const SpaceTotals& lines) {
  for (const auto& [pc, cycles] : lines.visible)
    if (cycles > 0) out.visible(pc, static_cast<uint64_t>(cycles));
}

// Sorted by name (the pointers come from one table), then PC.
void write_pc_events(truth::TruthWriter& out, const SpaceTotals& lines) {
  std::map<std::pair<std::string, uint64_t>, uint64_t> sorted;
  for (const auto& [key, n] : lines.events) sorted[{key.first, key.second}] += n;
  for (const auto& [key, n] : sorted) out.pc_event(key.second, key.first.c_str(), n);
}

// The shared lines, the run's events, then each address space's lines
// after its `space` line (firmware/truth_format.h).
void write(truth::TruthWriter& out, Totals& totals, size_t vcpus, const TruthSpaces& spaces) {
  out.machine(DCPI_TRUTH_MACHINE_EV5);
  out.vcpus(vcpus);
  count_all(totals);
  const SpaceTotals& shared = totals.spaces[0];
  write_lines(out, shared);
  out.event("instructions", totals.instructions);
  out.event("cycles", totals.cycles);
  for (const auto& [name, n] : totals.events) out.event(name.c_str(), n);
  if (totals.sampling) write_visible(out, shared);
  write_pc_events(out, shared);
  for (const auto& [space, lines] : totals.spaces) {
    if (space == 0) continue;
    const auto [pid, generation] = spaces.process(space);
    out.space(pid, generation);
    write_lines(out, lines);
    if (totals.sampling) write_visible(out, lines);
    write_pc_events(out, lines);
  }
}

}  // namespace

bool write_truth_file(const std::string& path, const std::vector<const VcpuModel*>& vcpus,
                      const TruthSpaces& spaces, const std::string& images) {
  Totals totals;
  for (const VcpuModel* vcpu : vcpus) totals.profileme |= vcpu->truth().profile_unit != nullptr;
  for (const VcpuModel* vcpu : vcpus) {
    add_blocks(vcpu->truth(), totals);
    add_dynamic(vcpu->truth(), totals);
    add_events(*vcpu, totals);
    add_counted_events(vcpu->truth(), totals);
    add_visible_events(vcpu->visible_events(), totals);
    add_profileme_truth(*vcpu, totals);
  }
  bool has_spaces = totals.spaces.size() > 1 || !totals.spaces.count(0);
  bool has_pc_events = std::any_of(totals.spaces.begin(), totals.spaces.end(),
                                   [](const auto& space) { return !space.second.events.empty(); });
  truth::TruthWriter out;
  const int version = has_pc_events     ? DCPI_TRUTH_VERSION_EVENTS
                      : has_spaces      ? DCPI_TRUTH_VERSION_SPACES
                      : totals.sampling ? DCPI_TRUTH_VERSION_VISIBLE
                                        : DCPI_TRUTH_VERSION_TIMED;
  if (!out.open(path, version, images)) return false;
  write(out, totals, vcpus.size(), spaces);
  return out.close();
}

}  // namespace dcpi::ev5
