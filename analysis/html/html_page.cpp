#include "analysis/html/html_page.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "analysis/html/blind_spots.h"
#include "analysis/html/html_text.h"
#include "analysis/html/page_style.h"
#include "analysis/html/procedure_section.h"
#include "analysis/html/run_overview.h"
#include "analysis/reports/report_output.h"
#include "analysis/samples/path_profile.h"
#include "analysis/samples/profile_table.h"

namespace dcpi::html {
namespace {

// Rows of the bar tables on the overview (the full lists are in dcpi prof).
constexpr size_t kOverviewRows = 25;
constexpr size_t kBlindSpotSites = 10;

struct BarRow {
  std::string name;    // already escaped HTML (may hold a link)
  std::string detail;  // second column, escaped
  uint64_t samples = 0;
};

void write_bars(const std::string& title, const std::string& id, const std::string& detail_header,
                const std::vector<BarRow>& rows, uint64_t total, std::ostream& out,
                bool blue = false) {
  out << "<div id=\"" << id << "\"><h2>" << escape(title) << "</h2>\n<table class=\"bars\"><tr>"
      << "<th class=\"name\">" << escape(detail_header.empty() ? "name" : detail_header)
      << "</th><th>samples</th><th>%</th><th></th></tr>\n";
  for (size_t i = 0; i < rows.size() && i < kOverviewRows; ++i) {
    const BarRow& row = rows[i];
    const double share =
        total ? 100.0 * static_cast<double>(row.samples) / static_cast<double>(total) : 0;
    char width[16];
    std::snprintf(width, sizeof width, "%.1f", share);
    out << "<tr" << (blue ? " class=\"blue\"" : "") << "><td class=\"name\">" << row.name
        << (row.detail.empty() ? "" : " <span class=\"image\">" + row.detail + "</span>")
        << "</td><td>" << row.samples << "</td><td>"
        << share_text(static_cast<double>(row.samples), static_cast<double>(total))
        << "</td><td class=\"bar\"><span style=\"width:" << width << "%\"></span></td></tr>\n";
  }
  out << "</table>\n";
  if (rows.size() > kOverviewRows)
    out << "<p class=\"subtitle\">and " << rows.size() - kOverviewRows << " more</p>\n";
  out << "</div>\n";
}

std::string period_text(const RunOverview& run) {
  std::string text;
  for (const EpochSummary& e : run.epochs)
    if (text.find(e.period) == std::string::npos) text += (text.empty() ? "" : "; ") + e.period;
  return text.empty() ? "unknown" : text;
}

void write_run_facts(const RunOverview& run, const std::string& database, std::ostream& out) {
  uint64_t stored = 0, unknown = 0, driver = 0, ring = 0, lost = 0;
  std::string epochs;
  for (const EpochSummary& e : run.epochs) {
    stored += e.samples, unknown += e.unknown_samples, driver += e.driver_dropped;
    ring += e.ring_dropped, lost += e.records_lost;
    epochs += (epochs.empty() ? "" : ", ") + std::to_string(e.epoch);
  }
  std::string cpus;
  for (const uint32_t cpu : run.cpus) cpus += (cpus.empty() ? "" : ", ") + std::to_string(cpu);
  out << "<h2 id=\"run\">Run</h2>\n<table class=\"facts\" id=\"facts\">\n"
      << "<tr><th>database</th><td class=\"name mono\">" << escape(database) << "</td></tr>\n"
      << "<tr><th>machine</th><td class=\"name\">" << escape(run.machine) << "</td></tr>\n"
      << "<tr><th>CPUs</th><td class=\"name\">" << run.cpus.size() << " (numbered " << cpus
      << ")</td></tr>\n"
      << "<tr><th>sampling period</th><td class=\"name\">" << escape(period_text(run))
      << " cycles</td></tr>\n<tr><th>epochs</th><td class=\"name\">" << run.epochs.size() << " ("
      << epochs << ")</td></tr>\n<tr><th>samples</th><td class=\"name\" id=\"total-samples\">"
      << stored
      << "</td></tr>\n<tr><th>unknown samples</th><td class=\"name\" id=\"unknown-samples\">"
      << unknown << " (" << share_text(static_cast<double>(unknown), static_cast<double>(stored))
      << ")</td></tr>\n<tr><th>dropped</th><td class=\"name\" id=\"dropped-samples\">"
      << driver + ring << " (driver " << driver << ", transfer ring " << ring << "; " << lost
      << " records lost)</td></tr>\n</table>\n";
}

std::vector<BarRow> image_rows(const ProfileReport& by_image) {
  std::vector<BarRow> rows;
  for (const ReportRow& row : by_image.rows)
    rows.push_back({escape(row.image_path), "", row.samples.empty() ? 0 : row.samples[0]});
  return rows;
}

std::vector<BarRow> procedure_rows(const ProfileReport& by_procedure,
                                   const std::map<size_t, std::string>& anchors) {
  std::vector<BarRow> rows;
  for (size_t i = 0; i < by_procedure.rows.size(); ++i) {
    const ReportRow& row = by_procedure.rows[i];
    const auto anchor = anchors.find(i);
    std::string name = escape(row.procedure);
    if (anchor != anchors.end()) name = "<a href=\"#" + anchor->second + "\">" + name + "</a>";
    rows.push_back({name, escape(row.image), row.samples.empty() ? 0 : row.samples[0]});
  }
  return rows;
}

// `programs` names each PID's program as dcpi prof --by pid does ("PID 3:copy").
std::vector<BarRow> keyed_rows(const std::map<uint32_t, uint64_t>& counts, const std::string& what,
                               const std::map<uint32_t, std::vector<std::string>>& programs = {}) {
  std::vector<BarRow> rows;
  for (const auto& [key, count] : counts) {
    std::string name =
        what + " " + (what == "PID" ? pid_label(key, programs) : std::to_string(key));
    if (what == "CPU" && key == 0xffff) name = "CPU unknown";
    rows.push_back({escape(name), "", count});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const BarRow& a, const BarRow& b) { return a.samples > b.samples; });
  return rows;
}

void write_blind_spots(const BlindSpotSummary& spots, std::ostream& out) {
  const double examined = static_cast<double>(spots.examined);
  out << "<h2 id=\"blindspots\">Blind spots</h2>\n<p>Overflows inside PALcode or at IPL &ge; 5 "
         "are delivered on the next instruction that can take them (DCPI &sect;4.1). Samples on "
         "the instruction after a CALL_PAL that enters PALcode: <b id=\"after-callpal\">"
      << spots.after_call_pal << "</b> ("
      << share_text(static_cast<double>(spots.after_call_pal), examined)
      << "); after an IPL drop (<span class=\"mono\">swpipl</span>): <b id=\"after-ipl\">"
      << spots.after_ipl_drop << "</b> ("
      << share_text(static_cast<double>(spots.after_ipl_drop), examined) << ") of "
      << spots.examined << " samples in images with code";
  if (spots.not_examined) out << " (" << spots.not_examined << " samples in images without code)";
  out << ".</p>\n";
  if (spots.sites.empty()) return;
  out << "<table class=\"bars\"><tr><th class=\"name\">instruction after</th><th "
         "class=\"name\">at</th><th>samples</th></tr>\n";
  for (size_t i = 0; i < spots.sites.size() && i < kBlindSpotSites; ++i) {
    const BlindSpotSite& site = spots.sites[i];
    out << "<tr><td class=\"name mono\">"
        << escape(site.kind == BlindSpotKind::kAfterIplDrop ? site.call_pal + " (swpipl)"
                                                            : site.call_pal)
        << "</td><td class=\"name\">" << escape(site.procedure.empty() ? "?" : site.procedure)
        << " <span class=\"image\">" << escape(site.image) << " " << hex_address(site.address)
        << "</span></td><td>" << site.samples << "</td></tr>\n";
  }
  out << "</table>\n";
}

void write_legend(std::ostream& out) {
  out << "<p class=\"legend\">Graphs: <span style=\"background:#f7a04a\">blocks shaded by "
         "samples</span> numbers are estimated executions (frequency &times; mean period); "
         "<span style=\"color:#1c7ed6\">bold blue: back edges (loops)</span>"
         "<span style=\"color:#c92a2a\">dashed red: missing edges (unresolved jmp)</span>"
         "dashed grey: no estimate; double border: leaves the procedure; thick border: "
         "entry. Click a block for its listing. Stall letters as in Figure 2 "
         "(docs/calc.md).</p>\n";
}

}  // namespace

