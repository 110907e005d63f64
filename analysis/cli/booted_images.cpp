#include "analysis/cli/booted_images.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include "analysis/symbols/build_id_cache.h"
#include "analysis/symbols/elf_image.h"

namespace dcpi {
namespace fs = std::filesystem;
namespace {

constexpr size_t kCpioHeaderBytes = 110;  // "070701" and 13 fields of 8 hex digits

size_t align4(size_t n) { return (n + 3) & ~size_t{3}; }

uint64_t cpio_field(const std::string& bytes, size_t header, int index) {
  const std::string hex = bytes.substr(header + 6 + 8 * static_cast<size_t>(index), 8);
  if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
    throw std::runtime_error("malformed cpio header field");
  return std::stoull(hex, nullptr, 16);
}

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

void add_initrd(BootedImages& booted, const std::string& initrd) {
  const fs::path directory = fs::path(initrd).parent_path();
  ScratchDirectory scratch;
  for (const CpioMember& member : read_cpio_members(initrd)) {
    if (!member.data.starts_with("\x7f"
                                 "ELF"))
      continue;
    const std::string name = fs::path(member.name).filename().string();
    const fs::path extracted = scratch.path() / name;
    std::ofstream(extracted, std::ios::binary) << member.data;
    const std::optional<ImageFile> info = inspect(extracted);
    if (!info) {
      booted.warnings.push_back("cannot read " + member.name + " of " + initrd);
      continue;
    }
    std::string guest = member.name.starts_with("./") ? member.name.substr(1) : member.name;
    if (!guest.starts_with("/")) guest = "/" + guest;
    const std::optional<fs::path> twin = debug_twin(directory, name, *info);
    booted.images.push_back({info->build_id, guest, twin ? twin->string() : ""});
    cache(booted, twin ? *twin : extracted, twin ? *inspect(*twin) : *info);
  }
}

}  // namespace

std::vector<CpioMember> read_cpio_members(const std::string& archive) {
  std::ifstream in(archive, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + archive);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<CpioMember> members;
  for (size_t at = 0;;) {
    if (at + kCpioHeaderBytes > bytes.size() || bytes.compare(at, 6, "070701") != 0)
      throw std::runtime_error(archive + ": not a newc cpio archive (or truncated)");
    const uint64_t mode = cpio_field(bytes, at, 1), size = cpio_field(bytes, at, 6),
                   name_bytes = cpio_field(bytes, at, 11);
    if (name_bytes == 0 || at + kCpioHeaderBytes + name_bytes > bytes.size())
      throw std::runtime_error(archive + ": malformed cpio member name");
    const std::string name = bytes.substr(at + kCpioHeaderBytes, name_bytes - 1);
    const size_t data = align4(at + kCpioHeaderBytes + name_bytes);
    if (name == "TRAILER!!!") return members;
    if (data + size > bytes.size()) throw std::runtime_error(archive + ": truncated cpio member");
    if ((mode & 0170000) == 0100000) members.push_back({name, bytes.substr(data, size)});
    at = align4(data + size);
  }
}

BootedImages collect_booted_images(const std::string& palcode, const std::string& kernel,
                                   const std::string& initrd) {
  BootedImages booted;
  add_host_file(booted, palcode, "palcode.elf");
  add_host_file(booted, kernel, "kernel.elf");
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
