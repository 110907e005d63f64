// What the plugins' raw contexts.cct and paths.bl writers share
// (contexts_file_writer, paths_file_writer): fixed records appended as
// bytes, the CRC-32C and trailer magic that close a file
// (firmware/contexts_format.h, firmware/paths_format.h), and a write that
// never leaves half a file where the host looks for it.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "firmware/crc32c.h"

namespace dcpi::contexts {

template <typename T>
void append_record(std::vector<uint8_t>& out, const T& value) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof value);
}

// The trailer: CRC-32C of every byte so far, then the file kind's magic.
inline void seal_raw_file(std::vector<uint8_t>& out, uint32_t trailer_magic) {
  append_record(out, crc32c(out.data(), out.size()));
  append_record(out, trailer_magic);
}

// Writes PATH.tmp, then renames it over PATH; false on any failure.
inline bool write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  const std::string temporary = path + ".tmp";
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) return false;
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  if (std::fclose(file) != 0 || !written) return false;
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

}  // namespace dcpi::contexts
