// The initrd: a cpio "newc" archive that QEMU puts at the top of RAM
// (-initrd; KSEG address and size at command line + 0x100 / + 0x108). A
// read-only in-memory file system over it: files are looked up by absolute
// path ("/bin/init"; archive names may be "bin/init" or "./bin/init").
#pragma once
#include <cstdint>

namespace kernel::initrd {

struct File {
  const char* data;  // KSEG, inside the archive
  uint64_t size;
  uint32_t mode;  // st_mode from the archive (S_IFREG | permissions, ...)
};

// Indexes the archive; returns the number of entries (0 if none/invalid).
uint64_t init(uint64_t kseg_address, uint64_t size);
bool present();
// True and *file filled if `path` names a regular file in the archive.
bool find(const char* path, File* file);
// True and *file filled if `path` names any entry (a directory too: then
// only `mode` is meaningful); "/" is always a directory.
bool lookup(const char* path, File* file);
// Entry `index` of the archive (its name without a leading "/"), for
// directory listings; false past the end.
bool entry(uint64_t index, const char** name, File* file);
// The archive's physical extent (kept out of the page allocator).
uint64_t start_phys();

}  // namespace kernel::initrd
