#include "analysis/calc/frontend/estimate_scores.h"

#include "analysis/calc/estimate/culprits.h"
#include "firmware/truth_format.h"
#include "isa/ev5_unit_latency.h"
#include "isa/pal_functions.h"
#include "profiledb/event_modes.h"
#include "profiledb/profile_format.h"

namespace dcpi {
namespace {

// Transfers the exact counts saw out of the procedure's unresolved indirect
// jumps to its own code: edges the CFG does not have (DCPI 6.1.1's missing
// edges), scored as estimated 0 so that an unread table shows in Figure 9.
std::vector<calc::ScoredCount> missing_edge_scores(const AnalyzedProcedure& result,
                                                   const calc::GroundTruth& truth) {
  std::vector<calc::ScoredCount> scores;
  const ProcedureRange& range = result.code.range;
  for (const calc::InstructionRecord& r : result.code.records) {
    if (r.control_flow != calc::ControlFlow::kIndirectJump || !r.jump_targets.empty()) continue;
    for (auto it = truth.edges().lower_bound({r.address, 0});
         it != truth.edges().end() && it->first.first == r.address; ++it)
      if (it->first.second >= range.start && it->first.second < range.end)
        scores.push_back(
            {.estimated = 0, .exact = double(it->second), .weight = double(it->second)});
  }
  return scores;
}

// The instructions after a wtint or swpipl (isa::uncounted_time_lands_after):
// left out of the placement with PAL's landings when the truth has no
// visible lines to say how much sleep or masked time lands there.
void add_uncounted_time_landings(std::span<const calc::InstructionRecord> records,
                                 std::vector<uint64_t>& landings) {
  for (size_t i = 0; i + 1 < records.size(); ++i) {
    constexpr uint32_t kFunctionBits = 0x3ffffff;  // CALL_PAL's 26-bit function field
    if (records[i].kind == isa::Kind::kCallPal &&
        isa::uncounted_time_lands_after(records[i].encoding & kFunctionBits))
      landings.push_back(records[i + 1].address);
  }
}

ProcedureScore score_procedure(const CalcInputs& inputs, const ProcedureRange& p,
                               const calc::GroundTruth& truth, calc::FrequencyEstimator chosen,
                               std::map<calc::FrequencyEstimator, EstimatorScores>& all,
                               ScoreRun& run) {
  ProcedureScore row{.name = p.name, .samples = samples_in(inputs.samples.cycles, p.start, p.end)};
  for (const calc::FrequencyEstimator e :
       {calc::FrequencyEstimator::kDcpi, calc::FrequencyEstimator::kFlow}) {
    const AnalyzedProcedure result =
        analyze_code(inputs.code, p, *inputs.model, inputs.samples.cycles, e);
    const auto instructions = calc::instruction_scores(result.analysis, truth, inputs.period);
    auto edges = calc::edge_scores(result.analysis, truth, inputs.period);
    for (const calc::ScoredCount& m : missing_edge_scores(result, truth)) {
      edges.push_back(m);
      if (e == chosen) row.missing_edge_executions += m.exact;
    }
    row.missing_edges = result.analysis.cfg.missing_edges();
    if (e == chosen) {
      for (const calc::PalcodeLanding& l : result.analysis.palcode_landings)
        run.palcode_landings.push_back(l.address);
      add_uncounted_time_landings(result.code.records, run.palcode_landings);
    }
    (e == calc::FrequencyEstimator::kDcpi ? row.dcpi_instructions : row.flow_instructions) =
        calc::score(instructions);
    if (e == chosen) row.edges = calc::score(edges);
    if (e == chosen && run.culprits)
      calc::score_culprits(p.name, result.analysis,
                           calc::find_culprits(result.analysis, *inputs.model, inputs.culprits),
                           truth, inputs.period, *run.culprits);
    if (e == chosen && run.culprits_without_events) {
      calc::CulpritOptions cycles_only = inputs.culprits;
      cycles_only.events.clear();
      calc::score_culprits(p.name, result.analysis,
                           calc::find_culprits(result.analysis, *inputs.model, cycles_only), truth,
                           inputs.period, *run.culprits_without_events);
    }
    all[e].instructions.insert(all[e].instructions.end(), instructions.begin(), instructions.end());
    all[e].edges.insert(all[e].edges.end(), edges.begin(), edges.end());
  }
  return row;
}

// The procedures scored: --procedure's, or every one with samples.
std::vector<const ProcedureRange*> scored_procedures(const CalcInputs& inputs,
                                                     const std::optional<std::string>& name) {
  std::vector<const ProcedureRange*> procedures;
  if (name) {
    procedures.push_back(&select_code_procedure(inputs.code, *name, &inputs.samples.cycles));
  } else {
    for (const ProcedureRange& p : inputs.code.procedures())
      if (samples_in(inputs.samples.cycles, p.start, p.end) > 0) procedures.push_back(&p);
  }
  return procedures;
}

// Issue -> completion per PC (isa/ev5_unit_latency.h): a
// load's from its records' data latencies, any other instruction's unit
// latency per retired record.
void add_completions(const ProcedureCode& code, calc::ProfileMeRecords& records) {
  for (const calc::InstructionRecord& instruction : code.records) {
    const uint64_t pc = instruction.address;
    if (const std::optional<uint32_t> latency = isa::ev5_unit_latency(instruction.encoding)) {
      if (const auto retired = records.retired.find(pc); retired != records.retired.end())
        records.complete[pc] = retired->second * *latency;
    } else if (const auto load = records.load.find(pc); load != records.load.end()) {
      records.complete[pc] = load->second;
    }
  }
}

// Issue 27: the records of the procedures that have some (--procedure's
// alone when given), against the truth.
void score_profileme_records(const CalcInputs& inputs, const std::optional<std::string>& name,
                             ScoreRun& run) {
  const auto& events = inputs.samples.events;
  const auto interval = inputs.samples.events_per_sample.find("pm_samples");
  if (interval == inputs.samples.events_per_sample.end() || !events.count("pm_samples")) return;
  auto records_of = [&](const char* event) {
    const auto found = events.find(event);
    return found == events.end()
               ? calc::RecordsByAddress{}
               : calc::RecordsByAddress(found->second.begin(), found->second.end());
  };
  calc::ProfileMeRecords records;
  records.samples = records_of("pm_samples");
  records.retired = records_of("pm_retired");
  records.dmiss = records_of("pm_dmiss");
  records.interval = interval->second;
  for (const char* latency : {"pm_issue_cycles", "pm_fetch_cycles", "pm_stall_cycles"})
    for (const auto& [pc, cycles] : records_of(latency)) records.latency[pc] += cycles;
  for (const auto& [pc, k] : records.samples) {
    const auto retired = records.retired.find(pc);
    const double aborted = k - (retired == records.retired.end() ? 0.0 : retired->second);
    if (aborted > 0) records.aborted[pc] = aborted;
  }
  records.load = records_of("pm_load_cycles");
  records.stall = records_of("pm_stall_cycles");
  records.fetch = records_of("pm_fetch_cycles");
  records.imiss = records_of("pm_imiss");
  for (uint16_t b = 0; b < records.stall_log2.size(); ++b) {
    records.stall_log2[b] =
        records_of(profile_format::event_name(PROFILEME_EVENT_STALL_LOG2_0 + b).c_str());
    records.load_log2[b] =
        records_of(profile_format::event_name(PROFILEME_EVENT_LOAD_LOG2_0 + b).c_str());
  }
  records.window = records_of("pm_window_cycles");
  records.overlap = records_of("pm_overlap");
  records.window_squares = records_of("pm_window_sq");
  records.pair_window = inputs.samples.profileme_pair_window;
  std::vector<calc::NamedRange> procedures;
  for (const ProcedureRange& p : inputs.code.procedures())
    if ((!name || p.name == *name) && samples_in(events.at("pm_samples"), p.start, p.end) > 0) {
      procedures.push_back({p.name, {p.start, p.end}});
      add_completions(inputs.code.code(p), records);
    }
  run.profileme = calc::score_profileme(records, run.truth, procedures);
}

// The truth's events a profile named `event` could have counted: with a
// modifier (imiss:u, issue 26) only those at PCs of its modes (an event at a
// user PC happens in user mode; profiledb/event_modes.h counts_at).
std::unordered_map<uint64_t, uint64_t> events_in_modes(
    const std::unordered_map<uint64_t, uint64_t>& events, const std::string& event) {
  const uint32_t kill = kill_bits_of_event_name(event).value_or(0);
  if (kill == 0) return events;
  std::unordered_map<uint64_t, uint64_t> kept;
  for (const auto& [pc, n] : events)
    if (counts_at(kill, pc)) kept.emplace(pc, n);
  return kept;
}

// One event's samples against where the truth says they can land (its
// `visible_` lines) when it says so, else against the events per PC.
void score_event(const std::string& event, const calc::SamplesByAddress& samples,
                 const std::vector<calc::AddressRange>& ranges, ScoreRun& run) {
  const std::string base(event_base_name(event));
  const auto& per_pc = run.truth.pc_events();
  const auto events = per_pc.find(base);
  if (events == per_pc.end()) return;
  calc::PlacementScore against_events =
      calc::score_event_placement_in(samples, events_in_modes(events->second, event), ranges);
  const std::string visible_name = DCPI_TRUTH_VISIBLE_EVENT_PREFIX + base;
  if (!run.truth.events().contains(visible_name)) {
    run.event_placement[event] = std::move(against_events);
    return;
  }
  const auto visible = per_pc.find(visible_name);
  const calc::GroundTruth::PcCounts none;
  calc::PlacementScore score = calc::score_event_placement_in(
      samples, events_in_modes(visible == per_pc.end() ? none : visible->second, event), ranges);
  score.visible_cycles = true;
  run.event_placement[event] = std::move(score);
  run.event_placement_against_events[event] = std::move(against_events);
}

}  // namespace

void score_estimates(const CalcInputs& inputs, const std::optional<std::string>& procedure,
                     ScoreRun& run) {
  const std::vector<const ProcedureRange*> procedures = scored_procedures(inputs, procedure);
  for (const ProcedureRange* p : procedures)
    run.rows.push_back(score_procedure(inputs, *p, run.truth, inputs.estimator, run.all, run));
  run.all[inputs.estimator];  // present even when nothing was scored
  run.procedures = procedures.size();
  for (const ProcedureScore& r : run.rows) run.missing += r.missing_edges;
  std::vector<calc::AddressRange> ranges;
  for (const ProcedureRange* p : procedures) ranges.push_back({p->start, p->end});
  run.placement =
      calc::score_placement_in(inputs.samples.landed, run.truth, ranges, run.palcode_landings);
  for (const auto& [event, samples] : inputs.samples.events)
    score_event(event, samples, ranges, run);
  score_profileme_records(inputs, procedure, run);
}

}  // namespace dcpi
