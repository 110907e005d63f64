#include "profiledb/image_catalog.h"

#include <algorithm>
#include <map>
#include <utility>

#include "profiledb/container.h"
#include "profiledb/profile_db.h"
#include "profiledb/tab_text.h"

namespace dcpi {
namespace {

bool is_hex(std::string_view text) {
  return text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

bool recordable(const RecordedImage& image) {
  for (const std::string* text : {&image.build_id, &image.guest_path, &image.host_path})
    if (text->find_first_of("\t\n") != std::string::npos) return false;
  return !image.guest_path.empty() && is_hex(image.build_id);
}

std::string encode_image_catalog(const std::vector<RecordedImage>& images) {
  std::vector<RecordedImage> sorted = images;
  std::sort(sorted.begin(), sorted.end());
  std::string text = std::string(kImageCatalogMagicLine) + '\n';
  for (const RecordedImage& image : sorted) {
    if (!recordable(image)) continue;
    text += "image\t" + image.build_id + '\t' + image.guest_path + '\t' + image.host_path + '\n';
  }
  return with_crc_line(text);
}

std::vector<RecordedImage> decode_image_catalog(std::string_view text, const std::string& path) {
  const size_t crc_line = checked_crc_body(text, path, "image catalog").size();
  const std::string magic = std::string(kImageCatalogMagicLine) + '\n';
  if (!text.starts_with(magic))
    throw ProfileFormatError(path, 0, "not an image catalog (or unsupported version)");
  std::vector<RecordedImage> images;
  for (size_t position = magic.size(); position < crc_line;) {
    const size_t end = text.find('\n', position);
    const std::vector<std::string_view> fields = split_tabs(text.substr(position, end - position));
    RecordedImage image;
    if (fields.size() == 4 && fields[0] == "image")
      image = {std::string(fields[1]), std::string(fields[2]), std::string(fields[3])};
    if (!recordable(image)) throw ProfileFormatError(path, position, "malformed image line");
    images.push_back(std::move(image));
    position = end + 1;
  }
  return images;
}

std::vector<RecordedImage> read_image_catalog(const std::filesystem::path& database) {
  return read_image_catalog_file(database / kImageCatalogName);
}

std::vector<RecordedImage> read_image_catalog_file(const std::filesystem::path& file) {
  if (!std::filesystem::exists(std::filesystem::symlink_status(file))) return {};
  const std::vector<uint8_t> bytes =
      profiledb::read_file_bytes(file, SIZE_MAX, profiledb::kMaxTextFileBytes);
  return decode_image_catalog(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), file.string());
}

std::vector<RecordedImage> merge_image_catalogs(std::vector<RecordedImage> base,
                                                const std::vector<RecordedImage>& added) {
  std::map<std::pair<std::string, std::string>, RecordedImage> by_identity;
  for (RecordedImage& image : base) by_identity[{image.build_id, image.guest_path}] = image;
  for (const RecordedImage& image : added) {
    if (!recordable(image)) continue;
    RecordedImage& entry = by_identity[{image.build_id, image.guest_path}];
    if (entry.guest_path.empty() || !image.host_path.empty()) entry = image;  // keep a known file
  }
  std::vector<RecordedImage> merged;
  for (auto& [identity, image] : by_identity) merged.push_back(std::move(image));
  return merged;
}

}  // namespace dcpi
