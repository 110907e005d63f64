// Minimal option parsing shared by the dcpi subcommands: "--name value",
// "--name=value" and boolean "--flag". Unknown options are errors.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace dcpi {

// The command line itself is wrong; the caller prints usage help.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The database every command reads or writes when --db is absent, like
// perf's perf.data: `dcpi run` then `dcpi prof` with no options.
inline constexpr const char* kDefaultDatabase = "dcpi.db";

struct OptionSpec {
  std::set<std::string> with_value;  // names without "--"
  std::set<std::string> flags;
};

// "; did you mean 'prof'?" when one of `names` is a likely typo of `typed`
// (a few edits away), else "".
std::string closest_name_hint(const std::string& typed, const std::vector<std::string>& names,
                              const std::string& prefix = "");

// Strict parsing of a whole number: every character a digit, within
// [low, high]; nullopt otherwise.
std::optional<uint64_t> parse_whole_number(const std::string& text, uint64_t low, uint64_t high);

class ParsedOptions {
 public:
  ParsedOptions(const std::vector<std::string>& arguments, const OptionSpec& spec);

  std::optional<std::string> value(const std::string& name) const;
  std::string required(const std::string& name) const;
  // --db, or ./dcpi.db when it is absent.
  std::string database() const { return value("db").value_or(kDefaultDatabase); }
  bool flag(const std::string& name) const { return flags_.count(name) != 0; }
  // A positive number of seconds, e.g. "5" or "0.5".
  double seconds(const std::string& name, double default_seconds) const;
  // A whole number in [low, high], all of the text (no "3abc", "1.5", "-1",
  // issue 18); `fallback` when the option is absent.
  uint64_t number(const std::string& name, uint64_t fallback, uint64_t low, uint64_t high) const;
  // A finite real number > 0, all of the text; `fallback` when absent.
  double positive(const std::string& name, double fallback) const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
};

}  // namespace dcpi
