#include "analysis/html/procedure_section.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/frontend/annotated_procedure.h"
#include "analysis/calc/frontend/inputs.h"
#include "analysis/calc/frontend/own_weighed_samples.h"
#include "analysis/html/cfg_graph.h"
#include "analysis/html/html_text.h"
#include "analysis/html/process.h"
#include "analysis/reports/profileme_output.h"
#include "analysis/reports/report_output.h"
#include "analysis/samples/procedure_listing.h"
#include "profiledb/value_format.h"
#include "symbols/source_files.h"

namespace dcpi::html {

struct ProcedureSections::ImageData {
  ImageIdentity identity;
  std::shared_ptr<const ElfImage> elf;
  std::string problem;  // why there is no ELF
  std::unique_ptr<InstructionPrinter> printer;
  std::optional<CodeImage> code;
  std::string code_problem;  // why calc cannot read the code
  calc::SamplesByAddress cycles;
  double total = 0;
  PeriodChoice period;
  calc::CulpritOptions culprits;  // the image's event samples for §6.3 (issue 26)
};

namespace {

std::string hotlist_text(const BestHotlist& best) {
  if (!best.list) return "";
  std::string text = best.kind->info.kind + ":";
  const auto hot = values_by_count(*best.list);
  for (size_t i = 0; i < hot.size() && i < 3; ++i)
    text += (i ? ", " : " ") + values::format_value(best.kind->info.format, hot[i].value) + " " +
            share_text(value_share(hot[i], *best.list), 1.0);
  return text;
}

void write_block_header(const CalcBlock& block, size_t id, double period, size_t columns,
                        std::ostream& out) {
  out << "<tr class=\"block\"><td colspan=\"" << columns << "\">Block " << id << " ["
      << hex_address(block.start) << ", " << hex_address(block.end) << ") class "
      << block.frequency_class << ": ";
  if (block.frequency)
    out << compact_number(*block.frequency * period) << " executions ("
        << calc::to_string(block.confidence) << ", " << escape(block.method) << ")";
  else
    out << "frequency unknown";
  out << ", best case " << block.best_case_cycles << " cycles</td></tr>\n";
}

// Figure 4, in the units the page uses (samples, and CPI = samples over
// executed instructions per period).
void write_summary(const CalcReport& report, const std::string& period_text, std::ostream& out) {
  const CalcSummary& s = report.summary;
  out << "<table class=\"summary\"><tr><th>model</th><td>" << escape(report.model)
      << "</td><th>mean period</th><td>" << escape(period_text) << "</td></tr>\n";
  out << "<tr><th>best-case CPI</th><td>"
      << (s.instructions > 0 ? fixed_text(s.best_case / s.instructions, 2) : "-")
      << "</td><th>actual CPI</th><td>"
      << (s.instructions > 0 ? fixed_text(s.samples / s.instructions, 2) : "-") << "</td></tr>\n";
  out << "<tr><th>static stalls</th><td>" << share_text(s.static_total, s.samples)
      << "</td><th>dynamic stalls</th><td>" << share_text(s.dynamic_total, s.samples)
      << "</td></tr>\n<tr><th>blocks</th><td>" << report.blocks.size()
      << "</td><th>missing edges</th><td>" << (report.missing_edges ? "yes" : "no")
      << "</td></tr></table>\n";
  if (!report.model_has_dynamic_stalls && !report.no_dynamic_stalls_note.empty())
    out << "<p class=\"note\">" << escape(report.no_dynamic_stalls_note) << "</p>\n";
  for (const calc::IndirectJump& jump : report.indirect_jumps)
    out << "<p class=\"note\">jmp at " << hex_address(jump.address) << ": "
        << escape(describe(jump)) << "</p>\n";
}

struct ListingContext {
  const ProcedureListing& listing;
  const CalcReport* calc;
  double period;
  const std::vector<MergedKind>& values;
  bool show_values;
  // ProfileMe's records per instruction (issue 27), when the run took any.
  const std::map<uint64_t, ProfileMeRow>* profileme = nullptr;
  double profileme_interval = 0;
  std::string anchor;
  std::set<uint64_t> targets;  // rows something links to: block starts, culprits
};

// Columns: address, samples, %, bar, CPI, stalls, instruction[, values]; the
// style sheet finds them by position, so rows carry no classes (the listing
// of a large report has tens of thousands of rows). Rows without samples
// leave the sample cells empty; only rows a link points to have an id.
void write_instruction(const ListingContext& c, const ListedInstruction& insn,
                       const CalcInstruction* estimate, std::ostream& out) {
  const uint64_t samples = insn.samples.empty() ? 0 : insn.samples[0];
  const uint64_t total = c.listing.totals.empty() ? 0 : c.listing.totals[0];
  out << "<tr";
  if (c.targets.count(insn.address))
    out << " id=\"" << c.anchor << "-" << hex_address(insn.address) << "\"";
  out << (samples ? " class=\"hot\"><td>" : "><td>") << hex_address(insn.address) << "</td>";
  if (samples) {
    const double share = 100.0 * static_cast<double>(samples) / static_cast<double>(total);
    out << "<td>" << samples << "</td><td>" << fixed_text(share, 1)
        << "%</td><td><span style=\"width:" << fixed_text(share, 1) << "%\"></span></td>";
  } else {
    out << "<td></td><td></td><td></td>";
  }
  out << "<td>" << (estimate && estimate->cpi ? fixed_text(*estimate->cpi, 2) : "") << "</td><td>";
  if (estimate) {
    out << escape(estimate->static_letters + estimate->dynamic_letters);
    for (const uint64_t culprit : estimate->culprits)
      out << " <a href=\"#" << c.anchor << "-" << hex_address(culprit) << "\">"
          << hex_address(culprit) << "</a>";
  }
  out << "</td><td>" << escape(insn.text) << "</td>";
  if (c.show_values)
    out << "<td>"
        << escape(hotlist_text(best_hotlist_at(c.values, c.listing.image_path, insn.address)))
        << "</td>";
  if (c.profileme) {
    const auto row = c.profileme->find(insn.address);
    if (row == c.profileme->end()) {
      out << "<td></td>";
    } else {
      const ProfileMeCell cell = profileme_cell(row->second, c.profileme_interval);
      out << "<td title=\"" << escape(cell.title) << "\">" << escape(cell.text) << "</td>";
    }
  }
  out << "</tr>\n";
}

void write_listing(ListingContext& c, std::ostream& out) {
  std::map<uint64_t, const CalcInstruction*> estimates;
  std::map<uint64_t, size_t> block_at;
  if (c.calc)
    for (size_t b = 0; b < c.calc->blocks.size(); ++b) {
      block_at[c.calc->blocks[b].start] = b;
      c.targets.insert(c.calc->blocks[b].start);
      for (const CalcInstruction& i : c.calc->blocks[b].instructions) {
        estimates[i.address] = &i;
        c.targets.insert(i.culprits.begin(), i.culprits.end());
      }
    }
  const size_t columns = 7 + (c.show_values ? 1 : 0) + (c.profileme ? 1 : 0);
  out << "<table class=\"listing\"><thead><tr><th>address</th><th>samples</th><th>%</th><th></th>"
         "<th title=\"cycles per execution at the head of the issue queue\">CPI</th>"
         "<th title=\"stall reasons (Figure 2 letters) and culprits\">stalls</th>"
      << "<th>instruction</th>" << (c.show_values ? "<th>values (kind: top values)</th>" : "")
      << (c.profileme ? "<th title=\"ProfileMe (dcpi profileme): estimated executions, then "
                        "each event's rate per retired record (i I d D p w as in the stalls "
                        "column)\">ProfileMe</th>"
                      : "")
      << "</tr></thead><tbody>\n";
  SourceFiles sources;
  for (const ListedInstruction& insn : c.listing.instructions) {
    if (const auto b = block_at.find(insn.address); b != block_at.end())
      write_block_header(c.calc->blocks[b->second], b->second, c.period, columns, out);
    if (const auto banner = sources.banner(insn.source))
      out << "<tr class=\"src\"><td colspan=\"" << columns << "\">" << escape(*banner)
          << "</td></tr>\n";
    const auto e = estimates.find(insn.address);
    write_instruction(c, insn, e == estimates.end() ? nullptr : e->second, out);
  }
  out << "</tbody></table>\n";
}

}  // namespace

ProcedureSections::ProcedureSections(const SampleSet& samples, ImageResolver& resolver,
                                     std::vector<MergedKind> values, ProcedureOptions options)
    : samples_(samples),
      resolver_(resolver),
      values_(std::move(values)),
      options_(std::move(options)),
      model_(make_model(options_.model)),
      has_profileme_(
          std::any_of(samples.profiles.begin(), samples.profiles.end(),
                      [](const Profile& p) { return is_profileme_event(p.info.event); })) {
  if (!model_) throw std::invalid_argument("unknown processor model '" + options_.model + "'");
}

ProcedureSections::~ProcedureSections() = default;

ProcedureSections::ImageData* ProcedureSections::image_data(const std::string& image_path) {
  auto& slot = images_[image_path];
  if (slot) return slot.get();
  slot = std::make_unique<ImageData>();
  ImageData& data = *slot;
  std::map<uint64_t, double> per_epoch;
  OwnWeighedSamples weighed;  // several CPUs: each thread's by its own share, as dcpi calc
  ImageSamples events;        // the other events, as dcpi calc reads them
  std::map<std::string, double> counted, estimated;  // what one sample stands for, per event
  for (const Profile& profile : samples_.profiles) {
    if (profile.info.event_name != "cycles") events.sampled_events.insert(profile.info.event_name);
    if (profile.info.image.path != image_path || profile.info.image.unknown) continue;
    data.identity = profile.info.image;
    if (profile.info.event_name != "cycles") {
      const std::optional<double> per_sample = scale_of(samples_, profile.info).events_per_sample();
      for (const ProfileRow& row : profile.rows) {
        events.events[profile.info.event_name][row.address] += static_cast<double>(row.count);
        counted[profile.info.event_name] += static_cast<double>(row.count);
        estimated[profile.info.event_name] +=
            static_cast<double>(row.count) * per_sample.value_or(0);
      }
      continue;
    }
    const uint64_t epoch = profile.info.epoch;
    const auto table = samples_.processes.find(epoch);
    const auto epoch_share = samples_.own_shares.find(epoch);
    const ThreadOwnShares shares(
        epoch_share != samples_.own_shares.end() ? epoch_share->second : EpochOwnShares{},
        table != samples_.processes.end() ? &table->second : nullptr);
    for (const ProfileRow& row : profile.rows) {
      const auto count = static_cast<double>(row.count);
      weighed.add(epoch, row.address, count, shares.of_thread(row.tid));
      data.total += count;
      per_epoch[epoch] += count;
    }
  }
  const auto own = weighed.add_to(data.cycles);
  std::vector<EpochPeriod> periods;
  for (const auto& [epoch, period] : samples_.periods)
    periods.push_back({.epoch = epoch,
                       .period = period,
                       .samples = per_epoch[epoch],
                       .own = own.count(epoch) ? own.at(epoch) : std::nullopt});
  data.period = choose_mean_period(periods, std::nullopt);
  // Each event's period and share (issue 26) and ProfileMe's S (issue 27),
  // so the culprits weigh the same evidence as in dcpi calc.
  for (const auto& [event, n] : counted)
    if (n > 0 && estimated[event] > 0) events.events_per_sample[event] = estimated[event] / n;
  data.culprits = culprit_options(events, data.period.mean, true, nullptr);
  const ResolvedImage& resolved = resolver_.resolve(data.identity);
  data.elf = resolved.elf;
  data.problem = resolved.warning;
  if (!data.elf) return &data;
  data.printer = make_instruction_printer(image_path, &data.elf->symbols());
  try {
    data.code = CodeImage::open(data.elf->path());
    data.code->describe_calls(data.culprits);
  } catch (const std::exception& e) {
    data.code_problem = e.what();
  }
  return &data;
}

// ProfileMe's records per instruction of the procedure, if the run took any.
ProfileMeReport ProcedureSections::profileme_rows(const std::string& procedure) const {
  if (!has_profileme_) return {};
  return build_profileme_report(samples_, resolver_, procedure);
}

// The procedure's hottest paths by cycles (seed 002 §2), from the image
// the section shows.
std::vector<DrawnPath> ProcedureSections::hot_paths(const std::string& procedure,
                                                    const std::string& image) const {
  std::vector<DrawnPath> out;
  if (!options_.paths) return out;
  std::vector<ProcedurePaths> procedures;
  try {
    procedures = procedure_paths(*options_.paths, procedure, ContextMetric::kCycles);
  } catch (const std::runtime_error& e) {
    // One procedure's paths that cannot be numbered (docs/reports.md) leave
    // its graph without paths, not the report unwritten.
    std::fprintf(stderr, "dcpi report: %s's paths not drawn: %s\n", procedure.c_str(), e.what());
    return out;
  }
  for (const ProcedurePaths& found : procedures) {
    if (found.image != image) continue;
    for (size_t k = 0; k < found.paths.size() && out.size() < kMaxDrawnPaths; ++k) {
      const ProcedurePath& path = found.paths[k];
      const double share =
          found.total.cycles ? double(path.costs.cycles) / double(found.total.cycles) : 0;
      out.push_back(DrawnPath{path.number, path.costs.calls, share, path.blocks});
    }
  }
  return out;
}

std::string ProcedureSections::draw(const calc::ProcedureAnalysis& analysis, double period,
                                    const std::string& anchor,
                                    const std::vector<DrawnPath>& paths) {
  if (!graph_problem_.empty()) return "";
  if (analysis.cfg.blocks().size() > kMaxDrawnBlocks)
    return "<p class=\"note\">" + std::to_string(analysis.cfg.blocks().size()) +
           " basic blocks: too many to draw (at most " + std::to_string(kMaxDrawnBlocks) +
           ").</p>\n";
  try {
    std::string svg = svg_from_dot(cfg_dot(analysis, period, anchor, paths), options_.dot_program);
    ++graphs_drawn_;
    std::string note;
    if (!paths.empty())
      note = "<p class=\"note\">The " + std::to_string(std::min(paths.size(), kMaxDrawnPaths)) +
             " hottest paths by cycles (exact, dcpi run --paths; dcpi paths --procedure) are "
             "drawn over the graph, one colour each.</p>\n";
    return note + "<div class=\"graph\">" + svg + "</div>\n";
  } catch (const ProgramNotFound& e) {
    graph_problem_ = std::string(e.what()) +
                     ": install Graphviz (Debian: apt-get install graphviz) to draw the "
                     "control-flow graphs";
  } catch (const std::runtime_error& e) {
    return "<p class=\"note\">No graph: " + escape(e.what()) + "</p>\n";
  }
  return "";
}

void ProcedureSections::write(const ReportRow& row, const std::string& anchor, std::ostream& out) {
  out << "<section class=\"proc\" id=\"" << anchor << "\">\n<h3>" << escape(row.procedure)
      << " <span class=\"image\">" << escape(row.image_path) << "</span>"
      << " <a class=\"up\" href=\"#procedures\">&uarr; overview</a></h3>\n";
  const auto note = [&](const std::string& text) {
    out << "<p class=\"note\">" << escape(text) << "</p>\n</section>\n";
  };
  ImageData* data = row.start ? image_data(row.image_path) : nullptr;
  if (!data || !data->elf)
    return note("No listing: " + (data && !data->problem.empty()
                                      ? data->problem
                                      : "no symbol names this code (addresses only)"));
  const std::optional<Procedure> procedure = data->elf->procedure_at(*row.start);
  if (!procedure) return note("No listing: no symbol at " + hex_address(*row.start));
  const ProcedureListing listing =
      list_procedure_in_image(samples_, data->identity, *data->elf, *procedure, *data->printer);
  std::optional<CalcReport> report;
  std::string graph;
  const ProcedureRange* range = data->code ? data->code->containing(*row.start) : nullptr;
  if (range) {
    AnalyzedProcedure result = analyze_code(*data->code, *range, *model_, data->cycles);
    const calc::CulpritReport culprits =
        calc::find_culprits(result.analysis, *model_, data->culprits);
    report = build_calc_report(row.procedure, result.analysis, culprits, *model_,
                               std::move(result.code.indirect_jumps), data->total);
    graph = draw(result.analysis, data->period.mean, anchor,
                 hot_paths(procedure->name, row.image_path));
  }
  out << "<p class=\"meta\">[" << hex_address(listing.procedure.start) << ", "
      << hex_address(listing.end) << "), " << (listing.totals.empty() ? 0 : listing.totals[0])
      << " samples</p>\n";
  if (report)
    write_summary(*report,
                  fixed_text(data->period.mean, 1) + " cycles (" + data->period.description + ")",
                  out);
  else
    out << "<p class=\"note\">No frequency estimates: "
        << escape(data->code_problem.empty() ? "calc found no procedure here" : data->code_problem)
        << "</p>\n";
  out << graph;
  const ProfileMeReport profileme = profileme_rows(procedure->name);
  std::map<uint64_t, ProfileMeRow> profileme_at;
  for (const ProfileMeRow& r : profileme.rows)
    if (r.address && r.image == row.image_path) profileme_at[*r.address] = r;
  ListingContext context{.listing = listing,
                         .calc = report ? &*report : nullptr,
                         .period = data->period.mean,
                         .values = values_,
                         .show_values = has_values(),
                         .profileme = profileme_at.empty() ? nullptr : &profileme_at,
                         .profileme_interval = profileme.interval,
                         .anchor = anchor};
  write_listing(context, out);
  out << "</section>\n";
}

}  // namespace dcpi::html
