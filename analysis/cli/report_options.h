// Command-line options the report commands (prof, list, stats, diff, export,
// values; DCPI §3) and calc/score (§6) share, turned into the plain request
// types of analysis/reports/ and analysis/calc/, so those rooms never see a
// command line. Bad values throw UsageError.
#pragma once
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/calc/frontend/inputs.h"
#include "analysis/cli/cli_options.h"
#include "analysis/samples/sample_set.h"
#include "symbols/image_resolver.h"

namespace dcpi {

uint64_t parse_number(const std::string& text, const std::string& option);
std::vector<uint64_t> parse_number_list(const std::string& text, const std::string& option);

// The filter options every report shares: --image, --pid, --cpu, --epoch.
// "--epoch all" (the default) selects every epoch; "--epoch N[,N...]" some.
SampleFilter parse_sample_filter(const ParsedOptions& options);
// --epoch N[,N...] or all (nullopt).
std::optional<std::vector<uint64_t>> parse_epoch_option(const ParsedOptions& options);
// stats/diff: --epochs a,b,c or each, which needs exactly one database.
std::optional<ComparedEpochs> parse_compared_epochs(const ParsedOptions& options, size_t databases);

// Removes every "--name VALUE" / "--name=VALUE" from `arguments` and returns
// the values in order (ParsedOptions keeps one value per name; stats and diff
// take several databases).
std::vector<std::string> take_repeated_option(std::vector<std::string>& arguments,
                                              const std::string& name);
// The --db values given (repeatable for stats and diff), or the default
// database (kDefaultDatabase) when none is; takes them out of `arguments`.
std::vector<std::string> take_databases(std::vector<std::string>& arguments);

// The resolver every report uses (DCPI §4.3.2): --images DIR[:DIR] first (an
// override), then the image catalogs `dcpi run` recorded in `databases`, then
// the build-id cache. A damaged catalog is skipped with a warning on stderr.
ImageResolver image_resolver(const std::optional<std::string>& images,
                             const std::vector<std::string>& databases);
inline ImageResolver image_resolver(const ParsedOptions& options,
                                    const std::vector<std::string>& databases) {
  return image_resolver(options.value("images"), databases);
}
// The same sources as plain data, for calc and score (CalcRequest::images).
ImageSources image_sources(const std::optional<std::string>& images,
                           const std::vector<std::string>& databases);

// The options `dcpi calc` and `dcpi score` both take, and their request.
inline const std::vector<std::string> kCalcValueOptions = {"db",    "image",  "images", "model",
                                                           "epoch", "period", "mode",   "estimate"};
// image_needed false: neither --image nor --procedure is fine (dcpi score
// then scores every image).
CalcRequest parse_calc_request(const ParsedOptions& options, bool image_needed = true);

// The common tail of a report command: --limit, then JSON, or the report's
// warnings on stderr ("dcpi COMMAND: ...") and the text table.
template <typename Report, typename PrintJson, typename PrintText>
int emit_report(const Report& report, const ParsedOptions& options, std::string_view command,
                PrintJson print_json, PrintText print_text) {
  std::optional<uint64_t> limit;
  if (const auto text = options.value("limit")) limit = parse_number(*text, "limit");
  if (options.flag("json")) {
    print_json(limit);
    return 0;
  }
  for (const std::string& warning : report.warnings)
    std::cerr << "dcpi " << command << ": " << warning << '\n';
  print_text(limit);
  return 0;
}

}  // namespace dcpi
