#include "analysis/reports/score_output.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "analysis/reports/calc_output.h"
#include "analysis/reports/culprit_score_output.h"
#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"

namespace dcpi {
namespace {

void print_histogram(const char* title, const calc::ErrorHistogram& h, std::ostream& out) {
  out << title << '\n';
  for (int bucket : h.buckets()) {
    const double share = h.total_weight() > 0 ? h.weight(bucket) / h.total_weight() : 0;
    char line[64];
    std::snprintf(line, sizeof line, "  %7s %6.1f%%  ", calc::bucket_label(bucket).c_str(),
                  100 * share);
    out << line << std::string(static_cast<size_t>(share * 50 + 0.5), '#') << '\n';
  }
  char within[128];
  std::snprintf(within, sizeof within, "  within 5%%: %.1f%%, 10%%: %.1f%%, 15%%: %.1f%%\n",
                100 * h.fraction_within(5), 100 * h.fraction_within(10),
                100 * h.fraction_within(15));
  out << within;
}

// Doubles at ostream's default 6 significant digits, as score has always printed them.
void write_histogram(JsonWriter& json, const calc::ErrorHistogram& h) {
  json.begin_object().key("total_weight").real(h.total_weight(), 6);
  json.key("buckets").begin_object();
  for (int bucket : h.buckets()) json.key(calc::bucket_label(bucket)).real(h.weight(bucket), 6);
  json.end_object();
  for (int percent : {5, 10, 15})
    json.key("within_" + std::to_string(percent)).real(h.fraction_within(percent), 6);
  json.end_object();
}

// A cell of the per-procedure table: the share within 5/10/15 % without the
// % sign, "-" when nothing was scored.
std::string within_cell(double fraction, double total) {
  return total > 0 ? fixed_text(100 * fraction, 1) : "-";
}

// Issue 16 point 7: the image totals hide which procedures are off.
void print_procedure_table(std::vector<ProcedureScore> rows, std::ostream& out) {
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.samples > b.samples; });
  out << "\nPer procedure (5/10/15 %: share of its samples whose dcpi estimate is within that;\n"
         "flow 5 %: the same for the flow estimate; edges: share of edge executions within 5 %):\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %10s %6s %6s %6s %9s %7s  %s\n", "samples", "5%", "10%",
                "15%", "flow 5%", "edges", "procedure");
  out << line;
  for (const ProcedureScore& r : rows) {
    const calc::ErrorHistogram& h = r.dcpi_instructions;
    const double total = h.total_weight();
    std::snprintf(
        line, sizeof line, "  %10.0f %6s %6s %6s %9s %7s  ", r.samples,
        within_cell(h.fraction_within(5), total).c_str(),
        within_cell(h.fraction_within(10), total).c_str(),
        within_cell(h.fraction_within(15), total).c_str(),
        within_cell(r.flow_instructions.fraction_within(5), r.flow_instructions.total_weight())
            .c_str(),
        within_cell(r.edges.fraction_within(5), r.edges.total_weight()).c_str());
    out << line << r.name;
    if (r.missing_edges) {
      out << "  MISSING EDGES";
      if (r.missing_edge_executions > 0)
        out << " (" << static_cast<uint64_t>(r.missing_edge_executions)
            << " executions over edges the CFG lacks)";
    }
    out << '\n';
  }
}

void write_procedure_rows(JsonWriter& json, const std::vector<ProcedureScore>& rows) {
  json.key("per_procedure").begin_array(JsonWriter::Break::kLines);
  for (const ProcedureScore& r : rows) {
    json.begin_object().field("procedure", r.name).key("samples").real(r.samples, 6);
    json.field("missing_edges", r.missing_edges);
    json.key("missing_edge_executions").real(r.missing_edge_executions, 6);
    for (int percent : {5, 10, 15})
      json.key("within_" + std::to_string(percent))
          .real(r.dcpi_instructions.fraction_within(percent), 6);
    json.key("flow_within_5").real(r.flow_instructions.fraction_within(5), 6);
    json.key("edges_within_5").real(r.edges.fraction_within(5), 6);
    json.end_object();
  }
  json.end_array();
}

std::string no_stalls_note(const calc::GroundTruth& truth) {
  return "no stalls to score: the truth comes from machine " + truth.machine + " (version " +
         std::to_string(truth.version) +
         "), which runs 1 instruction per cycle and never stalls; record one with dcpi run "
         "--machine ev5 --truth FILE";
}

