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
// A record's fields (an empty field between two tabs included).
std::vector<std::string_view> split_tabs(std::string_view line);

}  // namespace dcpi
