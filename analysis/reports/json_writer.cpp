#include "analysis/reports/json_writer.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace dcpi {

std::string json_string(std::string_view text) {
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

void JsonWriter::new_line(size_t depth) { out_ << '\n' << std::string(2 * depth, ' '); }

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& level = levels_.back();
  if (level.has_elements) out_ << (level.lines || style_ == Style::kCompact ? "," : ", ");
  if (level.lines) new_line(levels_.size());
  level.has_elements = true;
}

void JsonWriter::open(char bracket, Break layout) {
  before_value();
  out_ << bracket;
  levels_.push_back({.has_elements = false, .lines = layout == Break::kLines});
}

void JsonWriter::close(char bracket) {
  const Level level = levels_.back();
  levels_.pop_back();
  if (level.lines && level.has_elements) new_line(levels_.size());
  out_ << bracket;
  if (levels_.empty()) out_ << '\n';
}

JsonWriter& JsonWriter::begin_object(Break layout) {
  open('{', layout);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  close('}');
  return *this;
}
JsonWriter& JsonWriter::begin_array(Break layout) {
  open('[', layout);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  close(']');
  return *this;
}
JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  out_ << json_string(name) << (style_ == Style::kCompact ? ":" : ": ");
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  out_ << json_string(text);
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
  if (!std::isfinite(number)) {
    out_ << "null";
    return *this;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, number);
  out_ << text;
  return *this;
}
JsonWriter& JsonWriter::real(std::optional<double> number, int significant) {
  before_value();
  if (!number || !std::isfinite(*number)) {
    out_ << "null";
    return *this;
  }
  std::ostringstream text;
  text << std::setprecision(significant) << *number;
  out_ << text.str();
  return *this;
}
JsonWriter& JsonWriter::address(uint64_t address) {
  before_value();
  char text[24];
  std::snprintf(text, sizeof text, "\"0x%llx\"", static_cast<unsigned long long>(address));
  out_ << text;
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

}  // namespace dcpi
