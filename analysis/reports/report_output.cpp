#include "analysis/reports/report_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace dcpi {

std::string fixed_text(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string percent_text(double percent, int decimals) {
  return fixed_text(percent, decimals) + "%";
}

std::string share_text(double part, double whole) {
  return whole > 0 ? percent_text(100.0 * part / whole) : "-";
}

std::string hex_address(uint64_t address) { return fmt::format("{:#x}", address); }

std::string hex_digits(uint64_t value) { return fmt::format("{:x}", value); }

std::string abbreviate_middle(const std::string& text, size_t width) {
  constexpr std::string_view kEllipsis = "...";
  if (text.size() <= width || width <= kEllipsis.size() + 2) return text;
  const size_t kept = width - kEllipsis.size();
  const size_t head = kept / 2, tail = kept - head;  // the end (the function) keeps the odd one
  return text.substr(0, head) + std::string(kEllipsis) + text.substr(text.size() - tail);
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
