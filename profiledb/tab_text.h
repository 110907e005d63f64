// The database's small text files (IMAGES, epoch-N/processes): a magic
// line, records of tab-separated fields, and a last line "crc32c XXXXXXXX"
// over everything before it, so that damage is a one-line error rather
// than a wrong table.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace dcpi {

// `text` with its crc32c line appended.
std::string with_crc_line(const std::string& text);
// What precedes the crc32c line, once the checksum holds; a
// ProfileFormatError naming `path` otherwise ("corrupt " + what).
std::string_view checked_crc_body(std::string_view text, const std::string& path, const char* what);
// The pieces of `text` between `separator`s, empty ones included (one
// empty piece for empty text): a record's tab-separated fields, an option's
// comma list.
std::vector<std::string_view> split_fields(std::string_view text, char separator);
// A record's fields (an empty field between two tabs included).
inline std::vector<std::string_view> split_tabs(std::string_view line) {
  return split_fields(line, '\t');
}

}  // namespace dcpi
