// The image table the exact-context, path and chain files share
// (docs/profile-db.md, "Calling contexts"): after each file's fixed header,
// per image a u16 build-id length, a u16 path length, the lower-case hex
// build-id and the path. One reader and one writer for all three, and the
// fixed-record load they all use.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace dcpi::profiledb {

struct ContextImage {
  std::string build_id;  // lower-case hex, may be empty
  std::string path;
};

// The fixed record of type T at `offset` (the caller has checked the
// bounds); `size` shorter than T reads an older, shorter record and leaves
// the newer fields 0.
template <typename T>
T load_record(std::span<const uint8_t> bytes, size_t offset, size_t size = sizeof(T)) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, size);
  return value;
}

// `count` images in [begin, end), which they must fill exactly; any problem
// is a ProfileFormatError naming `path` and the offset.
std::vector<ContextImage> decode_image_table(std::span<const uint8_t> bytes, size_t begin,
                                             size_t end, uint32_t count, const std::string& path);
std::vector<uint8_t> encode_image_table(const std::vector<ContextImage>& images);

}  // namespace dcpi::profiledb
