// `dcpi values`: the value hotlists of an image next to its instructions
// (seed 001 §2, Figure 1: vtot, thld, nv and the hot values with estimated
// counts), and the semi-invariant finder (§2: "other tools automatically find
// semi-invariant values in code that is being executed a significant number
// of times"). Reads the .vals files of every epoch and merges them with the
// concise-sample merge rule (docs/profile-db.md, "Value files").
#include <iostream>
#include <memory>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/values_output.h"
#include "analysis/values/value_hotlists.h"
#include "analysis/values/value_rows.h"
#include "hostdump/values/customization_module.h"
#include "profiledb/tab_text.h"
#include "profiledb/value_file.h"

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
    "  --procedure   only instructions of this procedure (named as for dcpi list)\n"
    "  --images      directories holding the ELF files (names and disassembly)\n"
    "  --top         values shown per row in text output (default 4; JSON has all)\n"
    "  --values-module  format values with this customization module's format()\n"
    "  --invariant   semi-invariant finder: rows with vtot >= --min-samples\n"
    "                (default 50) whose top value has >= --threshold (default 0.8)\n"
    "                of vtot, most executed first (at most --limit, default 50)\n";

namespace {

using values::ValueFileInfo;

// The non-empty items of a comma list.
std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  for (const std::string_view part : split_fields(text, ','))
    if (!part.empty()) parts.emplace_back(part);
  return parts;
}

// --values-module M.so: its own formats for its kinds.
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
  ValueSymbols symbols{image_resolver(options, {options.database()}), {}};
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

  const bool invariant = options.flag("invariant");
  ValueSelection selection{.procedure = options.value("procedure"), .invariant = invariant};
  if (invariant) {
    selection.min_samples = number("min-samples", 50);
    selection.threshold = number("threshold", 0.8);
    selection.limit = static_cast<size_t>(number("limit", 50));
  }
  const std::vector<ValueRow> rows = select_value_rows(merged, symbols, selection);

  if (options.flag("json")) {
    print_value_rows_json(rows, invariant, symbols, format, std::cout);
    return 0;
  }
  if (rows.empty()) {
    std::cout << "no value samples" << (invariant ? " pass the semi-invariant test" : "")
              << " (run with dcpi run --values N/k)\n";
    return 0;
  }
  print_value_rows(rows, symbols, format, static_cast<size_t>(number("top", 4)), std::cout);
  return 0;
}

}  // namespace dcpi
