#include "kernel/initrd.h"

#include "kernel/page_alloc.h"
#include "kernel/text.h"

namespace kernel::initrd {
namespace {

constexpr uint64_t kHeaderBytes = 110;
constexpr uint32_t kTypeMask = 0170000;
constexpr uint32_t kRegular = 0100000;
constexpr uint32_t kDirectory = 0040000;
constexpr uint64_t kMaxEntries = 256;

struct Entry {
  const char* name;  // without leading "/" or "./"
  File file;
};

Entry entries[kMaxEntries];
uint64_t entry_count = 0;
uint64_t archive_address = 0;

bool hex_field(const char* text, uint32_t* value) {
  uint32_t v = 0;
  for (int i = 0; i < 8; ++i) {
    const char c = text[i];
    uint32_t digit;
    if (c >= '0' && c <= '9')
      digit = static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      digit = static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      digit = static_cast<uint32_t>(c - 'A' + 10);
    else
      return false;
    v = (v << 4) | digit;
  }
  *value = v;
  return true;
}

uint64_t align4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }

const char* strip(const char* path) {
  for (;;) {
    if (path[0] == '/')
      ++path;
    else if (path[0] == '.' && path[1] == '/')
      path += 2;
    else
      return path;
  }
}

}  // namespace

uint64_t init(uint64_t kseg_address, uint64_t size) {
  entry_count = 0;
  archive_address = kseg_address;
  if (kseg_address == 0 || size == 0) return 0;
  const char* base = reinterpret_cast<const char*>(kseg_address);
  uint64_t offset = 0;
  while (offset + kHeaderBytes <= size && entry_count < kMaxEntries) {
    const char* header = base + offset;
    if (header[0] != '0' || header[1] != '7' || header[2] != '0' || header[3] != '7' ||
        header[4] != '0' || header[5] != '1')
      break;
    uint32_t mode, file_size, name_size;
    if (!hex_field(header + 6 + 8 * 1, &mode) || !hex_field(header + 6 + 8 * 6, &file_size) ||
        !hex_field(header + 6 + 8 * 11, &name_size))
      break;
    const char* name = header + kHeaderBytes;
    const uint64_t data_offset = align4(offset + kHeaderBytes + name_size);
    if (name_size == 0 || data_offset + file_size > size || name[name_size - 1] != 0) break;
    if (same_string(name, "TRAILER!!!")) break;
    entries[entry_count++] = Entry{strip(name), File{base + data_offset, file_size, mode}};
    offset = align4(data_offset + file_size);
  }
  return entry_count;
}

bool present() { return entry_count > 0; }

bool find(const char* path, File* file) {
  const char* wanted = strip(path);
  for (uint64_t i = 0; i < entry_count; ++i) {
    if (!same_string(entries[i].name, wanted)) continue;
    if ((entries[i].file.mode & kTypeMask) != kRegular) return false;
    *file = entries[i].file;
    return true;
  }
  return false;
}

bool lookup(const char* path, File* file) {
  const char* wanted = strip(path);
  if (*wanted == 0) {  // the root directory itself
    *file = File{nullptr, 0, kDirectory | 0755};
    return true;
  }
  for (uint64_t i = 0; i < entry_count; ++i) {
    if (!same_string(entries[i].name, wanted)) continue;
    *file = entries[i].file;
    return true;
  }
  return false;
}

uint64_t start_phys() { return archive_address ? pages::kseg_to_phys(archive_address) : 0; }

}  // namespace kernel::initrd
