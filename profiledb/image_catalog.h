// Where the ELF of each image a database profiles lives on the host
// (DIR/IMAGES, docs/profile-db.md). DCPI §4.3.2 identifies an image by a
// unique id (here the GNU build-id) plus its path; the reports need the file
// itself to name procedures. `dcpi run` knows every image it booted (PALcode,
// kernel, each initrd program) and records them here, so reports resolve
// symbols without `--images`. Database-wide rather than per epoch: a build-id
// names the same bytes in every epoch, and one catalog merges by union.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dcpi {

struct RecordedImage {
  std::string build_id;    // lower-case hex; empty if the image has none
  std::string guest_path;  // as the load map names it: "kernel.elf", "/bin/copy"
  std::string host_path;   // absolute path of the ELF dcpi run found (with debug info if any)
  auto operator<=>(const RecordedImage&) const = default;
};

inline constexpr const char* kImageCatalogName = "IMAGES";
inline constexpr const char* kImageCatalogMagicLine = "dcpi-images 1";

// Text: the magic line, one "image\tBUILD_ID\tGUEST_PATH\tHOST_PATH" line per
// image (sorted, one per (build-id, guest path)), "crc32c XXXXXXXX" over the
// preceding bytes. Paths holding a tab or a newline are not recordable.
std::string encode_image_catalog(const std::vector<RecordedImage>& images);
// Throws ProfileFormatError naming `path`.
std::vector<RecordedImage> decode_image_catalog(std::string_view text, const std::string& path);

// DIR/IMAGES, or nothing for a database written before the catalog existed.
// Throws ProfileFormatError if the file is damaged.
std::vector<RecordedImage> read_image_catalog(const std::filesystem::path& database);
// The same for one catalog file (empty if it does not exist).
std::vector<RecordedImage> read_image_catalog_file(const std::filesystem::path& file);

// `base` plus `added`: one entry per (build-id, guest path), an added host
// path replacing an older one (the newest copy of those bytes), an added
// empty one never replacing a known file.
std::vector<RecordedImage> merge_image_catalogs(std::vector<RecordedImage> base,
                                                const std::vector<RecordedImage>& added);

// True if the entry can be written (no tab or newline in its strings).
bool recordable(const RecordedImage& image);

}  // namespace dcpi
