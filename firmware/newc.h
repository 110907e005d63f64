// The initrd's format: a cpio "newc" archive (SVR4 portable ASCII, no CRC),
// what workloads/make-initrd.sh and the bundler write (qemu/bundle/) and what
// the kernel (kernel/initrd.cpp) and the host (qemu/bundle/cpio_archive.cpp,
// the run's catalogue of booted images) read. Written once here so the
// guest and the host cannot disagree on a field's place or width.
//
// An entry is a 110-byte ASCII header, the NUL-terminated name, padding to
// a multiple of 4, the file's bytes, padding to a multiple of 4 again. The
// archive ends with an entry named "TRAILER!!!". Freestanding (the guest
// kernel includes it): no library beyond <cstdint> and <cstddef>.
#pragma once
#include <cstddef>
#include <cstdint>

namespace dcpi::newc {

// The two strings have internal linkage (no inline): the kernel then reaches
// them as it reached the literals they replaced, not through the GOT.
constexpr char kMagic[] = "070701";  // every header starts with these six characters
inline constexpr size_t kMagicBytes = sizeof kMagic - 1;
inline constexpr size_t kFieldDigits = 8;  // each field: eight hex digits, either case

// The thirteen fields after the magic, in header order.
enum Field : uint32_t {
  kInode = 0,
  kMode = 1,  // st_mode: type (kTypeMask) and permissions
  kUid = 2,
  kGid = 3,
  kLinks = 4,
  kMtime = 5,
  kFileSize = 6,  // bytes of data after the name
  kDevMajor = 7,
  kDevMinor = 8,
  kRdevMajor = 9,
  kRdevMinor = 10,
  kNameSize = 11,  // bytes of the name including its NUL
  kCheck = 12,     // 0 in newc (the "crc" variant 070702 uses it)
  kFieldCount = 13,
};

inline constexpr size_t kHeaderBytes = kMagicBytes + kFieldCount * kFieldDigits;
static_assert(kMagicBytes == 6);
static_assert(kHeaderBytes == 110);

constexpr char kTrailerName[] = "TRAILER!!!";  // the last entry's name
static_assert(sizeof kTrailerName == 11);

// st_mode's file type bits (what the kernel and the bundler look at).
inline constexpr uint32_t kTypeMask = 0170000;
inline constexpr uint32_t kRegular = 0100000;
inline constexpr uint32_t kDirectory = 0040000;

// The functions have internal linkage (static), like the kernel's own copy
// they replaced: each translation unit keeps its own, so the kernel's text
// is laid out as before (benchmarks hash kernel PCs, DCPI §4.2.1).

// The name and the data each start on a 4-byte boundary.
inline constexpr uint64_t kAlignment = 4;
static constexpr uint64_t align(uint64_t n) {
  return (n + kAlignment - 1) & ~uint64_t{kAlignment - 1};
}
static_assert(align(110) == 112 && align(112) == 112);

// Offset of `field`'s first digit from the start of its header.
static constexpr size_t field_offset(Field field) { return kMagicBytes + kFieldDigits * field; }
static_assert(field_offset(kNameSize) == 94);

// True when `header` starts with the newc magic (it must have 6 bytes).
// Spelled out, not a loop: GCC does not unroll the loop at -O2, and the
// kernel's copy compared the six characters one by one.
static constexpr bool has_magic(const char* header) {
  if (header[0] != kMagic[0] || header[1] != kMagic[1] || header[2] != kMagic[2] ||
      header[3] != kMagic[3] || header[4] != kMagic[4] || header[5] != kMagic[5])
    return false;
  return true;
}
static_assert(has_magic("070701") && !has_magic("070702") && kMagicBytes == 6);

// Reads the eight hex digits at `text` into *value; false (and *value left
// alone) on any other character. Not inlined: constexpr implies inline, and
// GCC then copies the loop into each of the kernel's three calls (96 more
// bytes of kernel text, every later kernel PC moved).
[[gnu::noinline]] static constexpr bool parse_hex_field(const char* text, uint32_t* value) {
  uint32_t v = 0;
  for (size_t i = 0; i < kFieldDigits; ++i) {
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

// `field` of the header at `header`; false if its digits are not hex.
static constexpr bool read_field(const char* header, Field field, uint32_t* value) {
  return parse_hex_field(header + field_offset(field), value);
}

namespace detail {
static constexpr uint32_t parsed(const char* text) {
  uint32_t value = 0xdead;
  return parse_hex_field(text, &value) ? value : 0xdead;
}
}  // namespace detail
static_assert(detail::parsed("000081ED") == 0100755 && detail::parsed("0000abcd") == 0xabcd);
static_assert(detail::parsed("0000001G") == 0xdead);

}  // namespace dcpi::newc
