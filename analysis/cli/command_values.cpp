// `dcpi values`: the value hotlists of an image next to its instructions
// (seed 001 §2, Figure 1: vtot, thld, nv and the hot values with estimated
// counts), and the semi-invariant finder (§2: "other tools automatically find
// semi-invariant values in code that is being executed a significant number
// of times"). Reads the .vals files of every epoch and merges them with the
// concise-sample merge rule (docs/profile-db.md, "Value files").
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/report_output.h"
#include "analysis/values/value_hotlists.h"
#include "hostdump/values/customization_module.h"
#include "profiledb/value_file.h"
#include "symbols/image_resolver.h"
#include "symbols/instruction_printer.h"
#include "symbols/procedure_match.h"

namespace dcpi {

const std::string_view kValuesUsage =
    "usage: dcpi values [--db DIR] [--image NAME] [--procedure NAME] [--images DIR[:DIR...]]\n"
    "                   [--kind K[,K...]] [--epoch N[,N...]|all] [--top N] [--values-module M.so]\n"
    "                   [--json]\n"
    "       dcpi values [--db DIR] --invariant [--min-samples N] [--threshold F] [--image NAME]\n"
    "                   [--kind K[,K...]] [--limit N] [--json]\n"
    "\n"
    "Value hotlists (seed 001 §2.2) per instruction: vtot = values seen there,\n"
    "thld = the hotlist's sampling probability p, nv = distinct values kept (at\n"
    "most 16), then the hottest values with their estimated counts C[v]/p and\n"
    "share of vtot. Kinds of the built-in module: result, a, b (integer) and\n"
    "fp_result, fp_a, fp_b (FP instructions, printed as doubles).\n"
    "  --image       only this image (display name such as mathcall, or guest path)\n"
    "  --epoch       merge only these epochs (default: all)\n"
    "  --procedure   only instructions of this procedure (needs --images)\n"
    "  --images      directories holding the ELF files (names and disassembly)\n"
    "  --top         values shown per row in text output (default 4; JSON has all)\n"
    "  --values-module  format values with this customization module's format()\n"
    "  --invariant   semi-invariant finder: rows with vtot >= --min-samples\n"
    "                (default 50) whose top value has >= --threshold (default 0.8)\n"
    "                of vtot, most executed first (at most --limit, default 50)\n";

namespace {

using values::PcHotlist;
using values::ValueFile;
using values::ValueFileInfo;

struct Row {
  const MergedKind* kind;
  const PcHotlist* list;
  std::vector<values::HotValue> hot;  // by decreasing count
};

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    if (comma > begin) parts.push_back(text.substr(begin, comma - begin));
    begin = comma + 1;
  }
  return parts;
}

std::vector<values::HotValue> by_count(const PcHotlist& list) { return values_by_count(list); }

double share(const values::HotValue& value, const PcHotlist& list) {
  return value_share(value, list);
}

// One standard deviation of the top value's share, from the binomial with
// the retained sample (about p * vtot values; seed 001 §2.2).
double share_sigma(double fraction, const PcHotlist& list) {
  const double n = std::max(1.0, list.probability * static_cast<double>(list.seen));
  return std::sqrt(std::max(0.0, fraction * (1 - fraction)) / n);
}

class Formatter {
 public:
  explicit Formatter(std::shared_ptr<values::CustomizationModule> module)
      : module_(std::move(module)) {
    if (module_) kinds_ = module_->kinds();
  }
  std::string operator()(const ValueFileInfo& info, uint64_t value) const {
    for (size_t k = 0; k < kinds_.size(); ++k)
      if (kinds_[k].name == info.kind) return module_->format(static_cast<uint32_t>(k), value);
    return values::format_value(info.format, value);
  }

 private:
  std::shared_ptr<values::CustomizationModule> module_;
  std::vector<values::ValueKind> kinds_;
};

struct Symbols {
  ImageResolver resolver;
  std::map<std::string, std::unique_ptr<InstructionPrinter>> printers;

  const ElfImage* elf(const ImageIdentity& image) { return resolver.resolve(image).elf.get(); }
  std::string procedure(const ImageIdentity& image, uint64_t address) {
    const ElfImage* e = elf(image);
    if (!e) return "";
    const auto p = e->procedure_at(address);
    return p ? p->name : "";
  }
  std::string instruction(const ImageIdentity& image, uint64_t address) {
    const ElfImage* e = elf(image);
    if (!e) return "";
    const auto word = e->instruction_at(address);
    if (!word) return "";
    auto& printer = printers[image.path + image.build_id];
    if (!printer) printer = make_instruction_printer(image.path, &e->symbols());
    return printer->format(*word, address);
  }
};

void json_row(JsonWriter& json, const Row& row, Symbols& symbols, const Formatter& format) {
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
    const double top = share(row.hot.front(), list);
    json.field("top_fraction", top, 6).field("top_sigma", share_sigma(top, list), 6);
  }
  json.key("values").begin_array();
  for (const values::HotValue& v : row.hot) {
    json.begin_object();
    json.field("value", format(info, v.value)).field("raw", hex_address(v.value));
    json.field("count", v.count).field("estimate", v.estimate, 2);
    json.field("fraction", share(v, list), 6);
    json.end_object();
  }
  json.end_array().end_object();
}

