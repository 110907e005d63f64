#include "profiledb/image_table.h"

#include "profiledb/container.h"
#include "profiledb/profile_db.h"

namespace dcpi::profiledb {

std::vector<ContextImage> decode_image_table(std::span<const uint8_t> bytes, size_t begin,
                                             size_t end, uint32_t count, const std::string& path) {
  std::vector<ContextImage> images;
  size_t at = begin;
  for (uint32_t i = 0; i < count; ++i) {
    if (end - at < 4) throw ProfileFormatError(path, at, "image table truncated");
    const size_t lengths[2] = {load_record<uint16_t>(bytes, at),
                               load_record<uint16_t>(bytes, at + 2)};
    if (end - at - 4 < lengths[0] + lengths[1])
      throw ProfileFormatError(path, at, "image strings truncated");
    const char* text = reinterpret_cast<const char*>(bytes.data() + at + 4);
    ContextImage image{std::string(text, lengths[0]), std::string(text + lengths[0], lengths[1])};
    if (!is_lower_hex(image.build_id))
      throw ProfileFormatError(path, at + 4, "image build-id is not lower-case hex");
    images.push_back(std::move(image));
    at += 4 + lengths[0] + lengths[1];
  }
  if (at != end) throw ProfileFormatError(path, at, "bytes after the image table");
  return images;
}

std::vector<uint8_t> encode_image_table(const std::vector<ContextImage>& images) {
  std::vector<uint8_t> strings;
  for (const ContextImage& image : images) {
    const uint16_t lengths[2] = {static_cast<uint16_t>(image.build_id.size()),
                                 static_cast<uint16_t>(image.path.size())};
    append_bytes(strings, lengths, sizeof lengths);
    append_bytes(strings, image.build_id.data(), image.build_id.size());
    append_bytes(strings, image.path.data(), image.path.size());
  }
  return strings;
}

}  // namespace dcpi::profiledb
