// Output helpers shared by the report commands: aligned text tables in the
// style of the DCPI tools (Figures 1 and 3) and a small streaming JSON writer
// (every command has --json for scripts and tests).
#pragma once
#include <cstdint>
#include <iostream>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/cli/cli_options.h"
#include "analysis/reports/sample_set.h"

namespace dcpi {

double percent_of(uint64_t part, uint64_t total);            // 0 when total is 0
std::string percent_text(double percent, int decimals = 1);  // "33.9%"
std::string fixed_text(double value, int decimals);
std::string hex_address(uint64_t address);  // "0x120001234"
// JSON string literal with quotes and escapes.
std::string json_quote(std::string_view text);

// Columns are right-aligned unless marked left; the last column may be wide.
class TextTable {
 public:
  struct Column {
    std::string header;
    bool left = false;
  };
  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back({std::move(cells), false}); }
  // A line printed as it is between rows (e.g. a source line in a listing);
  // it does not widen the columns.
  void add_banner(std::string text) { rows_.push_back({{std::move(text)}, true}); }
  void print(std::ostream& out) const;

 private:
  std::vector<Column> columns_;
  struct Row {
    std::vector<std::string> cells;
    bool banner = false;
  };
  std::vector<Row> rows_;
};

// Writes syntactically valid JSON: commas and nesting are tracked, strings escaped.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(uint64_t number);
  JsonWriter& value(int64_t number);
  JsonWriter& value(int number) { return value(static_cast<int64_t>(number)); }
  JsonWriter& value(uint32_t number) { return value(static_cast<uint64_t>(number)); }
  JsonWriter& value(double number, int decimals);
  JsonWriter& value(bool flag);
  JsonWriter& null();
  // key + value in one call
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }
  JsonWriter& field(std::string_view name, double number, int decimals) {
    key(name);
    return value(number, decimals);
  }

 private:
  void before_value();
  std::ostream& out_;
  std::vector<bool> depth_;  // per open container: has it had an element yet?
  bool after_key_ = false;
};

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