void print_estimators(const std::map<calc::FrequencyEstimator, EstimatorScores>& all,
                      std::ostream& out) {
  out << "\nEstimators (within 5/10/15 %):\n";
  for (const auto& [estimator, scores] : all) {
    const calc::ErrorHistogram i = calc::score(scores.instructions);
    const calc::ErrorHistogram e = calc::score(scores.edges);
    char line[160];
    std::snprintf(line, sizeof line,
                  "  %-5s instructions %5.1f%% %5.1f%% %5.1f%%   edges %5.1f%% %5.1f%% %5.1f%%\n",
                  std::string(to_string(estimator)).c_str(), 100 * i.fraction_within(5),
                  100 * i.fraction_within(10), 100 * i.fraction_within(15),
                  100 * e.fraction_within(5), 100 * e.fraction_within(10),
                  100 * e.fraction_within(15));
    out << line;
  }
}

void write_outlier(JsonWriter& json, const calc::PlacementOutlier& o) {
  json.begin_object().field("pc", hex_address(o.pc));
  json.key("samples").real(o.samples).key("expected").real(o.expected);
  json.key("z").real(o.z, 4).end_object();
}

void write_placement_json(JsonWriter& json, const calc::PlacementScore& p,
                          const std::string& key = "placement") {
  constexpr size_t kListed = 20;
  json.key(key).begin_object();
  json.key("samples").real(p.samples).field("true_cycles", p.true_cycles);
  json.field("instructions", uint64_t{p.instructions});
  json.key("distance").real(p.distance, 6).key("noise_distance").real(p.noise_distance, 6);
  json.key("noise_spread").real(p.noise_spread, 6).field("draws", uint64_t(p.draws));
  json.key("ratio").real(p.ratio, 6).field("judged", uint64_t{p.judged});
  json.field("left_out", uint64_t{p.left_out}).key("left_out_samples").real(p.left_out_samples);
  json.key("noise_farther").real(p.noise_farther, 4);
  json.key("noise_ratio_p95").real(p.noise_ratio_p95, 4);
  json.field("outliers_total", uint64_t{p.outliers.size()});
  // The cycles' placement is keyed "placement", an event's by its name.
  const bool event = key != "placement";
  json.key("expectation").value(p.visible_cycles ? "visible" : event ? "events" : "cycles");
  json.key("outliers").begin_array();
  for (size_t i = 0; i < p.outliers.size() && i < kListed; ++i) write_outlier(json, p.outliers[i]);
  json.end_array().key("worst");
  if (p.worst.pc != 0)
    write_outlier(json, p.worst);
  else
    json.null();
  json.end_object();
}

void print_placement(const calc::PlacementScore& p, std::ostream& out) {
  constexpr size_t kListed = 10;
  char line[256];
  out << (p.visible_cycles ? "\nSample placement (samples against the cycles a sample can land on "
                             "per instruction: PAL's where PAL returns):\n"
                           : "\nSample placement (samples against the truth's cycles per "
                             "instruction):\n");
  if (p.samples <= 0 || p.true_cycles == 0) {
    out << "  nothing to compare (no samples or no true cycles in the scored procedures)\n";
    return;
  }
  std::snprintf(line, sizeof line,
                "  total variation %.4f = %.2f x sampling noise (%.4f +- %.4f over %d draws of "
                "%.0f samples)\n",
                p.distance, p.ratio, p.noise_distance, p.noise_spread, p.draws, p.samples);
  out << line;
  std::snprintf(line, sizeof line,
                "  noise alone: %.0f %% of the draws as far or farther; 95 %% of them under "
                "%.2f x\n",
                100 * p.noise_farther, p.noise_ratio_p95);
  out << line;
  out << "  " << p.judged << " instructions with >= 200 expected samples, " << p.outliers.size()
      << " beyond 4 sigma\n";
  if (p.left_out > 0) {
    std::snprintf(line, sizeof line,
                  "  left out: %zu instructions after a CALL_PAL with %.0f samples (PALcode's "
                  "time lands there, a halted CPU's after wtint, a masked stretch's after "
                  "swpipl;\n  this truth has no visible lines to say how many)\n",
                  p.left_out, p.left_out_samples);
    out << line;
  }
  for (size_t i = 0; i < p.outliers.size() && i < kListed; ++i) {
    const calc::PlacementOutlier& o = p.outliers[i];
    std::snprintf(line, sizeof line, "    %s  %8.0f samples for %8.1f expected  %+6.1f sigma\n",
                  hex_address(o.pc).c_str(), o.samples, o.expected, o.z);
    out << line;
  }
}

