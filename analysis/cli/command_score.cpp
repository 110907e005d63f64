// `dcpi score`: DCPI §6.2's evaluation — estimated execution counts (F ×
// mean period) against the exact counts of QEMU's exec_counts plugin (our
// dcpix), as the error histograms of Figure 8 (instructions, weighted by
// CYCLES samples) and Figure 9 (edges, weighted by executions).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>

#include "analysis/calc/frontend/inputs.h"
#include "analysis/calc/frontend/render.h"
#include "analysis/calc/truth/culprit_scoring.h"
#include "analysis/calc/truth/ground_truth.h"
#include "analysis/calc/truth/placement.h"
#include "analysis/calc/truth/scoring.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/cli/score_culprits.h"
#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"

namespace dcpi {

const std::string_view kScoreUsage =
    "usage: dcpi score [--db DIR] --truth FILE --image PATH_OR_NAME [--procedure NAME]\n"
    "                  [--culprits] [--model qemu|ev5] [--epoch N] [--period CYCLES]\n"
    "                  [--images DIR[:DIR]] [--mode user|pal] [--estimate dcpi|flow] [--json]\n"
    "\n"
    "Scores dcpi calc's frequency estimates against exact counts (DCPI 6.2, Figures 8\n"
    "and 9). FILE is the truth a plugin wrote (dcpi run --truth; version 1 from the qemu\n"
    "machine, version 2 with cycles and stalls from ev5; docs/exec-counts-format.md);\n"
    "--counts FILE is the same. Its counts are per virtual PC, so processes sharing\n"
    "addresses are summed.\n"
    "--culprits also scores dcpicalc's stall cycles and culprit lists (DCPI 6.3) against\n"
    "an ev5 truth: per cause, the share of true stall cycles whose cause was listed\n"
    "(recall) and the share of listed culprits that were real (precision).\n"
    "Without --procedure every procedure of the image with samples is scored, with a\n"
    "table per procedure (samples, share within 5/10/15 %, missing edges flagged).\n"
    "Both estimators are scored (dcpi and flow, see dcpi calc --estimate); the\n"
    "histograms show --estimate's (default dcpi). Edges an unresolved jump took\n"
    "(missing from the CFG) are scored as not estimated. Other options as for dcpi calc.\n";

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

// What one estimator's estimates score over a set of procedures, and per
// procedure.
struct EstimatorScores {
  std::vector<calc::ScoredCount> instructions, edges;
};

struct ProcedureScore {
  std::string name;
  double samples = 0;
  bool missing_edges = false;
  double missing_edge_executions = 0;  // transfers over edges the CFG lacks
  calc::ErrorHistogram dcpi_instructions, flow_instructions, edges;
};

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

ProcedureScore score_procedure(const CalcInputs& inputs, const ProcedureRange& p,
                               const calc::GroundTruth& truth, calc::FrequencyEstimator chosen,
                               std::map<calc::FrequencyEstimator, EstimatorScores>& all,
                               calc::CulpritScores* culprits) {
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
    (e == calc::FrequencyEstimator::kDcpi ? row.dcpi_instructions : row.flow_instructions) =
        calc::score(instructions);
    if (e == chosen) row.edges = calc::score(edges);
    if (e == chosen && culprits)
      calc::score_culprits(result.analysis, calc::find_culprits(result.analysis, *inputs.model),
                           truth, inputs.period, *culprits);
    all[e].instructions.insert(all[e].instructions.end(), instructions.begin(), instructions.end());
    all[e].edges.insert(all[e].edges.end(), edges.begin(), edges.end());
  }
  return row;
}

std::string percent(double fraction, double total) {
  if (total <= 0) return "-";
  char text[16];
  std::snprintf(text, sizeof text, "%.1f", 100 * fraction);
  return text;
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
        percent(h.fraction_within(5), total).c_str(), percent(h.fraction_within(10), total).c_str(),
        percent(h.fraction_within(15), total).c_str(),
        percent(r.flow_instructions.fraction_within(5), r.flow_instructions.total_weight()).c_str(),
        percent(r.edges.fraction_within(5), r.edges.total_weight()).c_str());
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

