#include "analysis/html/html_text.h"

#include <cmath>
#include <cstdio>

#include "analysis/reports/markup_text.h"

namespace dcpi::html {

std::string escape(std::string_view text) { return markup_escaped(text); }

namespace {

std::string slug(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-';
    out += plain ? c : (c == ':' ? '.' : '_');
  }
  return out.empty() ? "_" : out;
}

}  // namespace

std::string AnchorNames::make(std::string_view image, std::string_view procedure) {
  const std::string base = slug(image) + "--" + slug(procedure);
  std::string name = base;
  for (int n = 2; used_.count(name); ++n) name = base + "-" + std::to_string(n);
  used_.insert(name);
  return name;
}

std::string compact_number(double value) {
  char buffer[32];
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e9)
    std::snprintf(buffer, sizeof buffer, "%.1fG", value / 1e9);
  else if (magnitude >= 1e6)
    std::snprintf(buffer, sizeof buffer, "%.1fM", value / 1e6);
  else if (magnitude >= 1e4)
    std::snprintf(buffer, sizeof buffer, "%.1fK", value / 1e3);
  else if (magnitude >= 10 || value == std::floor(value))
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  else
    std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

std::string share_text(double part, double total) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", total > 0 ? 100.0 * part / total : 0.0);
  return buffer;
}

}  // namespace dcpi::html
