// `dcpi score`: DCPI §6.2's evaluation — estimated execution counts (F ×
// mean period) against the exact counts of QEMU's exec_counts plugin (our
// dcpix), as the error histograms of Figure 8 (instructions, weighted by
// CYCLES samples) and Figure 9 (edges, weighted by executions).
#include <fstream>
#include <iostream>

#include "analysis/calc/ground_truth.h"
#include "analysis/calc/inputs.h"
#include "analysis/calc/render.h"
#include "analysis/calc/scoring.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/json_writer.h"

namespace dcpi {

const std::string_view kScoreUsage =
    "usage: dcpi score [--db DIR] --counts EXEC_COUNTS --image PATH_OR_NAME [--procedure NAME]\n"
    "                  [--model qemu|ev5] [--epoch N] [--period CYCLES] [--images DIR[:DIR]]\n"
    "                  [--mode user|pal] [--json]\n"
    "\n"
    "Scores dcpi calc's frequency estimates against exact counts (DCPI 6.2, Figures 8\n"
    "and 9). EXEC_COUNTS is the exec_counts plugin's file (docs/exec-counts-format.md);\n"
    "its counts are per virtual PC, so processes sharing addresses are summed.\n"
    "Without --procedure every procedure of the image with samples is scored.\n"
    "Other options as for dcpi calc.\n";

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

}  // namespace

int run_score_command(const std::vector<std::string>& arguments) {
  OptionSpec spec{.flags = {"json"}};
  for (const std::string& name : kCalcValueOptions) spec.with_value.insert(name);
  spec.with_value.insert("procedure");
  spec.with_value.insert("counts");
  const ParsedOptions options(arguments, spec);
  const std::string counts_path = options.required("counts");
  const CalcInputs inputs = load_calc_inputs(parse_calc_request(options));

  calc::GroundTruth truth;
  std::ifstream in(counts_path);
  if (!in) throw std::runtime_error("cannot open " + counts_path);
  std::string error;
  if (!calc::read_ground_truth(in, truth, error))
    throw std::runtime_error(counts_path + ": " + error);

  std::vector<const ProcedureRange*> procedures;
  if (const auto name = options.value("procedure")) {
    const ProcedureRange* p = &select_code_procedure(inputs.code, *name);
    procedures.push_back(p);
  } else {
    for (const ProcedureRange& p : inputs.code.procedures())
      if (samples_in(inputs.samples.cycles, p.start, p.end) > 0) procedures.push_back(&p);
  }
  std::vector<calc::ScoredCount> instructions, edges;
  for (const ProcedureRange* p : procedures) {
    const AnalyzedProcedure result =
        analyze_code(inputs.code, *p, *inputs.model, inputs.samples.cycles);
    for (const auto& s : calc::instruction_scores(result.analysis, truth, inputs.period))
      instructions.push_back(s);
    for (const auto& s : calc::edge_scores(result.analysis, truth, inputs.period))
      edges.push_back(s);
  }
  const calc::ErrorHistogram by_samples = calc::score(instructions);
  const calc::ErrorHistogram by_executions = calc::score(edges);

  const CalcContext context = calc_context(inputs);
  if (options.flag("json")) {
    JsonWriter json(std::cout, JsonWriter::Style::kSpaced);
    json.begin_object().field("image", context.image).field("model", inputs.model->name());
    json.key("period").real(inputs.period, 6).field("period_source", inputs.period_choice.source);
    json.field("procedures", uint64_t{procedures.size()});
    json.field("instructions_scored", uint64_t{instructions.size()});
    json.field("edges_scored", uint64_t{edges.size()});
    json.key("instructions");
    write_histogram(json, by_samples);
    json.key("edges");
    write_histogram(json, by_executions);
    json.end_object();
    return 0;
  }
  print_calc_header(context, std::string(inputs.model->name()), std::cout);
  std::cout << "exact counts: " << counts_path << "\nscored: " << procedures.size()
            << " procedures, " << instructions.size() << " instructions with samples ("
            << by_samples.total_weight() << " samples), " << edges.size() << " edges\n\n";
  print_histogram("Instruction frequencies (Figure 8), % of CYCLES samples by error of F x period:",
                  by_samples, std::cout);
  std::cout << '\n';
  print_histogram("Edge frequencies (Figure 9), % of edge executions by error:", by_executions,
                  std::cout);
  return 0;
}

}  // namespace dcpi
