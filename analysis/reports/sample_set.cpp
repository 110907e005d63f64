#include "analysis/reports/sample_set.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <stdexcept>

namespace dcpi {

bool image_matches(const ImageIdentity& image, const std::string& wanted) {
  if (image.unknown) return wanted == "[unknown]" || wanted == "unknown";
  return image.path == wanted || std::filesystem::path(image.path).filename() == wanted;
}

Profile filter_rows(Profile profile, const SampleFilter& filter) {
  if (!filter.pid && !filter.cpu) return profile;
  std::erase_if(profile.rows, [&](const ProfileRow& row) {
    return (filter.pid && row.pid != *filter.pid) || (filter.cpu && row.cpu != *filter.cpu);
  });
  profile.info.row_count = profile.rows.size();
  profile.info.total_count = 0;
  for (const ProfileRow& row : profile.rows) profile.info.total_count += row.count;
  return profile;
}

SampleSet load_samples(const ProfileDatabase& database, const SampleFilter& filter) {
  SampleSet set;
  set.label = database.directory().filename().string();
  if (set.label.empty()) set.label = database.directory().string();
  for (uint64_t epoch : database.select_epochs(filter.epochs)) {
    set.periods[epoch] = database.epoch_metadata(epoch).period;
    for (const ProfileInfo& info : database.profiles(epoch)) {
      if (filter.image && !image_matches(info.image, *filter.image)) continue;
      Profile profile = filter_rows(database.read_profile(info), filter);
      if (!profile.rows.empty()) set.profiles.push_back(std::move(profile));
    }
  }
  return set;
}

std::vector<SampleSet> load_comparison_sets(const std::vector<std::string>& databases,
                                            const std::optional<std::string>& epochs,
                                            const SampleFilter& filter) {
  std::vector<SampleSet> sets;
  if (epochs) {
    if (databases.size() != 1) throw UsageError("--epochs compares epochs of exactly one --db");
    const ProfileDatabase database = ProfileDatabase::open(databases[0]);
    const std::vector<uint64_t> chosen =
        *epochs == "each" ? database.epochs() : parse_number_list(*epochs, "epochs");
    for (uint64_t epoch : chosen) {
      SampleFilter one = filter;
      one.epochs = std::vector<uint64_t>{epoch};
      sets.push_back(load_samples(database, one));
      sets.back().label = "epoch " + std::to_string(epoch);
    }
    return sets;
  }
  for (const std::string& path : databases) {
    sets.push_back(load_samples(ProfileDatabase::open(path), filter));
    sets.back().label = path;  // the path as typed: distinct even when base names repeat
  }
  return sets;
}

uint64_t parse_number(const std::string& text, const std::string& option) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty())
    throw UsageError("--" + option + " wants a non-negative number, not '" + text + "'");
  return value;
}

std::vector<uint64_t> parse_number_list(const std::string& text, const std::string& option) {
  std::vector<uint64_t> numbers;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(',', begin), text.size());
    numbers.push_back(parse_number(text.substr(begin, end - begin), option));
    begin = end + 1;
  }
  return numbers;
}

std::vector<std::string> take_repeated_option(std::vector<std::string>& arguments,
                                              const std::string& name) {
  const std::string flag = "--" + name, prefix = flag + "=";
  std::vector<std::string> values, rest;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] == flag) {
      if (i + 1 == arguments.size()) throw UsageError(flag + " needs a value");
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
  filter.epochs = parse_epoch_option(options);
  return filter;
}

std::optional<std::vector<uint64_t>> parse_epoch_option(const ParsedOptions& options) {
  const auto epoch = options.value("epoch");
  if (!epoch || *epoch == "all") return std::nullopt;
  return parse_number_list(*epoch, "epoch");
}

}  // namespace dcpi