void write_event_placement_json(JsonWriter& json, const ScoreRun& run) {
  json.key("event_placement").begin_object();
  for (const auto& [event, score] : run.event_placement) write_placement_json(json, score, event);
  json.end_object();
  json.key("event_placement_against_events").begin_object();
  for (const auto& [event, score] : run.event_placement_against_events)
    write_placement_json(json, score, event);
  json.end_object();
}

// Issue 26: each event's samples against where the truth says they can
// land (its `visible_` lines), or against its events per PC; `vs events`:
// against the events themselves, the blind spots included.
void print_event_placement(const ScoreRun& run, std::ostream& out) {
  if (run.event_placement.empty()) return;
  const bool visible = !run.event_placement_against_events.empty();
  out << (visible ? "\nEvent sample placement (each event's samples against the events a sample "
                    "can land on per instruction: PAL's and IPL 6's where the interrupt is "
                    "taken; vs events: against the truth's count of it):\n"
                  : "\nEvent sample placement (each event's samples against the truth's count "
                    "of it per instruction):\n");
  char line[256];
  std::snprintf(line, sizeof line, "  %-9s %9s %12s %9s %9s %6s %8s%s\n", "event", "samples",
                visible ? "can land" : "true events", "distance", "noise", "ratio", "outliers",
                visible ? " vs events" : "");
  out << line;
  for (const auto& [event, p] : run.event_placement) {
    if (p.samples <= 0 || p.true_cycles == 0) {
      std::snprintf(line, sizeof line, "  %-9s %9.0f %12llu   nothing to compare", event.c_str(),
                    p.samples, static_cast<unsigned long long>(p.true_cycles));
    } else {
      std::snprintf(line, sizeof line, "  %-9s %9.0f %12llu %9.4f %9.4f %6.2f %8zu", event.c_str(),
                    p.samples, static_cast<unsigned long long>(p.true_cycles), p.distance,
                    p.noise_distance, p.ratio, p.outliers.size());
    }
    out << line;
    if (const auto raw = run.event_placement_against_events.find(event);
        raw != run.event_placement_against_events.end() && raw->second.true_cycles != 0) {
      std::snprintf(line, sizeof line, " %10.2f", raw->second.ratio);
      out << line;
    }
    out << "\n";
  }
}

void write_convergence_json(JsonWriter& json, const calc::Convergence& c) {
  json.begin_object().field("instructions_k16", uint64_t{c.instructions});
  json.field("within_k16", uint64_t{c.within}).field("share_k16", c.share(), 4);
  json.key("by_records").begin_array();
  for (const calc::ConvergenceBucket& b : c.buckets)
    json.begin_object()
        .field("min_records", b.min_records)
        .field("instructions", uint64_t{b.instructions})
        .field("within", uint64_t{b.within})
        .end_object();
  json.end_array().end_object();
}

// Each procedure's projected cycles (or latency cycles) against the truth's.
void write_procedure_cycles_json(JsonWriter& json, const char* name,
                                 const std::vector<calc::ProcedureCycles>& rows) {
  json.key(name).begin_array();
  for (const calc::ProcedureCycles& row : rows)
    json.begin_object()
        .field("procedure", row.name)
        .real_field("projected_cycles", row.projected)
        .real_field("true_cycles", row.exact)
        .real_field("sigma", row.sigma)
        .real_field("records", row.records)
        .field("judged", row.judged())
        .field("within_2sigma", row.within_2sigma())
        .end_object();
  json.end_array();
}

void write_latency_json(JsonWriter& json, const char* name,
                        const std::vector<calc::ProcedureCycles>& rows, size_t judged,
                        size_t within) {
  json.field(std::string(name) + "_judged", uint64_t{judged});
  json.field(std::string(name) + "_within_2sigma", uint64_t{within});
  write_procedure_cycles_json(json, name, rows);
}

