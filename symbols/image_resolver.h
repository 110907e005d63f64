// Finds the ELF file behind a profile's image identity (DCPI §4.3.2: images
// are identified by a unique id — here the GNU build-id — plus the path the
// guest loaded them from).
//
// Where it looks, in order: the `--images DIR[:DIR...]` directories (an
// override: for guest path P in each directory D, D/P, D/basename(P),
// D/basename(P).elf, then any file of that name or name.elf up to
// kSearchDepth levels below D); the host paths the database's image catalog
// recorded at `dcpi run` (profiledb/image_catalog.h); the build-id
// cache (build_id_cache.h); finally, if the profile has a build-id, any ELF
// below the --images directories carrying it. Of the files whose build-id
// matches, the first with DWARF line tables wins, else the first (the initrd
// carries stripped copies of the same build: `dcpi list` wants the one with
// source lines). A file whose build-id differs from the profile's is never
// used for names: the report warns and falls back to addresses (symbols of
// another build would be lies).
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "profiledb/image_catalog.h"
#include "profiledb/profile_db.h"
#include "symbols/elf_image.h"

namespace dcpi {

inline constexpr int kSearchDepth = 4;

struct ResolvedImage {
  std::shared_ptr<const ElfImage> elf;  // null: addresses only
  std::string warning;                  // why there is no ELF, or a mismatch; empty if fine
};

// Where a resolver looks besides --images.
struct ImageSources {
  std::vector<std::filesystem::path> search_path;  // --images
  std::vector<RecordedImage> recorded;             // the databases' image catalogs
  bool build_id_cache = true;                      // look in build_id_cache_directory()
};

class ImageResolver {
 public:
  // --images only (no catalog, no cache): what the unit tests pin down.
  explicit ImageResolver(std::vector<std::filesystem::path> search_path);
  // --images, then the catalogs and the cache (what the report commands use).
  static ImageResolver from_sources(ImageSources sources);
  // Parses "DIR:DIR:..." (empty entries are ignored).
  static std::vector<std::filesystem::path> parse_search_path(const std::string& text);

  // Memoized per identity; never throws for a bad or missing file.
  const ResolvedImage& resolve(const ImageIdentity& image);

 private:
  std::vector<std::filesystem::path> candidates_by_name(const std::string& guest_path) const;
  std::vector<std::filesystem::path> recorded_candidates(const ImageIdentity& image) const;
  const std::vector<std::filesystem::path>& files_with_build_id(const std::string& build_id);
  std::string no_file_warning() const;

  std::vector<std::filesystem::path> search_path_;
  std::vector<RecordedImage> recorded_;
  bool use_cache_ = false;
  std::map<ImageIdentity, ResolvedImage> resolved_;
  std::map<std::string, std::vector<std::filesystem::path>> build_id_index_;  // on first need
  bool build_id_index_ready_ = false;
};

// "copy" for "/bin/copy"; "[unknown]" stays as it is.
std::string image_display_name(const ImageIdentity& image);

}  // namespace dcpi
