// Output helpers, once, for every report's text and JSON (the rendering room,
// analysis/reports/README.md): aligned text tables in the style of the DCPI
// tools (Figures 1 and 3), number formats, and the JSON writer
// (json_writer.h) every --json goes through. Rooms below analysis/ format
// hex with fmt::format("{:#x}") directly.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/reports/json_writer.h"
#include "analysis/samples/sample_set.h"  // percent_of

namespace dcpi {

std::string percent_text(double percent, int decimals = 1);  // "33.9%"
std::string share_text(double part, double whole);   // "33.9%" of whole; "-" when whole <= 0
std::string fixed_text(double value, int decimals);  // "%.*f": "3.14"
std::string hex_address(uint64_t address);           // "0x120001234"
std::string hex_digits(uint64_t value);              // "120001234" (dcpicalc's Figure 2)
// `text` cut to `width` characters by replacing its middle with "...", so the
// namespace at the front and the function at the end both stay readable:
// "std::vector<int, std::allo...>::_M_realloc_insert". Shorter text as it is.
std::string abbreviate_middle(const std::string& text, size_t width);

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

}  // namespace dcpi