void write_profileme_json(JsonWriter& json, const ScoreRun& run) {
  json.key("profileme");
  if (!run.profileme) {
    json.null();
    return;
  }
  const calc::ProfileMeScore& p = *run.profileme;
  json.begin_object().real_field("interval", p.interval).real_field("records", p.records);
  json.key("executions");
  write_convergence_json(json, p.executions);
  json.key("dcache_misses");
  write_convergence_json(json, p.dcache_misses);
  json.key("squashed");
  write_convergence_json(json, p.squashed);
  json.real_field("aborted_projected", p.aborted_projected);
  json.real_field("squashed_true", p.squashed_exact);
  json.field("procedures_judged", uint64_t{p.procedures_judged});
  json.field("procedures_within_2sigma", uint64_t{p.procedures_within});
  write_procedure_cycles_json(json, "procedures", p.procedures);
  write_latency_json(json, "complete_latency", p.complete_latency, p.complete_judged,
                     p.complete_within);
  write_latency_json(json, "load_latency", p.load_latency, p.load_judged, p.load_within);
  json.field("pair_window", p.pair_window);
  json.field("waste_judged", uint64_t{p.waste_judged});
  json.field("waste_within_10", uint64_t{p.waste_within});
  json.key("wasted_slots").begin_array();
  for (const calc::ProcedureWaste& row : p.waste)
    json.begin_object()
        .field("procedure", row.name)
        .real_field("records", row.records)
        .real_field("estimated", row.estimated)
        .real_field("sigma", row.sigma)
        .real_field("true", row.exact)
        .field("within_10", row.within(calc::kWasteWithin))
        .end_object();
  json.end_array().end_object();
}

// Procedures' projections against the truth, the first ten; `within` is
// "-" where too few records judge it (calc::kMinJudgedRecords).
void print_procedure_cycles(const char* what, const std::vector<calc::ProcedureCycles>& rows,
                            size_t judged, size_t within, std::ostream& out) {
  out << "  " << what << ": " << within << " of the " << judged
      << " procedures with >= " << calc::kMinJudgedRecords
      << " records within 2 sigma of the truth's (" << rows.size()
      << " with records or true cycles)\n";
  TextTable table(
      {{"procedure", true}, {"records"}, {"projected"}, {"truth"}, {"sigma"}, {"within"}});
  for (size_t i = 0; i < std::min<size_t>(rows.size(), 10); ++i) {
    const calc::ProcedureCycles& row = rows[i];
    table.add_row({abbreviate_middle(row.name, 40), fixed_text(row.records, 0),
                   fixed_text(row.projected, 0), fixed_text(row.exact, 0), fixed_text(row.sigma, 0),
                   !row.judged()         ? "-"
                   : row.within_2sigma() ? "yes"
                                         : "no"});
  }
  table.print(out);
}

// A latency's sums x S per procedure against the truth (issue 27).
void print_latency(const char* what, const std::vector<calc::ProcedureCycles>& rows, size_t judged,
                   size_t within, std::ostream& out) {
  if (rows.empty()) return;
  print_procedure_cycles((std::string(what) + " per procedure (records' sums x S)").c_str(), rows,
                         judged, within, out);
}

void print_convergence(const char* what, const calc::Convergence& c, std::ostream& out) {
  out << "  " << what << ": " << c.within << " of " << c.instructions
      << " instructions expecting >= 16 records within 1 +- 1/sqrt(expected) ("
      << percent_text(100.0 * c.share()) << "; a Poisson count: 68%)\n    by records k, "
      << "within 1 +- 1/sqrt(k):";
  for (const calc::ConvergenceBucket& b : c.buckets)
    if (b.instructions) out << ' ' << b.min_records << "+: " << b.within << '/' << b.instructions;
  out << '\n';
}

// Paired sampling's wasted issue slots per procedure (seed 004 §5.2.3).
void print_waste(const calc::ProfileMeScore& p, std::ostream& out) {
  if (p.pair_window == 0) return;
  if (p.waste.empty()) {
    out << "  wasted issue slots: no truth to score them against (the truth has no "
           "wasted_slots lines)\n";
    return;
  }
  out << "  wasted issue slots per procedure (paired, W = " << p.pair_window
      << "; C x L x S/2 - U x W x S - executions): " << p.waste_within << " of the "
      << p.waste_judged << " with >= 1000 records within 10 % of the truth's\n";
  TextTable table(
      {{"procedure", true}, {"records"}, {"estimated"}, {"sigma"}, {"truth"}, {"error"}});
  for (size_t i = 0; i < std::min<size_t>(p.waste.size(), 10); ++i) {
    const calc::ProcedureWaste& row = p.waste[i];
    table.add_row({abbreviate_middle(row.name, 40), fixed_text(row.records, 0),
                   fixed_text(row.estimated, 0), fixed_text(row.sigma, 0), fixed_text(row.exact, 0),
                   row.exact > 0 ? percent_text(100.0 * row.error()) : "-"});
  }
  table.print(out);
}

