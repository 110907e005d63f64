#include "hostdump/run/program_run.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <ostream>
#include <regex>
#include <stdexcept>

#include "qemu/bundle/program_bundle.h"

namespace dcpi {

std::unique_ptr<BundledInitrd> BundledInitrd::for_programs(const ProgramCommand& command,
                                                           const std::filesystem::path& base_initrd,
                                                           uint32_t memory_mb,
                                                           const std::filesystem::path& shell) {
  qemu::ProgramRequest request;
  request.guest_memory_bytes = uint64_t{memory_mb} << 20;
  request.shell = shell;
  for (const auto& argv : command.programs)
    request.programs.push_back({argv.front(), {argv.begin() + 1, argv.end()}});
  request.files = command.files;
  request.environment = command.environment;
  request.base_initrd = base_initrd;
  request.library_path.insert(request.library_path.begin(), command.lib_paths.begin(),
                              command.lib_paths.end());
  return std::make_unique<BundledInitrd>(qemu::bundle_program(request));
}

std::unique_ptr<BundledInitrd> BundledInitrd::for_mix(const std::filesystem::path& build,
                                                      const std::string& mix,
                                                      const std::filesystem::path& base_initrd,
                                                      uint32_t memory_mb) {
  const std::filesystem::path root = build / "mixes" / mix;
  std::error_code error;
  if (std::filesystem::is_symlink(root, error) && !std::filesystem::exists(root, error))
    // Configured, not built: the first ./run.sh skips it (issue 31).
    throw std::runtime_error("the " + mix + " mix is not built yet: cmake --build " +
                             build.string() + " --target real-programs (about 6 minutes the " +
                             "first time; ./test.sh builds it too)");
  if (!std::filesystem::is_directory(root / "bin")) return nullptr;
  qemu::ProgramRequest request;
  request.guest_memory_bytes = uint64_t{memory_mb} << 20;
  request.base_initrd = base_initrd;
  request.library_path.insert(request.library_path.begin(), root / "lib");
  std::vector<std::filesystem::path> programs;
  for (const auto& entry : std::filesystem::directory_iterator(root / "bin"))
    programs.push_back(entry.path());
  std::sort(programs.begin(), programs.end());
  for (const auto& program : programs) request.programs.push_back({program, {}});
  request.shell = shell_for_build(build);
  if (std::filesystem::is_directory(root / "etc"))
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "etc"))
      if (entry.is_regular_file())
        request.files.push_back(entry.path().string() + ":/" +
                                std::filesystem::relative(entry.path(), root).string());
  std::sort(request.files.begin(), request.files.end());
  // The programs, their loader and libraries (each once) and the data go in
  // as for -- PROGRAM; init runs the mix's own script, not the generated one.
  qemu::ProgramBundle bundle = qemu::bundle_program(request);
  bundle.script = "/etc/" + mix + ".mix";
  bundle.guest_programs.clear();
  return std::make_unique<BundledInitrd>(bundle);
}

BundledInitrd::BundledInitrd(const qemu::ProgramBundle& bundle)
    : path_(std::filesystem::temp_directory_path() /
            ("dcpi-run-" + std::to_string(getpid()) + "-initrd.cpio")),
      script_(bundle.script),
      guest_programs_(bundle.guest_programs),
      argument_files_(bundle.argument_files) {
  for (const qemu::BundledImage& image : bundle.images)
    images_.emplace_back(image.host.string(), image.guest);
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out.write(bundle.archive.data(), static_cast<std::streamsize>(bundle.archive.size()));
  if (!out.flush()) throw std::runtime_error("cannot write the program's initrd " + path_.string());
}

BundledInitrd::~BundledInitrd() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

void BundledInitrd::apply_to(RunRequest& request) const {
  request.machine.initrd = path_.string();
  request.script = script_;
  for (const auto& image : images_) request.known_images.push_back(image);
}

std::filesystem::path shell_for_build(const std::filesystem::path& build) {
  const std::filesystem::path dash = build / "mixes" / "real" / "bin" / "dash";
  std::error_code error;
  return std::filesystem::is_regular_file(dash, error) ? dash : std::filesystem::path{};
}

namespace {

std::string regex_escaped(const std::string& text) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(text, special, R"(\$&)");
}

int one_exit_status(const std::string& console, const std::string& guest_program,
                    std::ostream& report) {
  const std::string name = std::filesystem::path(guest_program).filename().string();
  // init: NAME pid N exit S | init: NAME pid N signal S | init: /bin/NAME spawn failed: WHY
  const std::regex ended("init: " + regex_escaped(name) + " pid [0-9]+ (exit|signal) ([0-9]+)");
  const std::regex failed("init: " + regex_escaped(guest_program) + " spawn failed: ([^\n]*)");
  std::smatch match;
  if (std::regex_search(console, match, ended)) {
    const int value = std::stoi(match[2]);
    if (match[1] == "exit") {
      if (value != 0)
        report << "dcpi run: " << guest_program << " exited with status " << value << '\n';
      return value;
    }
    report << "dcpi run: " << guest_program << " was killed by signal " << value << '\n';
    return 128 + value;
  }
  if (std::regex_search(console, match, failed))
    report << "dcpi run: " << guest_program << " could not start: " << match[1] << '\n';
  else
    report << "dcpi run: " << guest_program << " did not run (no exit line from init)\n";
  return 1;
}

}  // namespace

int programs_exit_status(const std::string& console, const std::vector<std::string>& guest_programs,
                         std::ostream& report) {
  int status = 0;
  for (const std::string& program : guest_programs) {
    const int one = one_exit_status(console, program, report);
    if (status == 0) status = one;
  }
  return status;
}

}  // namespace dcpi
