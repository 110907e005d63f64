#include "symbols/image_resolver.h"

#include <fstream>
#include <set>

#include "symbols/build_id_cache.h"

namespace dcpi {
namespace fs = std::filesystem;
namespace {

bool is_elf_file(const fs::path& file) {
  std::error_code error;
  if (!fs::is_regular_file(file, error)) return false;
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' &&
         magic[3] == 'F';
}

// Every regular file below `root` (depth-limited, symlinked directories not followed).
template <typename Visit>
void walk(const fs::path& root, Visit visit) {
  std::error_code error;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it.depth() >= kSearchDepth) it.disable_recursion_pending();
    std::error_code status_error;
    if (it->is_regular_file(status_error)) visit(it->path());
  }
}

std::string describe_build_id(const std::string& build_id) {
  return build_id.empty() ? "none" : build_id;
}

// The files tried for one image, and the best that matched: the first with
// DWARF line tables, else the first with the right build-id.
class BestMatch {
 public:
  explicit BestMatch(std::string build_id) : build_id_(std::move(build_id)) {}
  // True once a file with line tables matched: the search can stop.
  bool consider(const fs::path& file) {
    std::error_code error;
    const fs::path canonical = fs::weakly_canonical(file, error);
    if (!tried_.insert(error ? file : canonical).second || !is_elf_file(file)) return false;
    try {
      auto elf = std::make_shared<const ElfImage>(ElfImage::open(file.string()));
      const std::string found_id = elf->build_id().value_or("");
      if (!build_id_.empty() && found_id != build_id_) {
        if (mismatch.empty())
          mismatch = file.string() + " has build-id " + describe_build_id(found_id) +
                     ", the profile has " + build_id_;
        return false;
      }
      if (!best || (!best->has_line_info() && elf->has_line_info())) best = std::move(elf);
      return best->has_line_info();
    } catch (const ElfError& failed) {
      if (failure.empty()) failure = failed.what();
      return false;
    }
  }
  bool consider_all(const std::vector<fs::path>& files) {
    for (const fs::path& file : files)
      if (consider(file)) return true;
    return false;
  }

  std::shared_ptr<const ElfImage> best;
  std::string mismatch, failure;

 private:
  std::string build_id_;
  std::set<fs::path> tried_;
};

}  // namespace

std::string image_display_name(const ImageIdentity& image) {
  if (image.unknown) return "[unknown]";
  const std::string name = fs::path(image.path).filename().string();
  return name.empty() ? image.path : name;
}

ImageResolver::ImageResolver(std::vector<fs::path> search_path)
    : search_path_(std::move(search_path)) {}

ImageResolver ImageResolver::from_sources(ImageSources sources) {
  ImageResolver resolver(std::move(sources.search_path));
  resolver.recorded_ = std::move(sources.recorded);
  resolver.use_cache_ = sources.build_id_cache;
  return resolver;
}

std::vector<fs::path> ImageResolver::parse_search_path(const std::string& text) {
  std::vector<fs::path> directories;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(':', begin), text.size());
    if (end > begin) directories.emplace_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return directories;
}

std::vector<fs::path> ImageResolver::candidates_by_name(const std::string& guest_path) const {
  std::vector<fs::path> candidates;
  std::set<fs::path> seen;
  auto add = [&](const fs::path& file) {
    if (is_elf_file(file) && seen.insert(fs::weakly_canonical(file)).second)
      candidates.push_back(file);
  };
  const fs::path relative = fs::path(guest_path).relative_path();
  const std::string base = relative.filename().string();
  if (base.empty()) return candidates;
  for (const fs::path& directory : search_path_) {
    add(directory / relative);
    add(directory / base);
    add(directory / (base + ".elf"));
  }
  for (const fs::path& directory : search_path_)
    walk(directory, [&](const fs::path& file) {
      const std::string name = file.filename().string();
      if (name == base || name == base + ".elf") add(file);
    });
  return candidates;
}

std::vector<fs::path> ImageResolver::recorded_candidates(const ImageIdentity& image) const {
  std::vector<fs::path> files;
  for (const RecordedImage& recorded : recorded_) {
    const bool same = image.build_id.empty()
                          ? recorded.build_id.empty() && recorded.guest_path == image.path
                          : recorded.build_id == image.build_id;
    if (same && !recorded.host_path.empty()) files.emplace_back(recorded.host_path);
  }
  if (use_cache_)
    if (const auto cached = cached_image_path(image.build_id)) files.push_back(*cached);
  return files;
}

const std::vector<fs::path>& ImageResolver::files_with_build_id(const std::string& build_id) {
  if (!build_id_index_ready_) {
    build_id_index_ready_ = true;
    for (const fs::path& directory : search_path_)
      walk(directory, [&](const fs::path& file) {
        if (!is_elf_file(file)) return;
        try {
          const ElfSymbols symbols = ElfSymbols::open(file.string(), true);
          if (symbols.build_id()) build_id_index_[*symbols.build_id()].push_back(file);
        } catch (const ElfError&) {  // not every ELF in a build tree is readable; skip it
        }
      });
  }
  return build_id_index_[build_id];
}

std::string ImageResolver::no_file_warning() const {
  if (search_path_.empty() && recorded_.empty())
    return "no --images directories given and the database records no image files "
           "(written before dcpi run recorded them); showing addresses only";
  std::string where = search_path_.empty() ? "" : "--images, ";
  if (!recorded_.empty()) where += "the database's image catalog, ";
  return "no ELF file found in " + where + "or the build-id cache; showing addresses only";
}

const ResolvedImage& ImageResolver::resolve(const ImageIdentity& image) {
  if (const auto known = resolved_.find(image); known != resolved_.end()) return known->second;
  ResolvedImage& result = resolved_[image];
  if (image.unknown) return result;  // raw PCs: nothing to look up, nothing to warn about
  BestMatch match(image.build_id);
  if (!match.consider_all(candidates_by_name(image.path)) &&
      !match.consider_all(recorded_candidates(image)) && !image.build_id.empty())
    match.consider_all(files_with_build_id(image.build_id));
  if (match.best) {
    result.elf = std::move(match.best);
    return result;
  }
  const std::string subject = "image " + image.path + ": ";
  if (!match.mismatch.empty())
    result.warning = subject + "build-id mismatch (" + match.mismatch + "); showing addresses only";
  else if (!match.failure.empty())
    result.warning = subject + match.failure + "; showing addresses only";
  else
    result.warning = subject + no_file_warning();
  return result;
}

}  // namespace dcpi
