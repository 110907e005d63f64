// The container framing every binary file of the profile database shares
// (docs/profile-db.md, "Container"): .prof (profile_format.h) and .vals
// (value_file.h) differ only in their fixed header's fields and their body.
//
//   offset 0   magic[8]        "DCPIPROF", "DCPIVALS"
//          8   version u32     per file kind
//         12   header_bytes    fixed part + header strings: where the body begins
//         ..   the kind's other fixed fields, then its strings
//   body       LEB128 varints (and, in .vals, f64 probabilities)
//   trailer    crc32c u32 of every byte before it, then a trailer magic u32
//
// Everything is little-endian (the host is; asserted below). Decoding never
// trusts a length it has not checked against the buffer: every problem is a
// ProfileFormatError naming the file and the offset.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiledb/profile_db.h"

namespace dcpi::profiledb {

static_assert(std::endian::native == std::endian::little, "database files are little-endian");

inline constexpr size_t kTrailerBytes = 8;       // crc32c + trailer magic
inline constexpr size_t kMaxVarintBytes = 10;    // 64 bits in 7-bit groups
inline constexpr size_t kMaxStringBytes = 4096;  // longest header string a writer accepts

// One kind of container file: what tells it apart and names it in errors.
struct ContainerKind {
  const char* noun;        // "profile", "value": names the kind in errors
  std::string_view magic;  // 8 bytes
  uint32_t version;
  uint32_t trailer_magic;
  uint32_t fixed_header_bytes;
  uint32_t oldest_version = 0;  // the oldest version still read (0: only `version`)
};

// The three fields every fixed header starts with.
struct ContainerPrefix {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;
};
static_assert(sizeof(ContainerPrefix) == 16);

// Writing.
void put_varint(std::vector<uint8_t>& out, uint64_t value);
void append_bytes(std::vector<uint8_t>& out, const void* data, size_t length);
// Fills the prefix of a fixed header (the struct starts with a ContainerPrefix).
ContainerPrefix make_prefix(const ContainerKind& kind, size_t string_bytes);
// Appends the trailer: CRC-32C of `out` so far, then the kind's trailer magic.
void seal(std::vector<uint8_t>& out, const ContainerKind& kind);

// Reading. Checks the size of the fixed header, the magic and the version;
// returns the prefix (the caller then loads its whole fixed header).
ContainerPrefix check_prefix(std::span<const uint8_t> bytes, const std::string& path,
                             const ContainerKind& kind);
// Checks header_bytes = fixed part + the strings the fixed header announces,
// and that they are all in `bytes`.
void check_header_bytes(const ContainerPrefix& prefix, const ContainerKind& kind,
                        uint64_t string_bytes, std::span<const uint8_t> bytes,
                        const std::string& path);
// Checks the trailer magic and the CRC; returns where the body ends.
size_t check_trailer(std::span<const uint8_t> bytes, uint32_t header_bytes, const std::string& path,
                     const ContainerKind& kind);

bool is_lower_hex(std::string_view text);

// Bounds-checked cursor over [position, end) of a file's bytes: every read
// that would run past `end` becomes a ProfileFormatError at the current offset.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, size_t begin, size_t end, const std::string& path)
      : bytes_(bytes), position_(begin), end_(end), path_(path) {}

  size_t position() const { return position_; }
  size_t remaining() const { return end_ - position_; }
  bool done() const { return position_ == end_; }
  [[noreturn]] void fail(size_t offset, const std::string& problem) const;

  uint64_t varint(const char* what);  // canonical LEB128, at most 64 bits
  double f64(const char* what);
  std::string text(size_t length, const char* what);

 private:
  std::span<const uint8_t> bytes_;
  size_t position_;
  size_t end_;
  const std::string& path_;
};

// The largest database file a reader accepts (issue 18: an 8 GiB sparse file
// must fail at once, not after reading it). A profile row takes at least 3
// varint bytes, so 1 GiB is some 300 million rows, far beyond any image the
// guest can map; epoch.meta and FORMAT are text of a few hundred bytes.
inline constexpr uint64_t kMaxContainerBytes = uint64_t{1} << 30;
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{1} << 20;

// The whole file, or its first `limit` bytes (enough for a header and its
// strings). Never blocks (a FIFO is opened non-blocking and refused); throws
// ProfileDatabaseError naming the file if it cannot be read, is not a regular
// file, or is larger than `max_size` (checked only when reading it whole).
std::vector<uint8_t> read_file_bytes(const std::filesystem::path& file, size_t limit = SIZE_MAX,
                                     uint64_t max_size = kMaxContainerBytes);
// "a FIFO", "a directory", ... for a st_mode.
std::string file_type_name(unsigned mode);

}  // namespace dcpi::profiledb