namespace {

// Which procedure rows get a section: the top N with a symbol or at least a
// named image (the [unknown] row has no code to show).
std::vector<size_t> chosen_procedures(const ProfileReport& report, std::optional<size_t> top) {
  std::vector<size_t> chosen;
  for (size_t i = 0; i < report.rows.size(); ++i) {
    if (top && chosen.size() >= *top) break;
    if (report.rows[i].procedure == kUnknownProcedure) continue;
    chosen.push_back(i);
  }
  return chosen;
}

// A row without samples for every function symbol of the sampled images
// that has none (`--unsampled`: with --top all, every procedure of an image).
void add_unsampled(ProfileReport& report, const SampleSet& samples, ImageResolver& resolver) {
  std::set<std::pair<std::string, uint64_t>> present;
  for (const ReportRow& row : report.rows)
    if (row.start) present.insert({row.image_path, *row.start});
  std::set<ImageIdentity> images;
  for (const Profile& profile : samples.profiles)
    if (!profile.info.image.unknown) images.insert(profile.info.image);
  for (const ImageIdentity& image : images) {
    const ResolvedImage& resolved = resolver.resolve(image);
    if (!resolved.elf) continue;
    for (const ElfSymbol& function : resolved.elf->symbols().functions()) {
      if (!present.insert({image.path, function.address}).second) continue;
      const std::optional<Procedure> procedure = resolved.elf->procedure_at(function.address);
      if (!procedure) continue;
      report.rows.push_back({.image = image_display_name(image),
                             .image_path = image.path,
                             .procedure = procedure->name,
                             .start = function.address,
                             .samples = std::vector<uint64_t>(report.events.size(), 0)});
    }
  }
}

void write_head(const HtmlReportRequest& request, const std::string& model, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>DCPI profile: "
      << escape(request.database) << "</title>\n<style>" << kPageStyle
      << "</style>\n</head>\n<body>\n<h1 id=\"top\">DCPI profile</h1>\n<p class=\"subtitle\">"
      << "dcpi report --html over <span class=\"mono\">" << escape(request.database)
      << "</span>; model " << escape(model) << "</p>\n";
}

void write_warnings(const std::vector<std::string>& warnings, std::ostream& out) {
  if (warnings.empty()) return;
  out << "<ul class=\"warning\" id=\"warnings\">\n";
  for (const std::string& warning : warnings) out << "<li>" << escape(warning) << "</li>\n";
  out << "</ul>\n";
}

// The path profiles of the selected epochs (dcpi run --paths), if the
// database has any; a damaged file is an error like a damaged profile.
std::optional<PathSet> load_paths_if_any(const HtmlReportRequest& request,
                                         ImageResolver& resolver) {
  PathRequest selection;
  selection.epochs = request.filter.epochs;
  try {
    return load_paths(request.database, selection, resolver);
  } catch (const ProfileFormatError&) {
    throw;
  } catch (const std::runtime_error&) {
    return std::nullopt;  // no epoch has paths
  }
}

}  // namespace

