// A cache of image files keyed by GNU build-id, like perf's ~/.debug:
// `dcpi run` copies every image it boots there, so reports still name
// procedures after build/ is rebuilt or removed (a rebuild gives new
// build-ids; the old bytes stay under the old ones).
//
// Location: $DCPI_BUILDID_DIR, else $XDG_CACHE_HOME/dcpi/build-id, else
// ~/.cache/dcpi/build-id; the file of build-id B is <dir>/B/elf. Outside the
// database on purpose: the images are 100-1000x the size of their profiles
// (README, "database size"), and many databases of the same build share one
// copy. A database moved to another machine takes its cache with it by
// copying the directory (or set DCPI_BUILDID_DIR to shared storage).
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace dcpi {

// Empty when no location is known (no HOME and no variable set).
std::filesystem::path build_id_cache_directory();
// <dir>/<build_id>/elf, or nullopt (no directory, or a build-id that is not hex).
std::optional<std::filesystem::path> cached_image_path(const std::string& build_id);

// Copies `elf` in as the file of `build_id` unless one is there already
// (atomically: temporary file, then rename). `replace` overwrites an existing
// copy (a debug copy replacing a stripped one). Returns "" or why it failed.
std::string store_in_build_id_cache(const std::filesystem::path& elf, const std::string& build_id,
                                    bool replace = false);

}  // namespace dcpi
