#include "hostdump/run/booted_images.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include "qemu/bundle/cpio_archive.h"
#include "symbols/build_id_cache.h"
#include "symbols/elf_image.h"

namespace dcpi {
namespace fs = std::filesystem;
namespace {

struct ImageFile {
  std::string build_id;  // empty if none
  bool debug = false;    // DWARF line tables
};

std::optional<ImageFile> inspect(const fs::path& file) {
  try {
    const ElfImage elf = ElfImage::open(file.string());
    return ImageFile{elf.build_id().value_or(""), elf.has_line_info()};
  } catch (const ElfError&) {
    return std::nullopt;
  }
}

// Puts `file` in the build-id cache unless a copy at least as good is there.
void cache(BootedImages& booted, const fs::path& file, const ImageFile& info) {
  if (info.build_id.empty()) return;
  const std::optional<fs::path> cached = cached_image_path(info.build_id);
  std::error_code error;
  bool replace = false;
  if (cached && fs::exists(*cached, error)) {
    const std::optional<ImageFile> old = inspect(*cached);
    if (old && old->build_id == info.build_id && (old->debug || !info.debug)) return;
    replace = true;  // damaged, or stripped while this one has debug info
  }
  if (std::string failure = store_in_build_id_cache(file, info.build_id, replace); !failure.empty())
    booted.warnings.push_back(std::move(failure));
}

void add_host_file(BootedImages& booted, const std::string& file, const std::string& guest_path) {
  const std::optional<ImageFile> info = inspect(file);
  if (!info) {
    booted.warnings.push_back("cannot read " + file + " to record it");
    return;
  }
  booted.images.push_back({info->build_id, guest_path, fs::absolute(file).lexically_normal()});
  cache(booted, file, *info);
}

// The unstripped twin of an initrd program: the build keeps it beside the
// initrd under the program's name (workloads/CMakeLists.txt).
std::optional<fs::path> debug_twin(const fs::path& directory, const std::string& name,
                                   const ImageFile& member) {
  for (const std::string& candidate : {name, name + ".elf"}) {
    const fs::path file = directory / candidate;
    const std::optional<ImageFile> twin = inspect(file);
    if (twin && twin->build_id == member.build_id && !member.build_id.empty() && twin->debug)
      return fs::absolute(file).lexically_normal();
  }
  return std::nullopt;
}

// A scratch directory removed with its contents on every path out.
class ScratchDirectory {
 public:
  ScratchDirectory()
      : path_(fs::temp_directory_path() / ("dcpi-initrd-" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_archive(const std::string& initrd) {
  std::ifstream in(initrd, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + initrd);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool recorded(const BootedImages& booted, const std::string& guest) {
  for (const RecordedImage& image : booted.images)
    if (image.guest_path == guest) return true;
  return false;
}

void add_initrd(BootedImages& booted, const std::string& initrd) {
  const fs::path directory = fs::path(initrd).parent_path();
  ScratchDirectory scratch;
  for (const qemu::CpioEntry& member : qemu::read_cpio(read_archive(initrd))) {
    if ((member.mode & qemu::kCpioTypeMask) != qemu::kCpioRegular ||
        !member.data.starts_with("\x7f"
                                 "ELF") ||
        recorded(booted, "/" + member.name))
      continue;
    const std::string name = fs::path(member.name).filename().string();
    const fs::path extracted = scratch.path() / name;
    std::ofstream(extracted, std::ios::binary) << member.data;
    const std::optional<ImageFile> info = inspect(extracted);
    if (!info) {
      booted.warnings.push_back("cannot read " + member.name + " of " + initrd);
      continue;
    }
    const std::string guest = "/" + member.name;  // read_cpio strips "./" and "/"
    const std::optional<fs::path> twin = debug_twin(directory, name, *info);
    booted.images.push_back({info->build_id, guest, twin ? twin->string() : ""});
    cache(booted, twin ? *twin : extracted, twin ? *inspect(*twin) : *info);
  }
}

}  // namespace

BootedImages collect_booted_images(const std::string& palcode, const std::string& kernel,
                                   const std::string& initrd,
                                   const std::vector<std::pair<std::string, std::string>>& known) {
  BootedImages booted;
  add_host_file(booted, palcode, "palcode.elf");
  add_host_file(booted, kernel, "kernel.elf");
  for (const auto& [host, guest] : known) add_host_file(booted, host, guest);
  if (!initrd.empty()) {
    try {
      add_initrd(booted, initrd);
    } catch (const std::exception& error) {
      booted.warnings.push_back(std::string("initrd not recorded: ") + error.what());
    }
  }
  return booted;
}

}  // namespace dcpi
