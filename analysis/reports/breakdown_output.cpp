#include "analysis/reports/breakdown_output.h"

#include <cstdio>

#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"

namespace dcpi {

using calc::StallCause;

namespace {

std::string range(std::pair<double, double> value, double total) {
  if (total <= 0) return "-";
  if (value.first == value.second) return share_text(value.first, total);
  return share_text(value.first, total) + " to " + share_text(value.second, total);
}

std::pair<double, double> dynamic_of(const CycleBreakdown& b, StallCause cause) {
  const auto found = b.dynamic.find(cause);
  return found == b.dynamic.end() ? std::pair{0.0, 0.0} : found->second;
}

void row(std::ostream& out, const std::string& name, const std::string& calc,
         const std::optional<std::string>& truth) {
  char line[160];
  std::snprintf(line, sizeof line, "  %-32s %-20s %s\n", name.c_str(), calc.c_str(),
                truth ? truth->c_str() : "");
  out << line;
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

}  // namespace

void print_breakdown(const std::string& title, const CycleBreakdown& calc,
                     const std::optional<CycleBreakdown>& truth, std::ostream& out) {
  const double c = calc.total, t = truth ? truth->total : 0;
  const auto of_truth = [&](double value) -> std::optional<std::string> {
    if (!truth) return std::nullopt;
    return share_text(value, t);
  };
  const std::optional<std::string> none = truth ? std::optional<std::string>("-") : std::nullopt;
  out << title << '\n';
  row(out, "category", "calc (samples)", truth ? std::optional<std::string>("truth") : none);
  row(out, "Execution (issue)", share_text(calc.execution, c),
      of_truth(truth ? truth->execution : 0));
  row(out, "Static: slotting", share_text(calc.slotting, c), of_truth(truth ? truth->slotting : 0));
  row(out, "Static: dependency", share_text(calc.dependency, c),
      of_truth(truth ? truth->dependency : 0));
  row(out, "Static: functional unit", share_text(calc.functional_unit, c), none);
  for (StallCause cause : isa::kFigure4Causes)
    row(out, "Dynamic: " + std::string(isa::stall_cause_name(cause)),
        range(dynamic_of(calc, cause), c),
        truth ? std::optional<std::string>(range(dynamic_of(*truth, cause), t)) : none);
  row(out, "Dynamic: other", "-", of_truth(truth ? truth->other : 0));
  row(out, "Dynamic stalls in all", share_text(calc.dynamic_stall, c),
      of_truth(truth ? truth->dynamic_stall : 0));
  row(out, "Unexplained stall", share_text(calc.unexplained_stall, c), none);
  row(out, "Unexplained gain", share_text(calc.unexplained_gain, c), none);
  row(out, "Net sampling error", share_text(calc.net_sampling_error, c), none);
  char cycles[64];
  std::snprintf(cycles, sizeof cycles, "%.0f cycles", c);
  char truth_cycles[64];
  std::snprintf(truth_cycles, sizeof truth_cycles, "%.0f cycles", t);
  row(out, "Total", cycles, truth ? std::optional<std::string>(truth_cycles) : none);
}

void print_breakdown_rows(const std::vector<BreakdownRow>& rows, std::ostream& out) {
  double run = 0;
  for (const BreakdownRow& r : rows) run += r.calc.total;
  out << "  (% of each procedure's cycles; calc from the samples, truth beside it)\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %7s %7s %7s %7s %7s | %7s %7s %7s  %s\n", "cycles", "exec",
                "static", "dynamic", "unexpl", "t.exec", "t.stat", "t.dyn", "procedure");
  out << line;
  for (const BreakdownRow& r : rows) {
    const CycleBreakdown& c = r.calc;
    const double statics = c.slotting + c.dependency + c.functional_unit;
    const std::string truth_exec = r.truth ? share_text(r.truth->execution, r.truth->total) : "-";
    const std::string truth_static =
        r.truth ? share_text(r.truth->slotting + r.truth->dependency, r.truth->total) : "-";
    const std::string truth_dynamic =
        r.truth ? share_text(r.truth->dynamic_stall, r.truth->total) : "-";
    std::snprintf(
        line, sizeof line, "  %7s %7s %7s %7s %7s | %7s %7s %7s  %s\n",
        share_text(c.total, run).c_str(), share_text(c.execution, c.total).c_str(),
        share_text(statics, c.total).c_str(), share_text(c.dynamic_stall, c.total).c_str(),
        share_text(c.unexplained_stall + c.unexplained_gain, c.total).c_str(), truth_exec.c_str(),
        truth_static.c_str(), truth_dynamic.c_str(), r.procedure.c_str());
    out << line;
  }
}

void print_calc_breakdown_json(const CalcBreakdown& breakdown, const CalcInputs& inputs,
                               const CalcContext& context, const BreakdownRequest& request,
                               std::ostream& out) {
  JsonWriter json(out, JsonWriter::Style::kSpaced);
  json.begin_object().field("image", context.image).field("machine", context.machine);
  json.field("model", inputs.model->name()).key("period").real(inputs.period);
  json.field("truth", request.truth_path).key("procedures").begin_array(JsonWriter::Break::kLines);
  for (const ProcedureBreakdown& p : breakdown.procedures) write_row(json, p.row);
  json.end_array().key("run");
  write_row(json, breakdown.run);
  json.end_object();
}

void print_calc_breakdown(const CalcBreakdown& breakdown, const CalcInputs& inputs,
                          const CalcContext& context, const BreakdownRequest& request,
                          std::ostream& out) {
  const std::vector<ProcedureBreakdown>& procedures = breakdown.procedures;
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
                procedures.size(), breakdown.samples,
                inputs.samples.total > 0 ? 100 * breakdown.samples / inputs.samples.total : 0.0);
  print_breakdown(title, breakdown.run.calc, breakdown.run.truth, out);
}

}  // namespace dcpi
