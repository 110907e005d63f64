#include "analysis/reports/values_output.h"

#include "analysis/reports/json_writer.h"
#include "analysis/reports/report_output.h"

namespace dcpi {
namespace {

using values::PcHotlist;
using values::ValueFileInfo;

void json_row(JsonWriter& json, const ValueRow& row, ValueSymbols& symbols,
              const ValueFormatter& format) {
  const PcHotlist& list = *row.list;
  const ValueFileInfo& info = row.kind->info;
  json.begin_object();
  json.field("image", image_display_name(info.image)).field("kind", info.kind);
  json.field("address", hex_address(list.address));
  json.field("procedure", symbols.procedure(info.image, list.address));
  json.field("instruction", symbols.instruction(info.image, list.address));
  json.field("vtot", list.seen).field("thld", list.probability, 6);
  json.field("nv", static_cast<uint64_t>(list.values.size()));
  if (!row.hot.empty()) {
    const double top = value_share(row.hot.front(), list);
    json.field("top_fraction", top, 6).field("top_sigma", share_sigma(top, list), 6);
  }
  json.key("values").begin_array();
  for (const values::HotValue& v : row.hot) {
    json.begin_object();
    json.field("value", format(info, v.value)).field("raw", hex_address(v.value));
    json.field("count", v.count).field("estimate", v.estimate, 2);
    json.field("fraction", value_share(v, list), 6);
    json.end_object();
  }
  json.end_array().end_object();
}

}  // namespace

void print_value_rows(const std::vector<ValueRow>& rows, ValueSymbols& symbols,
                      const ValueFormatter& format, size_t top, std::ostream& out) {
  TextTable table({{"address"},
                   {"kind", true},
                   {"vtot"},
                   {"thld"},
                   {"nv"},
                   {"instruction", true},
                   {"hot values (estimated count, share)", true}});
  std::string procedure;
  for (const ValueRow& row : rows) {
    const PcHotlist& list = *row.list;
    const ImageIdentity& image = row.kind->info.image;
    const std::string name = symbols.procedure(image, list.address);
    if (name != procedure && !name.empty()) {
      table.add_banner(image_display_name(image) + " " + name + ":");
      procedure = name;
    }
    std::string hot;
    for (size_t i = 0; i < row.hot.size() && i < top; ++i)
      hot += (i ? "  " : "") + format(row.kind->info, row.hot[i].value) + " (" +
             fixed_text(row.hot[i].estimate, 0) + ", " +
             percent_text(100 * value_share(row.hot[i], list)) + ")";
    if (row.hot.size() > top) hot += "  ...";
    table.add_row({hex_address(list.address), row.kind->info.kind, std::to_string(list.seen),
                   fixed_text(list.probability, 3), std::to_string(list.values.size()),
                   symbols.instruction(image, list.address), hot});
  }
  table.print(out);
}

void print_value_rows_json(const std::vector<ValueRow>& rows, bool invariant, ValueSymbols& symbols,
                           const ValueFormatter& format, std::ostream& out) {
  JsonWriter json(out);
  json.begin_object().field("invariant", invariant).key("rows").begin_array();
  for (const ValueRow& row : rows) json_row(json, row, symbols, format);
  json.end_array().end_object();
  out << '\n';
}

}  // namespace dcpi
