#include "qemu/bundle/cpio_archive.h"

#include <cstdio>
#include <stdexcept>

namespace dcpi::qemu {
namespace {

constexpr size_t kHeaderBytes = 110;  // "070701" + 13 eight-digit hex fields
constexpr size_t kFields = 13;
constexpr size_t kModeField = 1, kSizeField = 6, kNameSizeField = 11;
constexpr std::string_view kMagic = "070701";
constexpr std::string_view kTrailer = "TRAILER!!!";

size_t align4(size_t n) { return (n + 3) & ~size_t{3}; }

uint32_t hex_field(const std::string& archive, size_t at, size_t field) {
  uint32_t value = 0;
  for (size_t i = 0; i < 8; ++i) {
    const char c = archive[at + 6 + 8 * field + i];
    uint32_t digit;
    if (c >= '0' && c <= '9')
      digit = static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      digit = static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      digit = static_cast<uint32_t>(c - 'A' + 10);
    else
      throw std::runtime_error("cpio: bad header field at offset " + std::to_string(at));
    value = value << 4 | digit;
  }
  return value;
}

std::string strip_name(std::string name) {
  while (name.starts_with("/") || name.starts_with("./")) name.erase(0, name[0] == '/' ? 1 : 2);
  return name;
}

void append_header(std::string& out, uint32_t inode, uint32_t mode, size_t size,
                   const std::string& name) {
  const uint32_t fields[kFields] = {inode,
                                    mode,
                                    0,
                                    0,
                                    1,
                                    0,
                                    static_cast<uint32_t>(size),
                                    0,
                                    0,
                                    0,
                                    0,
                                    static_cast<uint32_t>(name.size() + 1),
                                    0};
  out += kMagic;
  for (uint32_t field : fields) {
    char text[9];
    std::snprintf(text, sizeof text, "%08X", field);
    out += text;
  }
  out += name;
  out += '\0';
  out.resize(align4(out.size()), '\0');
}

}  // namespace

std::vector<CpioEntry> read_cpio(const std::string& archive) {
  std::vector<CpioEntry> entries;
  size_t at = 0;
  while (at + kHeaderBytes <= archive.size()) {
    if (archive.compare(at, kMagic.size(), kMagic) != 0)
      throw std::runtime_error("cpio: no newc header at offset " + std::to_string(at));
    const uint32_t mode = hex_field(archive, at, kModeField);
    const size_t size = hex_field(archive, at, kSizeField);
    const size_t name_size = hex_field(archive, at, kNameSizeField);
    const size_t data_at = align4(at + kHeaderBytes + name_size);
    if (name_size == 0 || data_at > archive.size() || size > archive.size() - data_at ||
        archive[at + kHeaderBytes + name_size - 1] != '\0')
      throw std::runtime_error("cpio: entry at offset " + std::to_string(at) + " is truncated");
    std::string name = archive.substr(at + kHeaderBytes, name_size - 1);
    if (name == kTrailer) return entries;
    entries.push_back({strip_name(name), mode, archive.substr(data_at, size)});
    at = align4(data_at + size);
  }
  throw std::runtime_error("cpio: the archive ends without its trailer");
}

std::string write_cpio(const std::vector<CpioEntry>& entries) {
  std::string out;
  uint32_t inode = 1;
  for (const CpioEntry& entry : entries) {
    append_header(out, inode++, entry.mode, entry.data.size(), entry.name);
    out += entry.data;
    out.resize(align4(out.size()), '\0');
  }
  append_header(out, 0, 0, 0, std::string(kTrailer));
  return out;
}

}  // namespace dcpi::qemu
