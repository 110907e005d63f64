#include "analysis/cli/report_options.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "profiledb/tab_text.h"
#include "symbols/procedure_match.h"

namespace dcpi {

uint64_t parse_number(const std::string& text, const std::string& option) {
  if (const auto value = parse_whole_number(text, 0, UINT64_MAX)) return *value;
  throw UsageError("--" + option + " wants a non-negative number, not '" + text + "'");
}

std::vector<uint64_t> parse_number_list(const std::string& text, const std::string& option) {
  std::vector<uint64_t> numbers;
  for (const std::string_view number : split_fields(text, ','))
    numbers.push_back(parse_number(std::string(number), option));
  return numbers;
}

std::vector<std::string> take_repeated_option(std::vector<std::string>& arguments,
                                              const std::string& name) {
  const std::string flag = "--" + name, prefix = flag + "=";
  std::vector<std::string> values, rest;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] == flag) {
      if (i + 1 == arguments.size()) throw UsageError(flag + " needs a value");
      // An option where the value belongs: forgotten (ParsedOptions's rule).
      if (arguments[i + 1].starts_with("--"))
        throw UsageError(flag + " needs a value before " + arguments[i + 1] + " (or write " +
                         prefix + arguments[i + 1] + ")");
      values.push_back(arguments[++i]);
    } else if (arguments[i].starts_with(prefix)) {
      values.push_back(arguments[i].substr(prefix.size()));
    } else {
      rest.push_back(arguments[i]);
    }
  }
  arguments = std::move(rest);
  return values;
}

std::vector<std::string> take_databases(std::vector<std::string>& arguments) {
  std::vector<std::string> databases = take_repeated_option(arguments, "db");
  if (databases.empty()) databases.push_back(kDefaultDatabase);
  return databases;
}

SampleFilter parse_sample_filter(const ParsedOptions& options) {
  SampleFilter filter;
  filter.image = options.value("image");
  auto small_number = [&](const std::string& name) -> std::optional<uint32_t> {
    const auto text = options.value(name);
    if (!text) return std::nullopt;
    const uint64_t value = parse_number(*text, name);
    if (value > UINT32_MAX) throw UsageError("--" + name + " " + *text + " is out of range");
    return static_cast<uint32_t>(value);
  };
  filter.pid = small_number("pid");
  filter.cpu = small_number("cpu");
  filter.tid = small_number("tid");
  filter.epochs = parse_epoch_option(options);
  return filter;
}

std::optional<std::vector<uint64_t>> parse_epoch_option(const ParsedOptions& options) {
  const auto epoch = options.value("epoch");
  if (!epoch || *epoch == "all") return std::nullopt;
  return parse_number_list(*epoch, "epoch");
}

std::optional<ComparedEpochs> parse_compared_epochs(const ParsedOptions& options,
                                                    size_t databases) {
  const auto epochs = options.value("epochs");
  if (!epochs) return std::nullopt;
  if (databases != 1) throw UsageError("--epochs compares epochs of exactly one --db");
  if (*epochs == "each") return ComparedEpochs{.each = true};
  return ComparedEpochs{.listed = parse_number_list(*epochs, "epochs")};
}

ImageSources image_sources(const std::optional<std::string>& images,
                           const std::vector<std::string>& databases) {
  ImageSources sources;
  if (images) sources.search_path = ImageResolver::parse_search_path(*images);
  for (const std::string& database : databases) {
    try {
      const std::vector<RecordedImage> recorded = read_image_catalog(database);
      sources.recorded.insert(sources.recorded.end(), recorded.begin(), recorded.end());
    } catch (const std::runtime_error& error) {  // a damaged IMAGES must not stop a report
      std::cerr << "dcpi: ignoring the image catalog: " << error.what() << '\n';
    }
  }
  return sources;
}

ImageResolver image_resolver(const std::optional<std::string>& images,
                             const std::vector<std::string>& databases) {
  return ImageResolver::from_sources(image_sources(images, databases));
}

CalcRequest parse_calc_request(const ParsedOptions& options, bool image_needed) {
  CalcRequest request{.db = options.database(), .image = options.value("image").value_or("")};
  // Without --image the procedure names it, as for dcpi list (issue 30).
  request.procedure = options.value("procedure");
  if (image_needed && request.image.empty() && !request.procedure)
    throw UsageError("give --image PATH_OR_NAME (or a --procedure whose image the database has)");
  request.images = image_sources(options.value("images"), {request.db});
  if (const auto m = options.value("mode")) {
    if (*m == "pal")
      request.mode = isa::DecodeMode::kPalcode;
    else if (*m == "user")
      request.mode = isa::DecodeMode::kUser;
    else
      throw UsageError("--mode must be pal or user, not '" + *m + "'");
  }
  request.use_events = !options.flag("no-events");
  request.model = options.value("model");
  if (request.model && !make_model(*request.model))
    throw UsageError("--model must be qemu or ev5, not '" + *request.model + "'");
  // Whole text only: "--epoch 2x" or "--period 4096zz" are usage errors.
  if (options.value("epoch")) request.epoch = options.number("epoch", 0, 0, UINT64_MAX);
  if (options.value("period")) request.period = options.positive("period", 0);
  const std::string estimate =
      options.value("estimate").value_or(std::string(calc::to_string(calc::kDefaultEstimator)));
  const auto estimator = calc::parse_estimator(estimate);
  if (!estimator) throw UsageError("--estimate must be dcpi or flow, not '" + estimate + "'");
  request.estimator = *estimator;
  return request;
}

}  // namespace dcpi
