#include "analysis/reports/prof_output.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"

namespace dcpi {
namespace {

std::vector<TextTable::Column> event_columns(const ProfileReport& report) {
  std::vector<TextTable::Column> columns;
  for (size_t e = 0; e < report.events.size(); ++e) {
    columns.push_back({report.events[e]});
    columns.push_back({"%"});
    if (e == 0) columns.push_back({"cum%"});
  }
  return columns;
}

bool has_key(const ProfileReport& report, GroupKey key) {
  return std::find(report.keys.begin(), report.keys.end(), key) != report.keys.end();
}

// Whether `key`'s column brings the image column after it: the image itself,
// or the first of procedure and line when the image is not a key of its own
// (a name or a line means something only within its image).
bool brings_image(const ProfileReport& report, GroupKey key) {
  if (key == GroupKey::kImage) return true;
  if (has_key(report, GroupKey::kImage)) return false;
  if (key == GroupKey::kLine) return !has_key(report, GroupKey::kProcedure);
  return key == GroupKey::kProcedure;
}

// The --by columns in the order given; a procedure or a line brings its image.
std::vector<TextTable::Column> key_columns(const ProfileReport& report,
                                           std::vector<TextTable::Column> columns) {
  for (GroupKey key : report.keys) {
    if (key == GroupKey::kPid) columns.push_back({"pid", true});
    if (key == GroupKey::kTid) {  // a thread with its process (issue 29)
      if (!has_key(report, GroupKey::kPid)) columns.push_back({"pid", true});
      columns.push_back({"tid", true});
    }
    if (key == GroupKey::kCpu) columns.push_back({"cpu"});
    if (key == GroupKey::kProcedure) columns.push_back({"procedure", true});
    if (key == GroupKey::kLine) columns.push_back({"line", true});
    if (brings_image(report, key)) {
      columns.push_back({"image", true});
      if (report.build_ids_needed) columns.push_back({"build-id", true});
    }
  }
  return columns;
}

void add_key_cells(const ProfileReport& report, const ReportRow& row, ProfTextOptions options,
                   std::vector<std::string>& cells) {
  for (GroupKey key : report.keys) {
    if (key == GroupKey::kPid) cells.push_back(pid_label(*row.pid, report.programs));
    if (key == GroupKey::kTid) {
      if (!has_key(report, GroupKey::kPid)) cells.push_back(pid_label(*row.pid, report.programs));
      cells.push_back(tid_label(*row.tid, report.thread_names));
    }
    if (key == GroupKey::kCpu) cells.push_back(std::to_string(*row.cpu));
    if (key == GroupKey::kProcedure)
      cells.push_back(options.wide ? row.procedure
                                   : abbreviate_middle(row.procedure, kProcedureColumnWidth));
    if (key == GroupKey::kLine) cells.push_back(source_line_text(row));
    if (brings_image(report, key)) {
      cells.push_back(row.image_path);
      if (report.build_ids_needed) cells.push_back(row.build_id.empty() ? "-" : row.build_id);
    }
  }
}

size_t shown_rows(const ProfileReport& report, std::optional<uint64_t> limit) {
  return limit ? std::min<size_t>(report.rows.size(), *limit) : report.rows.size();
}

// build_report fills the projections; a report built by hand may not.
bool has_estimates(const ProfileReport& report) {
  return report.estimated_totals.size() == report.events.size() &&
         report.estimated_known.size() == report.events.size() &&
         report.scale_notes.size() == report.events.size();
}

// Issue 26: each event's projected count, as perf stat's "(approx.)" and
// perfex's multiplexed projections: samples x mean period / share of time.
void print_estimates(const ProfileReport& report, std::ostream& out) {
  if (!has_estimates(report)) return;
  out << "Estimated counts (samples x mean period / share of time counted):\n";
  for (size_t e = 0; e < report.events.size(); ++e) {
    out << "  " << report.events[e] << " = ";
    out << (report.estimated_known[e] ? fmt::format("{:.0f}", report.estimated_totals[e]) : "?");
    out << " (" << report.scale_notes[e] << ")\n";
  }
}

}  // namespace

void print_prof_text(const ProfileReport& report, std::optional<uint64_t> limit, std::ostream& out,
                     ProfTextOptions options) {
  if (report.events.empty()) {
    out << "No samples (empty database, or nothing matches the filters).\n";
    return;
  }
  out << "Total samples for event type";
  for (size_t e = 0; e < report.events.size(); ++e)
    out << (e ? ", " : " ") << report.events[e] << " = " << report.totals[e];
  out << "\n";
  print_estimates(report, out);
  out << "\nThe counts given below are the number of samples for each listed event type.\n\n";
  TextTable table(key_columns(report, event_columns(report)));
  uint64_t cumulative = 0;
  for (size_t r = 0; r < shown_rows(report, limit); ++r) {
    const ReportRow& row = report.rows[r];
    std::vector<std::string> cells;
    for (size_t e = 0; e < report.events.size(); ++e) {
      cells.push_back(std::to_string(row.samples[e]));
      cells.push_back(percent_text(percent_of(row.samples[e], report.totals[e])));
      if (e == 0) {
        cumulative += row.samples[0];
        cells.push_back(percent_text(percent_of(cumulative, report.totals[0])));
      }
    }
    add_key_cells(report, row, options, cells);
    table.add_row(std::move(cells));
  }
  table.print(out);
  if (shown_rows(report, limit) < report.rows.size())
    out << "(" << report.rows.size() - shown_rows(report, limit) << " more rows; --limit)\n";
}

void print_prof_json(const ProfileReport& report, std::optional<uint64_t> limit,
                     std::ostream& out) {
  JsonWriter json(out);
  json.begin_object();
  json.field("by", group_keys_text(report.keys));
  json.key("events").begin_array();
  for (const std::string& event : report.events) json.value(event);
  json.end_array();
  json.key("totals").begin_object();
  for (size_t e = 0; e < report.events.size(); ++e) json.field(report.events[e], report.totals[e]);
  json.end_object();
  const bool estimates = has_estimates(report);
  json.key("estimated_totals").begin_object();
  for (size_t e = 0; e < report.events.size() && estimates; ++e) {
    json.key(report.events[e]);
    report.estimated_known[e] ? json.value(report.estimated_totals[e], 1) : json.null();
  }
  json.end_object();
  json.key("scales").begin_object();
  for (size_t e = 0; e < report.events.size() && estimates; ++e)
    json.field(report.events[e], report.scale_notes[e]);
  json.end_object();
  json.field("unknown_samples", report.unknown_samples);
  json.field("row_count", uint64_t{report.rows.size()});
  json.key("rows").begin_array();
  uint64_t cumulative = 0;
  for (size_t r = 0; r < shown_rows(report, limit); ++r) {
    const ReportRow& row = report.rows[r];
    cumulative += row.samples[0];
    json.begin_object();
    if (!row.image.empty()) {
      json.field("image", row.image).field("image_path", row.image_path);
      json.field("build_id", row.build_id);
    }
    if (row.pid) {
      json.field("pid", *row.pid).key("programs").begin_array();
      if (const auto found = report.programs.find(*row.pid); found != report.programs.end())
        for (const std::string& program : found->second) json.value(program);
      json.end_array();
    }
    if (row.tid) {
      const auto name = report.thread_names.find(*row.tid);
      json.field("tid", *row.tid).key("thread");
      name != report.thread_names.end() ? json.value(name->second) : json.null();
    }
    if (row.cpu) json.field("cpu", *row.cpu);
    if (has_key(report, GroupKey::kLine)) {
      json.key("source").begin_object();
      json.key("file");
      row.source_line ? json.value(row.source_file) : json.null();
      json.field("line", int64_t{row.source_line}).end_object();
    }
    if (has_key(report, GroupKey::kProcedure)) {
      json.field("procedure", row.procedure);
      json.key("start");
      row.start ? json.value(hex_address(*row.start)) : json.null();
    }
    json.field("samples", row.samples[0]);
    json.field("percent", percent_of(row.samples[0], report.totals[0]), 4);
    json.field("cumulative_percent", percent_of(cumulative, report.totals[0]), 4);
    json.key("events").begin_object();
    for (size_t e = 0; e < report.events.size(); ++e) json.field(report.events[e], row.samples[e]);
    json.end_object();
    json.key("estimated").begin_object();
    for (size_t e = 0; e < report.events.size() && estimates && row.estimated.size() > e; ++e) {
      json.key(report.events[e]);
      report.estimated_known[e] ? json.value(row.estimated[e], 1) : json.null();
    }
    json.end_object();
    json.end_object();
  }
  json.end_array();
  json.key("warnings").begin_array();
  for (const std::string& warning : report.warnings) json.value(warning);
  json.end_array();
  json.end_object();
}

}  // namespace dcpi
