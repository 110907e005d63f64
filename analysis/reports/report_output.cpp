#include "analysis/reports/report_output.h"

#include <algorithm>
#include <cmath>
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

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!depth_.empty()) {
    if (depth_.back()) out_ << ',';
    depth_.back() = true;
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ << '{';
  depth_.push_back(false);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  depth_.pop_back();
  out_ << '}';
  if (depth_.empty()) out_ << '\n';
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ << '[';
  depth_.push_back(false);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  depth_.pop_back();
  out_ << ']';
  if (depth_.empty()) out_ << '\n';
  return *this;
}
JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  out_ << json_quote(name) << ':';
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  out_ << json_quote(text);
  return *this;
}
JsonWriter& JsonWriter::value(uint64_t number) {
  before_value();
  out_ << number;
  return *this;
}
JsonWriter& JsonWriter::value(int64_t number) {
  before_value();
  out_ << number;
  return *this;
}
JsonWriter& JsonWriter::value(double number, int decimals) {
  before_value();
  out_ << (std::isfinite(number) ? fixed_text(number, decimals) : "null");
  return *this;
}
JsonWriter& JsonWriter::value(bool flag) {
  before_value();
  out_ << (flag ? "true" : "false");
  return *this;
}
JsonWriter& JsonWriter::null() {
  before_value();
  out_ << "null";
  return *this;
}

std::string json_quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace dcpi