// Issue 27: ProfileMe's records against the truth (docs/profileme.md).
void print_profileme(const ScoreRun& run, std::ostream& out) {
  if (!run.profileme) return;
  const calc::ProfileMeScore& p = *run.profileme;
  out << "\nProfileMe (" << static_cast<uint64_t>(p.records)
      << " records, S = " << fixed_text(p.interval, 1)
      << "): estimates k x S against the truth (Figure 3)\n";
  print_convergence("executions (retired records)", p.executions, out);
  print_convergence("D-cache misses (records with the bit)", p.dcache_misses, out);
  print_convergence("wrong-path fetches (aborted records)", p.squashed, out);
  out << "  wrong-path fetches of these procedures: " << fixed_text(p.aborted_projected, 0)
      << " projected, " << fixed_text(p.squashed_exact, 0) << " true\n";
  print_procedure_cycles("cycles per procedure (latencies x S)", p.procedures, p.procedures_judged,
                         p.procedures_within, out);
  print_latency("issue -> completion", p.complete_latency, p.complete_judged, p.complete_within,
                out);
  print_latency("load issue -> data", p.load_latency, p.load_judged, p.load_within, out);
  print_waste(p, out);
}

}  // namespace

void print_score_json(const ScoreRun& run, const CalcInputs& inputs, const CalcContext& context,
                      std::ostream& out) {
  const EstimatorScores& chosen = run.all.at(inputs.estimator);
  JsonWriter json(out, JsonWriter::Style::kSpaced);
  json.begin_object().field("image", context.image).field("model", inputs.model->name());
  json.key("period").real(inputs.period, 6).field("period_source", inputs.period_choice.source);
  json.field("estimate", to_string(inputs.estimator));
  json.field("procedures", uint64_t{run.procedures});
  json.field("procedures_missing_edges", uint64_t{run.missing});
  json.field("instructions_scored", uint64_t{chosen.instructions.size()});
  json.field("edges_scored", uint64_t{chosen.edges.size()});
  json.key("instructions");
  write_histogram(json, calc::score(chosen.instructions));
  json.key("edges");
  write_histogram(json, calc::score(chosen.edges));
  json.key("estimates").begin_object();
  for (const auto& [estimator, scores] : run.all) {
    json.key(std::string(to_string(estimator))).begin_object().key("instructions");
    write_histogram(json, calc::score(scores.instructions));
    json.key("edges");
    write_histogram(json, calc::score(scores.edges));
    json.end_object();
  }
  json.end_object();
  write_procedure_rows(json, run.rows);
  write_placement_json(json, run.placement);
  write_event_placement_json(json, run);
  write_profileme_json(json, run);
  json.field("truth_machine", run.truth.machine);
  if (run.culprits_wanted) {
    json.key("culprits");
    if (run.culprits)
      write_culprit_scores(json, *run.culprits);
    else
      json.null().field("culprits_note", no_stalls_note(run.truth));
    json.key("culprits_without_events");
    if (run.culprits_without_events)
      write_culprit_scores(json, *run.culprits_without_events);
    else
      json.null();
  }
  json.end_object();
}

void print_score_text(const ScoreRun& run, const CalcInputs& inputs, const CalcContext& context,
                      std::ostream& out) {
  const EstimatorScores& chosen = run.all.at(inputs.estimator);
  const calc::ErrorHistogram by_samples = calc::score(chosen.instructions);
  print_calc_header(context, std::string(inputs.model->name()), out);
  out << "truth: " << run.truth_path << " (machine " << run.truth.machine << ", version "
      << run.truth.version << ")\nscored: " << run.procedures << " procedures (" << run.missing
      << " with missing edges), " << chosen.instructions.size() << " instructions with samples ("
      << by_samples.total_weight() << " samples), " << chosen.edges.size() << " edges\n\n";
  print_histogram("Instruction frequencies (Figure 8), % of CYCLES samples by error of F x period:",
                  by_samples, out);
  out << '\n';
  print_histogram("Edge frequencies (Figure 9), % of edge executions by error:",
                  calc::score(chosen.edges), out);
  print_estimators(run.all, out);
  print_procedure_table(run.rows, out);
  print_placement(run.placement, out);
  print_event_placement(run, out);
  print_profileme(run, out);
  if (run.culprits) {
    print_culprit_scores(*run.culprits, out);
    if (run.culprits_without_events)
      print_event_effect(*run.culprits, *run.culprits_without_events, out);
  } else if (run.culprits_wanted) {
    out << "\nCulprits: " << no_stalls_note(run.truth) << '\n';
  }
}

}  // namespace dcpi
