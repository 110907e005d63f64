#include "profiledb/value_format.h"

#include <fmt/format.h>

#include <bit>
#include <cstdio>

namespace dcpi::values {

std::string format_value(ValueFormat format, uint64_t value) {
  char text[64];
  switch (format) {
    case ValueFormat::kDouble:
      // %.17g round-trips; shorter when the value is short (1.25).
      for (int digits = 6; digits <= 17; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, std::bit_cast<double>(value));
        double back = 0;
        if (std::sscanf(text, "%lf", &back) == 1 && std::bit_cast<uint64_t>(back) == value) break;
      }
      return text;
    case ValueFormat::kSigned:
      return std::to_string(static_cast<int64_t>(value));
    case ValueFormat::kHex:
    case ValueFormat::kAddress:
      break;
  }
  return fmt::format("{:#x}", value);
}

const char* value_format_name(ValueFormat format) {
  switch (format) {
    case ValueFormat::kHex:
      return "hex";
    case ValueFormat::kDouble:
      return "double";
    case ValueFormat::kSigned:
      return "signed";
    case ValueFormat::kAddress:
      return "address";
  }
  return "?";
}

bool valid_kind_name(const std::string& name) {
  if (name.empty() || name.size() > 32) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace dcpi::values