void text_rows(const std::vector<Row>& rows, Symbols& symbols, const Formatter& format, size_t top,
               std::ostream& out) {
  TextTable table({{"address"},
                   {"kind", true},
                   {"vtot"},
                   {"thld"},
                   {"nv"},
                   {"instruction", true},
                   {"hot values (estimated count, share)", true}});
  std::string procedure;
  for (const Row& row : rows) {
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
             percent_text(100 * share(row.hot[i], list)) + ")";
    if (row.hot.size() > top) hot += "  ...";
    table.add_row({hex_address(list.address), row.kind->info.kind, std::to_string(list.seen),
                   fixed_text(list.probability, 3), std::to_string(list.values.size()),
                   symbols.instruction(image, list.address), hot});
  }
  table.print(out);
}

}  // namespace

int run_values_command(const std::vector<std::string>& arguments) {
  const ParsedOptions options(
      arguments, {{"db", "image", "procedure", "images", "kind", "top", "min-samples", "threshold",
                   "limit", "values-module", "epoch"},
                  {"json", "invariant"}});
  const ProfileDatabase db = ProfileDatabase::open(options.database());
  const std::vector<std::string> kinds = split(options.value("kind").value_or(""));
  const std::vector<MergedKind> merged =
      load_value_hotlists(db, options.value("image"), kinds, parse_epoch_option(options));
  Symbols symbols{image_resolver(options, {options.database()}), {}};
  const Formatter format(options.value("values-module")
                             ? values::load_module(*options.value("values-module"))
                             : nullptr);
  auto number = [&](const std::string& name, double fallback) {
    const auto text = options.value(name);
    if (!text) return fallback;
    try {
      size_t used = 0;
      const double value = std::stod(*text, &used);
      if (used == text->size() && value >= 0) return value;
    } catch (const std::exception&) {
    }
    throw UsageError("--" + name + " takes a non-negative number");
  };

  std::optional<std::pair<uint64_t, uint64_t>> range;  // --procedure bounds
  if (const auto name = options.value("procedure")) {
    std::vector<std::string> every_symbol;
    size_t with_symbols = 0;
    for (const MergedKind& kind : merged) {
      const ElfImage* elf = symbols.elf(kind.info.image);
      if (!elf) continue;
      ++with_symbols;
      const std::vector<std::string> names = elf->procedure_symbols();
      every_symbol.insert(every_symbol.end(), names.begin(), names.end());
      if (const auto p = find_procedure(*elf, *name, kind.info.image.path)) {
        range = {p->start, elf->procedure_end(*p)};
        break;
      }
    }
    if (!range) throw no_procedure_error(every_symbol, *name, with_symbols, "");
  }

  // Only registers the instruction really reads or writes (no "result" of a
  // trapb, no literal as "b"); without the ELF the row stays.
  auto register_value = [&](const MergedKind& kind, const PcHotlist& list) {
    const ElfImage* elf = symbols.elf(kind.info.image);
    const std::optional<uint32_t> word = elf ? elf->instruction_at(list.address) : std::nullopt;
    return !word || kind_is_register_value(kind.info.kind, *word,
                                           decode_mode_for_image(kind.info.image.path));
  };
  std::vector<Row> rows;
  for (const MergedKind& kind : merged)
    for (const PcHotlist& list : kind.hotlists)
      if ((!range || (list.address >= range->first && list.address < range->second)) &&
          register_value(kind, list))
        rows.push_back(Row{&kind, &list, by_count(list)});

  const bool invariant = options.flag("invariant");
  if (invariant) {
    const double min_samples = number("min-samples", 50);
    const double threshold = number("threshold", 0.8);
    std::erase_if(rows, [&](const Row& row) {
      return static_cast<double>(row.list->seen) < min_samples || row.hot.empty() ||
             share(row.hot.front(), *row.list) < threshold;
    });
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.list->seen > b.list->seen; });
    const size_t limit = static_cast<size_t>(number("limit", 50));
    if (rows.size() > limit) rows.resize(limit);
  } else {
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      return std::tie(a.kind->info.image.path, a.list->address) <
             std::tie(b.kind->info.image.path, b.list->address);
    });
  }

  if (options.flag("json")) {
    JsonWriter json(std::cout);
    json.begin_object().field("invariant", invariant).key("rows").begin_array();
    for (const Row& row : rows) json_row(json, row, symbols, format);
    json.end_array().end_object();
    std::cout << '\n';
    return 0;
  }
  if (rows.empty()) {
    std::cout << "no value samples" << (invariant ? " pass the semi-invariant test" : "")
              << " (run with dcpi run --values N/k)\n";
    return 0;
  }
  text_rows(rows, symbols, format, static_cast<size_t>(number("top", 4)), std::cout);
  return 0;
}

}  // namespace dcpi
