#include "profiledb/tab_text.h"

#include <algorithm>
#include <cstdio>

#include "firmware/crc32c.h"
#include "profiledb/profile_db.h"

namespace dcpi {

namespace {

std::string crc_text(std::string_view text) {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", crc32c(text.data(), text.size()));
  return hex;
}

}  // namespace

std::string with_crc_line(const std::string& text) {
  return text + "crc32c " + crc_text(text) + '\n';
}

std::string_view checked_crc_body(std::string_view text, const std::string& path,
                                  const char* what) {
  const size_t crc_line = text.rfind("crc32c ");
  if (crc_line == std::string_view::npos || (crc_line > 0 && text[crc_line - 1] != '\n'))
    throw ProfileFormatError(path, text.size(), "missing crc32c line (truncated?)");
  if (text.substr(crc_line + 7) != crc_text(text.substr(0, crc_line)) + "\n")
    throw ProfileFormatError(path, crc_line,
                             std::string("checksum mismatch (corrupt ") + what + ")");
  return text.substr(0, crc_line);
}

std::vector<std::string_view> split_fields(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find(separator, at), text.size());
    fields.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return fields;
}

}  // namespace dcpi
