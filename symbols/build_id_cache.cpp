#include "symbols/build_id_cache.h"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

namespace dcpi {
namespace fs = std::filesystem;

fs::path build_id_cache_directory() {
  if (const char* dir = std::getenv("DCPI_BUILDID_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return fs::path(xdg) / "dcpi" / "build-id";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".cache" / "dcpi" / "build-id";
  return {};
}

std::optional<fs::path> cached_image_path(const std::string& build_id) {
  const fs::path directory = build_id_cache_directory();
  if (directory.empty() || build_id.empty() ||
      build_id.find_first_not_of("0123456789abcdef") != std::string::npos)
    return std::nullopt;
  return directory / build_id / "elf";
}

std::string store_in_build_id_cache(const fs::path& elf, const std::string& build_id,
                                    bool replace) {
  const std::optional<fs::path> target = cached_image_path(build_id);
  if (!target) return "no build-id cache directory (set DCPI_BUILDID_DIR or HOME)";
  std::error_code error;
  if (!replace && fs::exists(*target, error)) return "";
  fs::create_directories(target->parent_path(), error);
  const fs::path temporary = target->parent_path() / (".tmp-elf-" + std::to_string(::getpid()));
  if (!error) fs::copy_file(elf, temporary, fs::copy_options::overwrite_existing, error);
  if (!error) fs::rename(temporary, *target, error);
  if (!error) return "";
  std::error_code ignored;
  fs::remove(temporary, ignored);
  return "cannot store " + elf.string() + " in the build-id cache " + target->string() + ": " +
         error.message();
}

}  // namespace dcpi
