// Finds the ELF file behind a profile's image identity (DCPI §4.3.2: images
// are identified by a unique id — here the GNU build-id — plus the path the
// guest loaded them from). The user names the directories to search
// (`--images DIR[:DIR...]`, e.g. build/guest and the workloads' directory).
//
// Search order for guest path P (e.g. "/bin/copy") in each directory D:
// D/P, D/basename(P), D/basename(P).elf, then any file of that name (or
// name.elf) up to kSearchDepth levels below D; finally, if the profile has a
// build-id, any ELF below D carrying that build-id. A file whose build-id
// differs from the profile's is never used for names: the report warns and
// falls back to addresses (symbols of another build would be lies).
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/symbols/elf_image.h"
#include "hostdump/profiledb/profile_db.h"

namespace dcpi {

inline constexpr int kSearchDepth = 4;

struct ResolvedImage {
  std::shared_ptr<const ElfImage> elf;  // null: addresses only
  std::string warning;                  // why there is no ELF, or a mismatch; empty if fine
};

class ImageResolver {
 public:
  explicit ImageResolver(std::vector<std::filesystem::path> search_path);
  // Parses "DIR:DIR:..." (empty entries are ignored).
  static std::vector<std::filesystem::path> parse_search_path(const std::string& text);

  // Memoized per identity; never throws for a bad or missing file.
  const ResolvedImage& resolve(const ImageIdentity& image);

 private:
  std::vector<std::filesystem::path> candidates_by_name(const std::string& guest_path) const;
  std::shared_ptr<const ElfImage> find_by_build_id(const std::string& build_id);

  std::vector<std::filesystem::path> search_path_;
  std::map<ImageIdentity, ResolvedImage> resolved_;
  std::map<std::string, std::filesystem::path> build_id_index_;  // filled on first need
  bool build_id_index_ready_ = false;
};

// "copy" for "/bin/copy"; "[unknown]" stays as it is.
std::string image_display_name(const ImageIdentity& image);

}  // namespace dcpi
