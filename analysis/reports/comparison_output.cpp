#include "analysis/reports/comparison_output.h"

#include <algorithm>

#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"

namespace dcpi {

void print_stats_text(const VariationReport& report, std::optional<uint64_t> limit,
                      std::ostream& out) {
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

void print_stats_json(const VariationReport& report, std::optional<uint64_t> limit,
                      std::ostream& out) {
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

namespace {

// "+120", "-3", "0": the change in samples.
std::string signed_count(uint64_t before, uint64_t after) {
  return after >= before ? "+" + std::to_string(after - before)
                         : "-" + std::to_string(before - after);
}

// "x1.50" (after / before in samples), "new" when before had none.
std::string ratio_text(const ProcedureShift& row) {
  return row.ratio ? "x" + fixed_text(*row.ratio, 2) : "new";
}

std::string diff_image_text(const ProcedureShift& row) {
  return row.after_image_path == row.image_path ? row.image_path
                                                : row.image_path + " -> " + row.after_image_path;
}

}  // namespace

void print_diff_text(const DiffReport& report, std::optional<uint64_t> limit, std::ostream& out) {
  out << "Event " << report.event << ": before (" << report.before.label
      << ") = " << report.before.samples << ", after (" << report.after.label
      << ") = " << report.after.samples << "\n";
  for (const RenamedImage& image : report.renamed)
    out << "Matched by procedure name: " << image.before << " -> " << image.after << " ("
        << image.shared_procedures << " procedures in common)\n";
  out << '\n';
  TextTable table({{"before"},
                   {"%"},
                   {"after"},
                   {"%"},
                   {"delta"},
                   {"ratio"},
                   {"change"},
                   {"procedure", true},
                   {"image", true}});
  const size_t shown = limit ? std::min<size_t>(*limit, report.rows.size()) : report.rows.size();
  for (size_t r = 0; r < shown; ++r) {
    const ProcedureShift& row = report.rows[r];
    table.add_row({std::to_string(row.before), percent_text(row.before_percent, 2),
                   std::to_string(row.after), percent_text(row.after_percent, 2),
                   signed_count(row.before, row.after), ratio_text(row),
                   (row.change >= 0 ? "+" : "") + fixed_text(row.change, 2), row.procedure,
                   diff_image_text(row)});
  }
  table.print(out);
}

void print_diff_json(const DiffReport& report, std::optional<uint64_t> limit, std::ostream& out) {
  JsonWriter json(out);
  json.begin_object().field("event", report.event);
  json.key("before").begin_object().field("label", report.before.label);
  json.field("samples", report.before.samples).end_object();
  json.key("after").begin_object().field("label", report.after.label);
  json.field("samples", report.after.samples).end_object();
  json.key("renamed").begin_array();
  for (const RenamedImage& image : report.renamed)
    json.begin_object()
        .field("before", image.before)
        .field("after", image.after)
        .field("shared_procedures", uint64_t{image.shared_procedures})
        .end_object();
  json.end_array();
  json.key("rows").begin_array();
  const size_t shown = limit ? std::min<size_t>(*limit, report.rows.size()) : report.rows.size();
  for (size_t r = 0; r < shown; ++r) {
    const ProcedureShift& row = report.rows[r];
    json.begin_object().field("image_path", row.image_path).field("procedure", row.procedure);
    json.field("after_image_path", row.after_image_path);
    json.field("before", row.before).field("before_percent", row.before_percent, 4);
    json.field("after", row.after).field("after_percent", row.after_percent, 4);
    json.field("delta", static_cast<int64_t>(row.after) - static_cast<int64_t>(row.before));
    json.key("ratio");
    row.ratio ? json.value(*row.ratio, 4) : json.null();
    json.field("change", row.change, 4).end_object();
  }
  json.end_array().key("warnings").begin_array();
  for (const std::string& warning : report.warnings) json.value(warning);
  json.end_array().end_object();
}

}  // namespace dcpi
