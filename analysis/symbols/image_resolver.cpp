#include "analysis/symbols/image_resolver.h"

#include <fstream>
#include <set>

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

}  // namespace

std::string image_display_name(const ImageIdentity& image) {
  if (image.unknown) return "[unknown]";
  const std::string name = fs::path(image.path).filename().string();
  return name.empty() ? image.path : name;
}

ImageResolver::ImageResolver(std::vector<fs::path> search_path)
    : search_path_(std::move(search_path)) {}

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

std::shared_ptr<const ElfImage> ImageResolver::find_by_build_id(const std::string& build_id) {
  if (!build_id_index_ready_) {
    build_id_index_ready_ = true;
    for (const fs::path& directory : search_path_)
      walk(directory, [&](const fs::path& file) {
        if (!is_elf_file(file)) return;
        try {
          const ElfSymbols symbols = ElfSymbols::open(file.string(), true);
          if (symbols.build_id()) build_id_index_.emplace(*symbols.build_id(), file);
        } catch (const ElfError&) {  // not every ELF in a build tree is readable; skip it
        }
      });
  }
  const auto found = build_id_index_.find(build_id);
  if (found == build_id_index_.end()) return nullptr;
  try {
    return std::make_shared<const ElfImage>(ElfImage::open(found->second.string()));
  } catch (const ElfError&) {
    return nullptr;
  }
}

const ResolvedImage& ImageResolver::resolve(const ImageIdentity& image) {
  if (const auto known = resolved_.find(image); known != resolved_.end()) return known->second;
  ResolvedImage& result = resolved_[image];
  if (image.unknown) return result;  // raw PCs: nothing to look up, nothing to warn about
  std::string mismatch, failure;
  for (const fs::path& candidate : candidates_by_name(image.path)) {
    try {
      auto elf = std::make_shared<const ElfImage>(ElfImage::open(candidate.string()));
      const std::string found_id = elf->build_id().value_or("");
      if (image.build_id.empty() || found_id == image.build_id) {
        result.elf = std::move(elf);
        return result;
      }
      if (mismatch.empty())
        mismatch = candidate.string() + " has build-id " + describe_build_id(found_id) +
                   ", the profile has " + image.build_id;
    } catch (const ElfError& error) {
      if (failure.empty()) failure = error.what();
    }
  }
  if (!image.build_id.empty()) {
    if (auto elf = find_by_build_id(image.build_id)) {
      result.elf = std::move(elf);
      return result;
    }
  }
  const std::string subject = "image " + image.path + ": ";
  if (!mismatch.empty())
    result.warning = subject + "build-id mismatch (" + mismatch + "); showing addresses only";
  else if (!failure.empty())
    result.warning = subject + failure + "; showing addresses only";
  else if (search_path_.empty())
    result.warning = subject + "no --images directories given; showing addresses only";
  else
    result.warning = subject + "no ELF file found in --images; showing addresses only";
  return result;
}

}  // namespace dcpi
