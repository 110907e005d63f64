#include "analysis/cli/calc_breakdown.h"

#include <algorithm>

#include "analysis/calc/frontend/breakdown.h"
#include "analysis/calc/estimate/culprits.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/json_writer.h"
#include "symbols/demangle.h"

namespace dcpi {

namespace {

struct ProcedureBreakdown {
  BreakdownRow row;
  double samples = 0;
};

ProcedureBreakdown breakdown_of(const CalcInputs& inputs, const ProcedureRange& procedure,
                                const std::optional<calc::GroundTruth>& truth) {
  AnalyzedProcedure result =
      analyze_code(inputs.code, procedure, *inputs.model, inputs.samples.cycles, inputs.estimator);
  const calc::CulpritReport culprits = calc::find_culprits(result.analysis, *inputs.model);
  const CalcReport report =
      build_calc_report(procedure.name, result.analysis, culprits, *inputs.model,
                        std::move(result.code.indirect_jumps), inputs.samples.total);
  ProcedureBreakdown b{.row = {.procedure = demangle(procedure.name),
                               .calc = breakdown_from_summary(report.summary, inputs.period)},
                       .samples = report.summary.samples};
  if (truth) b.row.truth = breakdown_from_truth(*truth, procedure.start, procedure.end);
  return b;
}

void write_breakdown(JsonWriter& json, const CycleBreakdown& b) {
  json.begin_object().key("total").real(b.total).key("execution").real(b.execution);
  json.key("slotting").real(b.slotting).key("dependency").real(b.dependency);
  json.key("functional_unit").real(b.functional_unit);
  json.key("dynamic_stall").real(b.dynamic_stall).key("dynamic").begin_object();
  for (const auto& [cause, value] : b.dynamic) {
    json.key(std::string(isa::stall_cause_name(cause))).begin_array();
    json.real(value.first).real(value.second).end_array();
  }
  json.end_object().key("other").real(b.other);
  json.key("unexplained_stall").real(b.unexplained_stall);
  json.key("unexplained_gain").real(b.unexplained_gain);
  json.key("net_sampling_error").real(b.net_sampling_error).end_object();
}

void write_row(JsonWriter& json, const BreakdownRow& row) {
  json.begin_object().field("procedure", row.procedure).key("calc");
  write_breakdown(json, row.calc);
  json.key("truth");
  if (row.truth)
    write_breakdown(json, *row.truth);
  else
    json.null();
  json.end_object();
}

// The run's top procedures by samples, and their sum.
std::vector<ProcedureBreakdown> top_procedures(const CalcInputs& inputs,
                                               const BreakdownRequest& request) {
  std::vector<ProcedureBreakdown> all;
  for (const ProcedureRange& procedure : inputs.code.procedures())
    if (samples_in(inputs.samples.cycles, procedure.start, procedure.end) > 0)
      all.push_back(breakdown_of(inputs, procedure, request.truth));
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.samples > b.samples; });
  if (all.size() > request.top) all.resize(request.top);
  return all;
}

}  // namespace

void print_calc_breakdown(const CalcInputs& inputs, const CalcContext& context,
                          const BreakdownRequest& request, std::ostream& out) {
  std::vector<ProcedureBreakdown> procedures;
  if (request.procedure)
    procedures.push_back(breakdown_of(
        inputs, select_code_procedure(inputs.code, *request.procedure), request.truth));
  else
    procedures = top_procedures(inputs, request);
  BreakdownRow run{.procedure = "the run's top procedures"};
  if (request.truth) run.truth.emplace();
  double samples = 0;
  for (const ProcedureBreakdown& p : procedures) {
    run.calc.add(p.row.calc);
    if (run.truth) run.truth->add(*p.row.truth);
    samples += p.samples;
  }
  if (request.json) {
    JsonWriter json(out, JsonWriter::Style::kSpaced);
    json.begin_object().field("image", context.image).field("machine", context.machine);
    json.field("model", inputs.model->name()).key("period").real(inputs.period);
    json.field("truth", request.truth_path)
        .key("procedures")
        .begin_array(JsonWriter::Break::kLines);
    for (const ProcedureBreakdown& p : procedures) write_row(json, p.row);
    json.end_array().key("run");
    write_row(json, run);
    json.end_object();
    return;
  }
  print_calc_header(context, std::string(inputs.model->name()), out);
  if (request.truth)
    out << "truth:  " << request.truth_path << " (machine " << request.truth->machine << ")\n";
  char title[256];
  if (request.procedure) {
    std::snprintf(title, sizeof title, "\nCycles of %s by cause (DCPI Figure 4), %.0f samples:",
                  procedures[0].row.procedure.c_str(), procedures[0].samples);
    print_breakdown(title, procedures[0].row.calc, procedures[0].row.truth, out);
    return;
  }
  out << "\nCycles by cause per procedure (DCPI Figure 4), the top " << procedures.size()
      << " by samples:\n";
  std::vector<BreakdownRow> rows;
  for (const ProcedureBreakdown& p : procedures) rows.push_back(p.row);
  print_breakdown_rows(rows, out);
  std::snprintf(title, sizeof title,
                "\nThe run: those %zu procedures together, %.0f samples (%.1f%% of the image's):",
                procedures.size(), samples,
                inputs.samples.total > 0 ? 100 * samples / inputs.samples.total : 0.0);
  print_breakdown(title, run.calc, run.truth, out);
}

}  // namespace dcpi