// Everything one `dcpi score` computed, for the JSON or the text.
struct ScoreRun {
  std::string truth_path;
  calc::GroundTruth truth;
  size_t procedures = 0;
  size_t missing = 0;  // procedures with missing edges
  std::map<calc::FrequencyEstimator, EstimatorScores> all;
  std::vector<ProcedureScore> rows;
  bool culprits_wanted = false;
  std::optional<calc::CulpritScores> culprits;  // only on a timed machine's truth
  calc::PlacementScore placement;               // over the scored procedures
};

// Issue 25's oracle: the first number to look at when the machine changes.
calc::PlacementScore placement_of(const CalcInputs& inputs, const calc::GroundTruth& truth,
                                  const std::vector<const ProcedureRange*>& procedures) {
  std::vector<calc::AddressRange> ranges;
  for (const ProcedureRange* p : procedures) ranges.push_back({p->start, p->end});
  return calc::score_placement_in(inputs.samples.cycles, truth, ranges);
}

void write_outlier(JsonWriter& json, const calc::PlacementOutlier& o) {
  json.begin_object().field("pc", hex_address(o.pc));
  json.key("samples").real(o.samples).key("expected").real(o.expected);
  json.key("z").real(o.z, 4).end_object();
}

void write_placement_json(JsonWriter& json, const calc::PlacementScore& p) {
  constexpr size_t kListed = 20;
  json.key("placement").begin_object();
  json.key("samples").real(p.samples).field("true_cycles", p.true_cycles);
  json.field("instructions", uint64_t{p.instructions});
  json.key("distance").real(p.distance, 6).key("noise_distance").real(p.noise_distance, 6);
  json.key("noise_spread").real(p.noise_spread, 6).field("draws", uint64_t(p.draws));
  json.key("ratio").real(p.ratio, 6).field("judged", uint64_t{p.judged});
  json.field("outliers_total", uint64_t{p.outliers.size()});
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
  out << "\nSample placement (samples against the truth's cycles per instruction):\n";
  if (p.samples <= 0 || p.true_cycles == 0) {
    out << "  nothing to compare (no samples or no true cycles in the scored procedures)\n";
    return;
  }
  std::snprintf(line, sizeof line,
                "  total variation %.4f = %.2f x sampling noise (%.4f +- %.4f over %d draws of "
                "%.0f samples)\n",
                p.distance, p.ratio, p.noise_distance, p.noise_spread, p.draws, p.samples);
  out << line;
  out << "  " << p.judged << " instructions with >= 200 expected samples, " << p.outliers.size()
      << " beyond 4 sigma\n";
  for (size_t i = 0; i < p.outliers.size() && i < kListed; ++i) {
    const calc::PlacementOutlier& o = p.outliers[i];
    std::snprintf(line, sizeof line, "    %s  %8.0f samples for %8.1f expected  %+6.1f sigma\n",
                  hex_address(o.pc).c_str(), o.samples, o.expected, o.z);
    out << line;
  }
}

void write_score_json(const ScoreRun& run, const CalcInputs& inputs, const CalcContext& context) {
  const EstimatorScores& chosen = run.all.at(inputs.estimator);
  JsonWriter json(std::cout, JsonWriter::Style::kSpaced);
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
  json.field("truth_machine", run.truth.machine);
  write_placement_json(json, run.placement);
  if (run.culprits_wanted) {
    json.key("culprits");
    if (run.culprits)
      write_culprit_scores(json, *run.culprits);
    else
      json.null().field("culprits_note", no_stalls_note(run.truth));
  }
  json.end_object();
}

void print_estimators(const std::map<calc::FrequencyEstimator, EstimatorScores>& all) {
  std::cout << "\nEstimators (within 5/10/15 %):\n";
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
    std::cout << line;
  }
}

