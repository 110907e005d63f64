#include "analysis/reports/listing_output.h"

#include <filesystem>

#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"
#include "profiledb/value_format.h"
#include "symbols/source_files.h"

namespace dcpi {
namespace {

// Value hotlists by (guest image path, address): for each instruction the
// kind with the most values seen there (seed 001 §2.4: "report the most
// frequent values associated with each instruction").
class ValueAnnotations {
 public:
  explicit ValueAnnotations(const std::vector<MergedKind>& kinds) : kinds_(kinds) {}
  bool enabled() const { return !kinds_.empty(); }
  BestHotlist at(const std::string& image_path, uint64_t address) const {
    return best_hotlist_at(kinds_, image_path, address);
  }
  // "fp_a: 1.25 91.2%, 0.5 3.1%" (the top `top` values).
  static std::string text(const BestHotlist& best, size_t top) {
    if (!best.list) return "";
    std::string out = best.kind->info.kind + ":";
    const auto hot = values_by_count(*best.list);
    for (size_t i = 0; i < hot.size() && i < top; ++i)
      out += (i ? ", " : " ") + values::format_value(best.kind->info.format, hot[i].value) + " " +
             percent_text(100 * value_share(hot[i], *best.list));
    return out;
  }

 private:
  const std::vector<MergedKind>& kinds_;
};

}  // namespace

void print_listing(const ProcedureListing& listing, bool show_source,
                   const std::vector<MergedKind>& value_kinds, std::ostream& out) {
  const ValueAnnotations values(value_kinds);
  out << "Procedure " << listing.procedure.name << " in " << listing.image_path << " ["
      << hex_address(listing.procedure.start) << ", " << hex_address(listing.end) << ")";
  if (listing.procedure.source == ProcedureSource::kNearestSymbol)
    out << " (no function symbol: bounded by the next symbol)";
  if (listing.procedure.source == ProcedureSource::kFrameInfo)
    out << " (no symbol: bounded by its .eh_frame FDE)";
  out << "\nTotal samples in procedure:";
  for (size_t e = 0; e < listing.events.size(); ++e)
    out << (e ? ", " : " ") << listing.events[e] << " = " << listing.totals[e];
  out << "\n\n";
  SourceFiles sources;
  std::vector<TextTable::Column> columns{{"address"}};
  for (const std::string& event : listing.events) {
    columns.push_back({event});
    columns.push_back({"%"});
  }
  // Hottest first, the source lines cannot sit between the instructions:
  // each instruction names its line in a column instead.
  const bool source_column = show_source && listing.by_samples;
  if (source_column) columns.push_back({"line", true});
  columns.push_back({"instruction", true});
  if (values.enabled()) columns.push_back({"values (kind: top values, share)", true});
  TextTable table(columns);
  for (const ListedInstruction& instruction : listing.instructions) {
    if (show_source && !listing.by_samples)
      if (const auto banner = sources.banner(instruction.source)) table.add_banner(*banner);
    std::vector<std::string> cells{hex_address(instruction.address)};
    for (size_t e = 0; e < listing.events.size(); ++e) {
      cells.push_back(std::to_string(instruction.samples[e]));
      cells.push_back(percent_text(percent_of(instruction.samples[e], listing.totals[e])));
    }
    if (source_column)
      cells.push_back(instruction.source
                          ? std::filesystem::path(instruction.source->file).filename().string() +
                                ":" + std::to_string(instruction.source->line)
                          : "");
    cells.push_back(instruction.text);
    if (values.enabled())
      cells.push_back(
          ValueAnnotations::text(values.at(listing.image_path, instruction.address), 3));
    table.add_row(std::move(cells));
  }
  table.print(out);
  if (listing.samples_outside)
    out << listing.samples_outside << " samples at unaligned addresses inside the procedure\n";
  if (listing.unsampled_left_out)
    out << "(" << listing.unsampled_left_out << " instructions without samples not shown)\n";
  out << '\n';
}

void print_listings_json(const std::vector<ProcedureListing>& listings,
                         const std::vector<std::string>& warnings,
                         const std::vector<MergedKind>& value_kinds, std::ostream& out) {
  const ValueAnnotations values(value_kinds);
  JsonWriter json(out);
  json.begin_object().key("listings").begin_array();
  for (const ProcedureListing& listing : listings) {
    json.begin_object();
    json.field("image", listing.image).field("image_path", listing.image_path);
    json.field("procedure", listing.procedure.name);
    json.field("start", hex_address(listing.procedure.start));
    json.field("end", hex_address(listing.end));
    json.field("sort", listing.by_samples ? "samples" : "address");
    json.key("totals").begin_object();
    for (size_t e = 0; e < listing.events.size(); ++e)
      json.field(listing.events[e], listing.totals[e]);
    json.end_object();
    json.key("instructions").begin_array();
    for (const ListedInstruction& instruction : listing.instructions) {
      json.begin_object();
      json.field("address", hex_address(instruction.address));
      json.key("word");
      instruction.word ? json.value(uint64_t{*instruction.word}) : json.null();
      json.field("text", instruction.text);
      json.field("samples", instruction.samples[0]);
      json.field("percent", percent_of(instruction.samples[0], listing.totals[0]), 4);
      json.key("events").begin_object();
      for (size_t e = 0; e < listing.events.size(); ++e)
        json.field(listing.events[e], instruction.samples[e]);
      json.end_object();
      if (values.enabled()) {
        const auto best = values.at(listing.image_path, instruction.address);
        if (best.list) {
          json.key("values").begin_object().field("kind", best.kind->info.kind);
          json.field("vtot", best.list->seen).key("top").begin_array();
          for (const auto& v : values_by_count(*best.list))
            json.begin_object()
                .field("value", values::format_value(best.kind->info.format, v.value))
                .field("fraction", value_share(v, *best.list), 6)
                .end_object();
          json.end_array().end_object();
        }
      }
      if (instruction.source)
        json.key("source")
            .begin_object()
            .field("file", instruction.source->file)
            .field("line", instruction.source->line)
            .end_object();
      json.end_object();
    }
    json.end_array().end_object();
  }
  json.end_array();
  json.key("warnings").begin_array();
  for (const std::string& warning : warnings) json.value(warning);
  json.end_array().end_object();
}

}  // namespace dcpi
