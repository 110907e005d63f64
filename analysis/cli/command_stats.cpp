// `dcpi stats`: how much each procedure's samples vary across runs or
// epochs, sorted by normalized range (DCPI §3.3, Figure 3: the tool that
// isolated `smooth_` as the source of wave5's run-time variance).
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/report_output.h"
#include "analysis/reports/run_comparison.h"

namespace dcpi {

const std::string_view kStatsUsage =
    "usage: dcpi stats --db DIR --db DIR ... | [--db DIR] --epochs a,b,...|each\n"
    "                  [--images DIR[:DIR...]] [--event NAME] [--image NAME] [--pid N]\n"
    "                  [--cpu N] [--limit N] [--json]\n"
    "\n"
    "Per-procedure statistics over several sample sets (one per database, or one\n"
    "per epoch of one database), like dcpistats: range% = (max - min) / sum,\n"
    "sum, % of all samples, N = sets with samples, mean, std-dev (divisor N-1 over\n"
    "all sets; a set without samples counts as 0), min, max. Largest range first.\n"
    "  --event   which event to compare (default cycles, the only one QEMU counts)\n";

namespace {

void print_text(const VariationReport& report, std::optional<uint64_t> limit, std::ostream& out) {
  out << "Number of samples of type " << report.event << '\n';
  for (size_t s = 0; s < report.sets.size(); ++s)
    out << "set " << s + 1 << " (" << report.sets[s].label << ") = " << report.sets[s].samples
        << "  period " << periods_text(report.sets[s].periods) << "  machine "
        << machines_text(report.sets[s].machines) << '\n';
  out << "TOTAL: " << report.total
      << "\n\nStatistics using the sample counts for each procedure from " << report.sets.size()
      << " sample set(s)\n\n";
  TextTable table({{"range%"},
                   {"sum"},
                   {"%"},
                   {"N"},
                   {"mean"},
                   {"std-dev"},
                   {"min"},
                   {"max"},
                   {"procedure", true},
                   {"image", true}});
  const size_t shown = limit ? std::min<size_t>(*limit, report.rows.size()) : report.rows.size();
  for (size_t r = 0; r < shown; ++r) {
    const ProcedureVariation& row = report.rows[r];
    table.add_row({percent_text(row.range_percent), std::to_string(row.sum),
                   percent_text(row.percent), std::to_string(row.sets_with_samples),
                   fixed_text(row.mean, 0), fixed_text(row.std_dev, 2), std::to_string(row.min),
                   std::to_string(row.max), row.procedure, row.image_path});
  }
  table.print(out);
}

void print_json(const VariationReport& report, std::optional<uint64_t> limit, std::ostream& out) {
  JsonWriter json(out);
  json.begin_object().field("event", report.event).field("total", report.total);
  json.key("sets").begin_array();
  for (const SetTotal& set : report.sets) {
    json.begin_object().field("label", set.label).field("samples", set.samples);
    // Per epoch of the set: its sampling period (docs/profile-db.md epoch.meta).
    json.key("periods").begin_array();
    for (const auto& [epoch, period] : set.periods) {
      json.begin_object().field("epoch", epoch);
      if (period.known())
        json.field("base", period.base)
            .field("range", period.range)
            .field("mean", period.mean(), 1);
      else
        json.key("base").null().key("range").null().key("mean").null();
      json.field("changed", period.changed);
      if (const auto machine = set.machines.find(epoch); machine != set.machines.end())
        json.field("machine", machine->second);
      json.end_object();
    }
    json.end_array().end_object();
  }
  json.end_array().key("rows").begin_array();
  const size_t shown = limit ? std::min<size_t>(*limit, report.rows.size()) : report.rows.size();
  for (size_t r = 0; r < shown; ++r) {
    const ProcedureVariation& row = report.rows[r];
    json.begin_object().field("image_path", row.image_path).field("procedure", row.procedure);
    json.field("range_percent", row.range_percent, 4).field("sum", row.sum);
    json.field("percent", row.percent, 4).field("n", row.sets_with_samples);
    json.field("mean", row.mean, 4).field("std_dev", row.std_dev, 4);
    json.field("min", row.min).field("max", row.max);
    json.key("per_set").begin_array();
    for (uint64_t samples : row.per_set) json.value(samples);
    json.end_array().end_object();
  }
  json.end_array().key("warnings").begin_array();
  for (const std::string& warning : report.warnings) json.value(warning);
  json.end_array().end_object();
}

}  // namespace

int run_stats_command(const std::vector<std::string>& arguments) {
  std::vector<std::string> rest = arguments;
  const std::vector<std::string> databases = take_databases(rest);
  const ParsedOptions options(
      rest, {{"images", "event", "image", "pid", "cpu", "epoch", "epochs", "limit"}, {"json"}});
  if (databases.size() < 2 && !options.value("epochs"))
    throw UsageError("compare several --db, or the --epochs of one");
  const auto sets = load_comparison_sets(
      databases, parse_compared_epochs(options, databases.size()), parse_sample_filter(options));
  ImageResolver resolver = image_resolver(options, databases);
  const VariationReport report =
      compare_sets(sets, resolver, options.value("event").value_or("cycles"));
  return emit_report(
      report, options, "stats", [&](auto limit) { print_json(report, limit, std::cout); },
      [&](auto limit) { print_text(report, limit, std::cout); });
}

}  // namespace dcpi
