#include "analysis/reports/report_output.h"

#include <algorithm>
#include <cstdio>

namespace dcpi {

double percent_of(uint64_t part, uint64_t total) {
  return total == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(total);
}

std::string fixed_text(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string percent_text(double percent, int decimals) {
  return fixed_text(percent, decimals) + "%";
}

std::string hex_address(uint64_t address) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

void TextTable::print(std::ostream& out) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) widths[c] = columns_[c].header.size();
  for (const Row& row : rows_)
    for (size_t c = 0; !row.banner && c < row.cells.size() && c < widths.size(); ++c)
      widths[c] = std::max(widths[c], row.cells[c].size());
  auto print_row = [&](auto cell_of) {
    std::string line;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string cell = cell_of(c);
      const std::string pad(widths[c] - std::min(widths[c], cell.size()), ' ');
      const bool last = c + 1 == columns_.size();
      if (c) line += "  ";
      line += columns_[c].left ? cell + (last ? "" : pad) : pad + cell;
    }
    out << line << '\n';
  };
  print_row([&](size_t c) { return columns_[c].header; });
  for (const Row& row : rows_) {
    if (row.banner)
      out << row.cells[0] << '\n';
    else
      print_row([&](size_t c) { return c < row.cells.size() ? row.cells[c] : std::string(); });
  }
}

}  // namespace dcpi
