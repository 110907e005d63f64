#include "analysis/cli/cli_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "symbols/procedure_match.h"  // name_distance

namespace dcpi {

std::string closest_name_hint(const std::string& typed, const std::vector<std::string>& names,
                              const std::string& prefix) {
  // A third of the name may be wrong ("--limt", "prfo"), at least two edits;
  // further than that the guess would surprise more than help.
  const size_t allowed = std::max<size_t>(2, typed.size() / 3);
  const std::string* best = nullptr;
  size_t best_distance = allowed + 1;
  for (const std::string& name : names) {
    const size_t distance = name_distance(typed, name);
    if (distance < best_distance && distance < std::max(typed.size(), name.size())) {
      best = &name;
      best_distance = distance;
    }
  }
  return best ? "; did you mean '" + prefix + *best + "'?" : "";
}

namespace {

bool names_an_option(const std::string& argument, const OptionSpec& spec) {
  if (!argument.starts_with("--")) return false;
  const std::string name = argument.substr(2, argument.find('=') - 2);
  return spec.flags.count(name) != 0 || spec.with_value.count(name) != 0;
}

}  // namespace

ParsedOptions::ParsedOptions(const std::vector<std::string>& arguments, const OptionSpec& spec) {
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    if (!argument.starts_with("--")) throw UsageError("unexpected argument '" + argument + "'");
    std::string name = argument.substr(2);
    std::optional<std::string> inline_value;
    if (const size_t equals = name.find('='); equals != std::string::npos) {
      inline_value = name.substr(equals + 1);
      name.resize(equals);
    }
    if (spec.flags.count(name) && !inline_value) {
      flags_.insert(name);
    } else if (spec.with_value.count(name)) {
      if (!inline_value && i + 1 == arguments.size())
        throw UsageError("option --" + name + " needs a value");
      // `--truth --profileme` would write the truth to a file named
      // "--profileme" and drop the option: a value that is one of this
      // command's options is taken as a forgotten value (--truth=--x still
      // passes it).
      if (!inline_value && names_an_option(arguments[i + 1], spec))
        throw UsageError("option --" + name + " needs a value before " + arguments[i + 1] +
                         " (or write --" + name + "=" + arguments[i + 1] + ")");
      values_[name] = inline_value ? *inline_value : arguments[++i];
    } else {
      std::vector<std::string> known(spec.with_value.begin(), spec.with_value.end());
      known.insert(known.end(), spec.flags.begin(), spec.flags.end());
      throw UsageError("unknown option '" + argument + "'" + closest_name_hint(name, known, "--"));
    }
  }
}

std::optional<std::string> ParsedOptions::value(const std::string& name) const {
  const auto found = values_.find(name);
  if (found == values_.end()) return std::nullopt;
  return found->second;
}

std::string ParsedOptions::required(const std::string& name) const {
  if (auto found = value(name)) return *found;
  throw UsageError("missing required option --" + name);
}

double ParsedOptions::seconds(const std::string& name, double default_seconds) const {
  const std::optional<std::string> text = value(name);
  if (!text) return default_seconds;
  char* end = nullptr;
  const double parsed = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || !std::isfinite(parsed) || parsed <= 0 || parsed > 86400)
    throw UsageError("option --" + name + " needs a number of seconds, not '" + *text + "'");
  return parsed;
}

}  // namespace dcpi

namespace dcpi {

std::optional<uint64_t> parse_whole_number(const std::string& text, uint64_t low, uint64_t high) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end || value < low || value > high)
    return std::nullopt;
  return value;
}

uint64_t ParsedOptions::number(const std::string& name, uint64_t fallback, uint64_t low,
                               uint64_t high) const {
  const std::optional<std::string> text = value(name);
  if (!text) return fallback;
  if (const auto parsed = parse_whole_number(*text, low, high)) return *parsed;
  throw UsageError("--" + name + " must be a number from " + std::to_string(low) + " to " +
                   std::to_string(high) + ", not '" + *text + "'");
}

double ParsedOptions::positive(const std::string& name, double fallback) const {
  const std::optional<std::string> text = value(name);
  if (!text) return fallback;
  char* end = nullptr;
  const double parsed = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || !std::isfinite(parsed) || parsed <= 0)
    throw UsageError("--" + name + " must be a positive number, not '" + *text + "'");
  return parsed;
}

}  // namespace dcpi