void print_score_text(const ScoreRun& run, const CalcInputs& inputs, const CalcContext& context) {
  const EstimatorScores& chosen = run.all.at(inputs.estimator);
  const calc::ErrorHistogram by_samples = calc::score(chosen.instructions);
  print_calc_header(context, std::string(inputs.model->name()), std::cout);
  std::cout << "truth: " << run.truth_path << " (machine " << run.truth.machine << ", version "
            << run.truth.version << ")\nscored: " << run.procedures << " procedures ("
            << run.missing << " with missing edges), " << chosen.instructions.size()
            << " instructions with samples (" << by_samples.total_weight() << " samples), "
            << chosen.edges.size() << " edges\n\n";
  print_histogram("Instruction frequencies (Figure 8), % of CYCLES samples by error of F x period:",
                  by_samples, std::cout);
  std::cout << '\n';
  print_histogram("Edge frequencies (Figure 9), % of edge executions by error:",
                  calc::score(chosen.edges), std::cout);
  print_estimators(run.all);
  print_procedure_table(run.rows, std::cout);
  print_placement(run.placement, std::cout);
  if (run.culprits)
    print_culprit_scores(*run.culprits, std::cout);
  else if (run.culprits_wanted)
    std::cout << "\nCulprits: " << no_stalls_note(run.truth) << '\n';
}

// The procedures scored: --procedure's, or every one with samples.
std::vector<const ProcedureRange*> scored_procedures(const CalcInputs& inputs,
                                                     const ParsedOptions& options) {
  std::vector<const ProcedureRange*> procedures;
  if (const auto name = options.value("procedure")) {
    procedures.push_back(&select_code_procedure(inputs.code, *name));
  } else {
    for (const ProcedureRange& p : inputs.code.procedures())
      if (samples_in(inputs.samples.cycles, p.start, p.end) > 0) procedures.push_back(&p);
  }
  return procedures;
}

}  // namespace

int run_score_command(const std::vector<std::string>& arguments) {
  OptionSpec spec{.flags = {"json", "culprits"}};
  for (const std::string& name : kCalcValueOptions) spec.with_value.insert(name);
  for (const char* name : {"procedure", "counts", "truth"}) spec.with_value.insert(name);
  const ParsedOptions options(arguments, spec);
  const std::optional<std::string> truth_option = options.value("truth");
  if (truth_option.has_value() == options.value("counts").has_value())
    throw UsageError("give the truth file once, as --truth FILE (or --counts FILE)");
  ScoreRun run{.truth_path = truth_option ? *truth_option : *options.value("counts")};
  const CalcInputs inputs = load_calc_inputs(parse_calc_request(options));
  run.truth = load_ground_truth(run.truth_path);
  if (inputs.samples.machine != run.truth.machine)
    std::cerr << "dcpi score: the profile comes from machine " << inputs.samples.machine << " but "
              << run.truth_path << " from machine " << run.truth.machine
              << ": they are not the same run\n";
  // On qemu's truth nothing stalls (1 instruction per cycle): nothing to score.
  run.culprits_wanted = options.flag("culprits");
  if (run.culprits_wanted && run.truth.timed()) run.culprits.emplace();

  const std::vector<const ProcedureRange*> procedures = scored_procedures(inputs, options);
  for (const ProcedureRange* p : procedures)
    run.rows.push_back(score_procedure(inputs, *p, run.truth, inputs.estimator, run.all,
                                       run.culprits ? &*run.culprits : nullptr));
  run.all[inputs.estimator];  // present even when nothing was scored
  run.procedures = procedures.size();
  run.placement = placement_of(inputs, run.truth, procedures);
  for (const ProcedureScore& r : run.rows) run.missing += r.missing_edges;
  const CalcContext context = calc_context(inputs);
  if (options.flag("json"))
    write_score_json(run, inputs, context);
  else
    print_score_text(run, inputs, context);
  return 0;
}

}  // namespace dcpi