HtmlReportResult write_html_report(const HtmlReportRequest& request, std::ostream& out) {
  HtmlReportResult result;
  const ProfileDatabase database = ProfileDatabase::open(request.database);
  const SampleSet samples = load_samples(database, request.filter);
  ImageResolver resolver = ImageResolver::from_sources(request.images);
  const ProfileReport by_image = build_report(samples, resolver, Grouping::kImage);
  ProfileReport by_procedure = build_report(samples, resolver, Grouping::kProcedure);
  if (request.unsampled) add_unsampled(by_procedure, samples, resolver);
  result.warnings = by_procedure.warnings;
  const RunOverview run = summarize_run(database, samples);
  const std::vector<size_t> chosen = chosen_procedures(by_procedure, request.top);
  std::map<size_t, std::string> anchors;
  AnchorNames names;
  for (const size_t i : chosen)
    anchors[i] = names.make(by_procedure.rows[i].image, by_procedure.rows[i].procedure);

  const std::string model = request.model.value_or(run.machine == kMachineEv5 ? "ev5" : "qemu");
  write_head(request, model, out);
  write_run_facts(run, request.database, out);
  write_warnings(result.warnings, out);
  const uint64_t total = by_procedure.totals.empty() ? 0 : by_procedure.totals[0];
  if (total == 0) {
    out << "<p class=\"note\" id=\"no-samples\">No samples: the database is empty, or nothing "
           "matches the filters.</p>\n</body>\n</html>\n";
    return result;
  }
  out << "<div class=\"grid\">\n";
  write_bars("Images", "images", "image", image_rows(by_image), total, out);
  write_bars("Procedures", "procedures", "procedure", procedure_rows(by_procedure, anchors), total,
             out);
  write_bars("Processes", "pids", "PID", keyed_rows(run.by_pid, "PID", programs_by_pid(samples)),
             run.selected_samples, out, true);
  write_bars("CPUs", "cpus", "CPU", keyed_rows(run.by_cpu, "CPU"), run.selected_samples, out, true);
  out << "</div>\n";
  write_blind_spots(find_blind_spots(samples, resolver), out);

  const std::optional<PathSet> paths = load_paths_if_any(request, resolver);
  ProcedureSections sections(
      samples, resolver, load_value_hotlists(database, std::nullopt, {}, request.filter.epochs),
      {.model = model, .dot_program = request.dot_program, .paths = paths ? &*paths : nullptr});
  std::ostringstream body;  // the sections come after a note on the graphs, known only after them
  for (const size_t i : chosen) sections.write(by_procedure.rows[i], anchors[i], body);
  out << "<h2 id=\"listings\">The top " << chosen.size() << " procedures</h2>\n";
  if (!sections.graph_problem().empty()) {
    out << "<p class=\"note\" id=\"no-graphs\">No control-flow graphs: "
        << escape(sections.graph_problem()) << ".</p>\n";
    result.warnings.push_back(sections.graph_problem());
  }
  write_legend(out);
  out << body.str() << "</body>\n</html>\n";
  result.procedures = chosen.size();
  result.graphs = sections.graphs_drawn();
  return result;
}

}  // namespace dcpi::html
