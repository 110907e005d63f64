#include "qemu/bundle/program_bundle.h"

#include <algorithm>
#include <deque>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "qemu/bundle/elf_facts.h"

namespace dcpi::qemu {
namespace {

constexpr uint32_t kExecutableMode = kCpioRegular | 0755;
constexpr uint32_t kDataMode = kCpioRegular | 0644;
constexpr size_t kMaxProgramArguments = 30;  // init passes at most 32 words a line

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void put(std::vector<CpioEntry>& entries, const std::string& guest, uint32_t mode,
         std::string data) {
  const std::string name = guest.substr(guest.find_first_not_of('/'));
  std::erase_if(entries, [&](const CpioEntry& e) { return e.name == name; });
  entries.push_back({name, mode, std::move(data)});
}

std::string search_path_text(const std::vector<std::filesystem::path>& path) {
  std::string text;
  for (const auto& directory : path) text += (text.empty() ? "" : ":") + directory.string();
  return text;
}

std::filesystem::path find_library(const std::string& name, const ProgramRequest& request,
                                   const std::string& needed_by) {
  for (const auto& directory : request.library_path)
    if (std::filesystem::is_regular_file(directory / name)) return directory / name;
  throw std::runtime_error(needed_by + " needs the shared library " + name + ", which is not in " +
                           search_path_text(request.library_path));
}

void check_program(const std::filesystem::path& program, const ElfFacts& facts) {
  const std::string name = program.string();
  const std::string base = program.filename().string();
  if (base == "init" || base.find_first_of(" \t#&") != std::string::npos)
    throw std::runtime_error("the program cannot be called '" + base + "' in the guest");
  if (!facts.alpha) throw std::runtime_error(name + " is not an Alpha ELF (wrong architecture)");
  if (!facts.executable) throw std::runtime_error(name + " is not an executable");
  if (facts.static_glibc_without_ehdr)
    throw std::runtime_error(
        name +
        " is a static glibc program linked with relaxation, which cannot start on any "
        "kernel (ld turned glibc's __ehdr_start into 0, so TLS is never set up and it dies "
        "in __ctype_init): link it dynamically, or statically with -Wl,--no-relax");
}

// The loader, then every DT_NEEDED library, breadth first, each once.
void add_image(std::vector<CpioEntry>& entries, std::vector<BundledImage>& images,
               const std::filesystem::path& host, const std::string& guest) {
  const auto same = std::find_if(images.begin(), images.end(),
                                 [&](const BundledImage& image) { return image.guest == guest; });
  if (same != images.end()) {
    if (same->host == std::filesystem::canonical(host)) return;
    throw std::runtime_error(host.string() + " and " + same->host.string() + " would both be " +
                             guest + " in the guest");
  }
  put(entries, guest, kExecutableMode, read_whole_file(host));
  images.push_back({std::filesystem::canonical(host), guest});
}

void add_dependencies(const ProgramRequest& request, const std::filesystem::path& path,
                      const ElfFacts& program, std::vector<CpioEntry>& entries,
                      std::vector<BundledImage>& images) {
  if (!program.interpreter.empty()) {
    const std::string base = std::filesystem::path(program.interpreter).filename();
    add_image(entries, images, find_library(base, request, path.string() + " (PT_INTERP)"),
              program.interpreter);
  }
  std::deque<std::pair<std::string, std::string>> queue;  // (library, needed by)
  for (const auto& name : program.needed) queue.emplace_back(name, path.string());
  std::set<std::string> seen;
  while (!queue.empty()) {
    const auto [name, needed_by] = queue.front();
    queue.pop_front();
    if (!seen.insert(name).second) continue;
    const auto host = find_library(name, request, needed_by);
    const ElfFacts facts = read_elf_facts(host);
    if (!facts.alpha) throw std::runtime_error(host.string() + " is not an Alpha shared library");
    add_image(entries, images, host, "/lib/" + name);
    for (const auto& next : facts.needed) queue.emplace_back(next, name);
  }
}

void add_data_files(const ProgramRequest& request, std::vector<CpioEntry>& entries) {
  for (const std::string& spec : request.files) {
    const size_t colon = spec.find(':');
    const std::filesystem::path host = spec.substr(0, colon);
    const std::string guest =
        colon == std::string::npos ? "/data/" + host.filename().string() : spec.substr(colon + 1);
    if (guest.empty() || guest[0] != '/' || guest.find_first_of(" \t\n") != std::string::npos)
      throw std::runtime_error("--file " + spec +
                               ": the guest path must be absolute, without spaces");
    put(entries, guest, kDataMode, read_whole_file(host));
  }
}

std::string mix_line(const std::string& guest_program, const std::vector<std::string>& arguments) {
  if (arguments.size() > kMaxProgramArguments)
    throw std::runtime_error("at most " + std::to_string(kMaxProgramArguments) +
                             " program arguments can be passed");
  std::string line = guest_program;
  for (const std::string& argument : arguments) {
    if (argument.empty() || argument.find_first_of(" \t\r\n#&") != std::string::npos)
      throw std::runtime_error("the argument '" + argument +
                               "' cannot be passed: init splits its mix lines at blanks "
                               "(no empty arguments, blanks, '#' or '&')");
    line += ' ' + argument;
  }
  return line;
}

}  // namespace

ProgramBundle bundle_program(const ProgramRequest& request) {
  if (request.programs.empty()) throw std::runtime_error("no program to run");
  ProgramBundle bundle;
  bundle.script = "/etc/program.mix";
  std::vector<CpioEntry> entries = read_cpio(read_whole_file(request.base_initrd));
  std::string mix = "# dcpi run -- PROGRAM [ARGS...] [-- PROGRAM [ARGS...]]...\n";
  for (const ProgramInvocation& invocation : request.programs) {
    if (!std::filesystem::is_regular_file(invocation.program))
      throw std::runtime_error("no program " + invocation.program.string());
    const ElfFacts program = read_elf_facts(invocation.program);
    check_program(invocation.program, program);
    const std::string guest = "/bin/" + invocation.program.filename().string();
    add_image(entries, bundle.images, invocation.program, guest);
    add_dependencies(request, invocation.program, program, entries, bundle.images);
    bundle.guest_programs.push_back(guest);
    mix += mix_line(guest, invocation.arguments) + "\n";
  }
  add_data_files(request, entries);
  put(entries, bundle.script, kDataMode, mix);
  for (const char* directory : {"lib", "data"})
    if (std::none_of(entries.begin(), entries.end(), [&](auto& e) { return e.name == directory; }))
      entries.push_back({directory, kCpioDirectory | 0755, {}});
  std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.name < b.name; });
  bundle.archive = write_cpio(entries);
  return bundle;
}

}  // namespace dcpi::qemu
