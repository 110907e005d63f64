// The initrd's format: a cpio "newc" archive (firmware/newc.h: the layout
// kernel/initrd.cpp reads too; workloads/make-initrd.sh writes it), read and
// written here so `dcpi run -- PROGRAM` can add a program, its libraries and
// data files to the bundled workloads.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/newc.h"

namespace dcpi::qemu {

struct CpioEntry {
  std::string name;   // "bin/init": relative, no leading "/" or "./"
  uint32_t mode = 0;  // st_mode: S_IFREG | 0755, S_IFDIR | 0755, ...
  std::string data;
};

inline constexpr uint32_t kCpioTypeMask = newc::kTypeMask;
inline constexpr uint32_t kCpioRegular = newc::kRegular;
inline constexpr uint32_t kCpioDirectory = newc::kDirectory;

// Every entry before the TRAILER!!! one. Throws std::runtime_error naming
// the offset of a malformed header, a truncated entry or a missing trailer.
std::vector<CpioEntry> read_cpio(const std::string& archive);

// A reproducible archive (inode numbers in order, owner 0:0, time 0) ending
// in the trailer.
std::string write_cpio(const std::vector<CpioEntry>& entries);

}  // namespace dcpi::qemu
