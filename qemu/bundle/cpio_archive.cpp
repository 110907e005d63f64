#include "qemu/bundle/cpio_archive.h"

#include <cstdio>
#include <stdexcept>

#include "firmware/newc.h"

namespace dcpi::qemu {
namespace {

using newc::align;

uint32_t hex_field(const std::string& archive, size_t at, newc::Field field) {
  uint32_t value = 0;
  if (!newc::read_field(archive.data() + at, field, &value))
    throw std::runtime_error("cpio: bad header field at offset " + std::to_string(at));
  return value;
}

std::string strip_name(std::string name) {
  while (name.starts_with("/") || name.starts_with("./")) name.erase(0, name[0] == '/' ? 1 : 2);
  return name;
}

void append_header(std::string& out, uint32_t inode, uint32_t mode, size_t size,
                   const std::string& name) {
  uint32_t fields[newc::kFieldCount] = {};  // owner 0:0, time 0, no devices
  fields[newc::kInode] = inode;
  fields[newc::kMode] = mode;
  fields[newc::kLinks] = 1;
  fields[newc::kFileSize] = static_cast<uint32_t>(size);
  fields[newc::kNameSize] = static_cast<uint32_t>(name.size() + 1);
  out += newc::kMagic;
  for (uint32_t field : fields) {
    char text[9];
    std::snprintf(text, sizeof text, "%08X", field);
    out += text;
  }
  out += name;
  out += '\0';
  out.resize(align(out.size()), '\0');
}

}  // namespace

std::vector<CpioEntry> read_cpio(const std::string& archive) {
  std::vector<CpioEntry> entries;
  size_t at = 0;
  while (at + newc::kHeaderBytes <= archive.size()) {
    if (!newc::has_magic(archive.data() + at))
      throw std::runtime_error("cpio: no newc header at offset " + std::to_string(at));
    const uint32_t mode = hex_field(archive, at, newc::kMode);
    const size_t size = hex_field(archive, at, newc::kFileSize);
    const size_t name_size = hex_field(archive, at, newc::kNameSize);
    const size_t data_at = align(at + newc::kHeaderBytes + name_size);
    if (name_size == 0 || data_at > archive.size() || size > archive.size() - data_at ||
        archive[at + newc::kHeaderBytes + name_size - 1] != '\0')
      throw std::runtime_error("cpio: entry at offset " + std::to_string(at) + " is truncated");
    std::string name = archive.substr(at + newc::kHeaderBytes, name_size - 1);
    if (name == newc::kTrailerName) return entries;
    entries.push_back({strip_name(name), mode, archive.substr(data_at, size)});
    at = align(data_at + size);
  }
  throw std::runtime_error("cpio: the archive ends without its trailer");
}

std::string write_cpio(const std::vector<CpioEntry>& entries) {
  std::string out;
  uint32_t inode = 1;
  for (const CpioEntry& entry : entries) {
    append_header(out, inode++, entry.mode, entry.data.size(), entry.name);
    out += entry.data;
    out.resize(align(out.size()), '\0');
  }
  append_header(out, 0, 0, 0, newc::kTrailerName);
  return out;
}

}  // namespace dcpi::qemu
