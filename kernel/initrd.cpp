#include "kernel/initrd.h"

#include "firmware/newc.h"
#include "kernel/page_alloc.h"
#include "kernel/text.h"

namespace kernel::initrd {
namespace {

namespace newc = dcpi::newc;

using newc::kDirectory;
using newc::kRegular;
using newc::kTypeMask;
constexpr uint64_t kMaxEntries = 256;

struct Entry {
  const char* name;  // without leading "/" or "./"
  File file;
};

Entry entries[kMaxEntries];
uint64_t entry_count = 0;
uint64_t archive_address = 0;

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
  while (offset + newc::kHeaderBytes <= size && entry_count < kMaxEntries) {
    const char* header = base + offset;
    if (!newc::has_magic(header)) break;
    uint32_t mode, file_size, name_size;
    if (!newc::read_field(header, newc::kMode, &mode) ||
        !newc::read_field(header, newc::kFileSize, &file_size) ||
        !newc::read_field(header, newc::kNameSize, &name_size))
      break;
    const char* name = header + newc::kHeaderBytes;
    const uint64_t data_offset = newc::align(offset + newc::kHeaderBytes + name_size);
    if (name_size == 0 || data_offset + file_size > size || name[name_size - 1] != 0) break;
    if (same_string(name, newc::kTrailerName)) break;
    entries[entry_count++] = Entry{strip(name), File{base + data_offset, file_size, mode}};
    offset = newc::align(data_offset + file_size);
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

bool entry(uint64_t index, const char** name, File* file) {
  if (index >= entry_count) return false;
  *name = entries[index].name;
  *file = entries[index].file;
  return true;
}

uint64_t start_phys() { return archive_address ? pages::kseg_to_phys(archive_address) : 0; }

}  // namespace kernel::initrd
