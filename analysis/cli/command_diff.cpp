// `dcpi diff`: two profiles side by side, the procedures whose share of the
// samples moved most first (DCPI §3: a tool to "highlight the differences in
// two separate profiles for the same program"). Shares, not raw counts, are
// compared, so runs of different length line up.
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/report_output.h"
#include "analysis/reports/run_comparison.h"

namespace dcpi {

const std::string_view kDiffUsage =
    "usage: dcpi diff --db BEFORE --db AFTER | [--db DIR] --epochs BEFORE,AFTER\n"
    "                 [--images DIR[:DIR...]] [--event NAME] [--image NAME] [--pid N]\n"
    "                 [--cpu N] [--limit N] [--json]\n"
    "\n"
    "Per-procedure samples and shares in two profiles; rows sorted by the absolute\n"
    "change of the share (percentage points), largest first.\n";

namespace {

void print_text(const DiffReport& report, std::optional<uint64_t> limit, std::ostream& out) {
  out << "Event " << report.event << ": before (" << report.before.label
      << ") = " << report.before.samples << ", after (" << report.after.label
      << ") = " << report.after.samples << "\n\n";
  TextTable table(
      {{"before"}, {"%"}, {"after"}, {"%"}, {"change"}, {"procedure", true}, {"image", true}});
  const size_t shown = limit ? std::min<size_t>(*limit, report.rows.size()) : report.rows.size();
  for (size_t r = 0; r < shown; ++r) {
    const ProcedureShift& row = report.rows[r];
    table.add_row({std::to_string(row.before), percent_text(row.before_percent, 2),
                   std::to_string(row.after), percent_text(row.after_percent, 2),
                   (row.change >= 0 ? "+" : "") + fixed_text(row.change, 2), row.procedure,
                   row.image_path});
  }
  table.print(out);
}

void print_json(const DiffReport& report, std::optional<uint64_t> limit, std::ostream& out) {
  JsonWriter json(out);
  json.begin_object().field("event", report.event);
  json.key("before").begin_object().field("label", report.before.label);
  json.field("samples", report.before.samples).end_object();
  json.key("after").begin_object().field("label", report.after.label);
  json.field("samples", report.after.samples).end_object();
  json.key("rows").begin_array();
  const size_t shown = limit ? std::min<size_t>(*limit, report.rows.size()) : report.rows.size();
  for (size_t r = 0; r < shown; ++r) {
    const ProcedureShift& row = report.rows[r];
    json.begin_object().field("image_path", row.image_path).field("procedure", row.procedure);
    json.field("before", row.before).field("before_percent", row.before_percent, 4);
    json.field("after", row.after).field("after_percent", row.after_percent, 4);
    json.field("change", row.change, 4).end_object();
  }
  json.end_array().key("warnings").begin_array();
  for (const std::string& warning : report.warnings) json.value(warning);
  json.end_array().end_object();
}

}  // namespace

int run_diff_command(const std::vector<std::string>& arguments) {
  std::vector<std::string> rest = arguments;
  const std::vector<std::string> databases = take_databases(rest);
  const ParsedOptions options(
      rest, {{"images", "event", "image", "pid", "cpu", "epoch", "epochs", "limit"}, {"json"}});
  const auto epochs = options.value("epochs");
  if (epochs ? databases.size() != 1 : databases.size() != 2)
    throw UsageError("give two --db, or one --db with --epochs BEFORE,AFTER");
  const auto sets = load_comparison_sets(
      databases, parse_compared_epochs(options, databases.size()), parse_sample_filter(options));
  if (sets.size() != 2) throw UsageError("--epochs wants exactly two epochs: BEFORE,AFTER");
  ImageResolver resolver = image_resolver(options, databases);
  const DiffReport report =
      diff_sets(sets[0], sets[1], resolver, options.value("event").value_or("cycles"));
  return emit_report(
      report, options, "diff", [&](auto limit) { print_json(report, limit, std::cout); },
      [&](auto limit) { print_text(report, limit, std::cout); });
}

}  // namespace dcpi
