#include "qemu/bundle/program_bundle.h"

#include <algorithm>
#include <deque>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "firmware/memory_map.h"
#include "qemu/bundle/elf_facts.h"
#include "qemu/bundle/guest_environment.h"

namespace dcpi::qemu {
namespace {

constexpr uint32_t kExecutableMode = kCpioRegular | 0755;
constexpr uint32_t kDataMode = kCpioRegular | 0644;
constexpr size_t kMaxProgramArguments = 30;  // init passes at most 32 words a line

// The program, its libraries, the base initrd: files the bundler found or
// was built with.
std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// A --file: the user's, so checked before it is read (issue 30): a FIFO
// would block, /dev/zero never ends, a directory is no file.
std::string read_data_file(const std::string& spec, const std::filesystem::path& host,
                           uint64_t bound) {
  std::error_code error;
  const auto status = std::filesystem::status(host, error);
  if (error || !std::filesystem::exists(status))
    throw std::runtime_error("--file " + spec + ": no such file " + host.string());
  if (!std::filesystem::is_regular_file(status))
    throw std::runtime_error("--file " + spec + ": " + host.string() +
                             " is not a regular file (a directory, FIFO or device cannot be "
                             "copied into the guest)");
  const uint64_t size = std::filesystem::file_size(host, error);
  if (error) throw std::runtime_error("--file " + spec + ": cannot read " + host.string());
  if (bound != 0 && size > bound)
    throw std::runtime_error("--file " + spec + ": " + host.string() + " is " +
                             std::to_string(size >> 20) +
                             " MB, more than the guest's memory can "
                             "hold beside the kernel (" +
                             std::to_string(bound >> 20) + " MB; --memory raises it)");
  std::ifstream in(host, std::ios::binary);
  if (!in) throw std::runtime_error("--file " + spec + ": cannot read " + host.string());
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<uint64_t>(in.gcount()) != size || in.peek() != std::char_traits<char>::eof())
    throw std::runtime_error("--file " + spec + ": " + host.string() + " changed while read");
  return bytes;
}

bool has_control_character(const std::string& text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

void put(std::vector<CpioEntry>& entries, const std::string& guest, uint32_t mode,
         std::string data) {
  const std::string name = guest.substr(guest.find_first_not_of('/'));
  std::erase_if(entries, [&](const CpioEntry& e) { return e.name == name; });
  entries.push_back({name, mode, std::move(data)});
}

void put_if_absent(std::vector<CpioEntry>& entries, const std::string& guest, std::string data) {
  const std::string name = guest.substr(1);
  if (std::none_of(entries.begin(), entries.end(), [&](auto& e) { return e.name == name; }))
    entries.push_back({name, kDataMode, std::move(data)});
}

std::string search_path_text(const std::vector<std::filesystem::path>& path) {
  std::string text;
  for (const auto& directory : path) text += (text.empty() ? "" : ":") + directory.string();
  return text;
}

// The first directory of the library path holding `name`.
std::optional<std::filesystem::path> locate_library(std::string_view name,
                                                    const ProgramRequest& request) {
  for (const auto& directory : request.library_path)
    if (std::filesystem::is_regular_file(directory / name)) return directory / name;
  return std::nullopt;
}

std::filesystem::path find_library(const std::string& name, const ProgramRequest& request,
                                   const std::string& needed_by) {
  if (auto found = locate_library(name, request)) return *found;
  throw std::runtime_error(needed_by + " needs the shared library " + name + ", which is not in " +
                           search_path_text(request.library_path));
}

// Where a --file HOST[:GUEST] goes in the guest (default /data/NAME).
std::string file_guest_path(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::filesystem::path host = spec.substr(0, colon);
  return colon == std::string::npos ? "/data/" + host.filename().string() : spec.substr(colon + 1);
}

// Whether a --file puts the user's own file at `guest`.
bool user_file_at(const std::string& guest, const ProgramRequest& request) {
  return std::any_of(request.files.begin(), request.files.end(),
                     [&](const std::string& spec) { return file_guest_path(spec) == guest; });
}

// The facts of a library an image only names (it may dlopen it): the
// library path's loadable Alpha shared library of that name, unless a
// --file puts the user's own at its path; nothing otherwise.
std::optional<std::pair<std::filesystem::path, ElfFacts>> optional_library(
    const std::string& name, const ProgramRequest& request) {
  if (user_file_at("/lib/" + name, request)) return std::nullopt;
  const auto host = locate_library(name, request);
  if (!host) return std::nullopt;
  try {
    ElfFacts facts = read_elf_facts(*host);
    if (!facts.alpha || !facts.problem.empty()) return std::nullopt;
    return std::pair{*host, std::move(facts)};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void check_program(const std::filesystem::path& program, const ElfFacts& facts) {
  const std::string name = program.string();
  const std::string base = program.filename().string();
  if (has_control_character(base))
    throw std::runtime_error(
        "the program's name cannot contain a newline or other control "
        "character: init reads one command a line");
  if (base == "init" || base.find_first_of(" \t#&") != std::string::npos)
    throw std::runtime_error("the program cannot be called '" + base + "' in the guest");
  if (!facts.alpha) throw std::runtime_error(name + " is not an Alpha ELF (wrong architecture)");
  if (!facts.executable) throw std::runtime_error(name + " is not an executable");
  if (!facts.problem.empty())
    throw std::runtime_error(name + " cannot be loaded: " + facts.problem);
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
    const auto host = find_library(base, request, path.string() + " (PT_INTERP)");
    const ElfFacts facts = read_elf_facts(host);
    if (!facts.alpha || !facts.problem.empty())
      throw std::runtime_error(host.string() + " (PT_INTERP) cannot be loaded: " +
                               (facts.alpha ? facts.problem : "not an Alpha ELF"));
    add_image(entries, images, host, program.interpreter);
  }
  // (library, needed by, optional): a library only named in an image's
  // strings (what it may dlopen, ElfFacts::named_libraries) is added when the
  // library path has an Alpha one, and skipped silently otherwise.
  struct Wanted {
    std::string name, needed_by;
    bool optional;
  };
  std::deque<Wanted> queue;
  const auto want_all = [&](const ElfFacts& facts, const std::string& by) {
    for (const auto& name : facts.needed) queue.push_back({name, by, false});
    for (const auto& name : facts.named_libraries) queue.push_back({name, by, true});
  };
  want_all(program, path.string());
  std::set<std::string> seen;
  while (!queue.empty()) {
    const Wanted wanted = queue.front();
    queue.pop_front();
    if (seen.contains(wanted.name)) continue;
    std::filesystem::path host;
    ElfFacts facts;
    if (wanted.optional) {  // read once: skipped when it cannot load
      auto found = optional_library(wanted.name, request);
      if (!found) continue;
      host = std::move(found->first);
      facts = std::move(found->second);
    } else {
      host = find_library(wanted.name, request, wanted.needed_by);
      facts = read_elf_facts(host);
      if (!facts.alpha) throw std::runtime_error(host.string() + " is not an Alpha shared library");
      if (!facts.problem.empty())
        throw std::runtime_error(host.string() + " (needed by " + wanted.needed_by +
                                 ") cannot be loaded: " + facts.problem);
    }
    seen.insert(wanted.name);
    add_image(entries, images, host, "/lib/" + wanted.name);
    want_all(facts, wanted.name);
  }
}

uint64_t data_file_bound(const ProgramRequest& request) {
  if (request.guest_memory_bytes == 0) return 0;
  return request.guest_memory_bytes > kGuestMemoryBesideInitrd
             ? request.guest_memory_bytes - kGuestMemoryBesideInitrd
             : 1;
}

// Data files go beside what the bundle holds, never over it (issue 30): a
// --file at /bin/init, the loader or the program would replace them.
void add_data_files(const ProgramRequest& request, std::vector<CpioEntry>& entries) {
  for (const std::string& spec : request.files) {
    const size_t colon = spec.find(':');
    const std::filesystem::path host = spec.substr(0, colon);
    const std::string guest = file_guest_path(spec);
    if (guest.size() < 2 || guest[0] != '/' || guest.find_first_of(" \t") != std::string::npos ||
        has_control_character(guest) ||
        std::filesystem::path(guest).lexically_normal().string() != guest || guest.back() == '/')
      throw std::runtime_error("--file " + spec +
                               ": the guest path must be a plain absolute file path, without "
                               "spaces, control characters, '.', '..' or '//'");
    const std::string name = guest.substr(1);
    const auto same = std::find_if(entries.begin(), entries.end(),
                                   [&](const CpioEntry& e) { return e.name == name; });
    if (same != entries.end())
      throw std::runtime_error("--file " + spec + ": " + guest + " is already in the initrd (" +
                               ((same->mode & kCpioDirectory) != 0
                                    ? "a directory"
                                    : "a file the run "
                                      "needs, or an earlier --file") +
                               "); choose another guest path");
    entries.push_back({name, kDataMode, read_data_file(spec, host, data_file_bound(request))});
  }
}

// Where an argument naming a host file goes in the guest: its path from
// "/" (relative ones from the working directory, which is "/" there), or
// "" when it names no regular file, climbs out with "..", or has a blank.
std::string argument_file_guest_path(const std::string& argument) {
  if (argument.empty() || argument[0] == '-' || has_control_character(argument) ||
      argument.find_first_of(" \t") != std::string::npos)
    return "";
  std::error_code error;
  if (!std::filesystem::is_regular_file(argument, error)) return "";
  const std::filesystem::path normal = (std::filesystem::path("/") / argument).lexically_normal();
  const std::string guest = normal.string();
  if (guest.size() < 2 || guest.find("/../") != std::string::npos || guest.back() == '/') return "";
  return guest;
}

void add_argument_files(const ProgramRequest& request, std::vector<CpioEntry>& entries,
                        std::vector<std::string>& added) {
  for (const ProgramInvocation& invocation : request.programs)
    for (const std::string& argument : invocation.arguments) {
      const std::string guest = argument_file_guest_path(argument);
      if (guest.empty()) continue;
      const std::string name = guest.substr(1);
      if (std::any_of(entries.begin(), entries.end(), [&](auto& e) { return e.name == name; }))
        continue;  // the program, a library, init's files or a --file: kept
      entries.push_back(
          {name, kDataMode, read_data_file(argument, argument, data_file_bound(request))});
      added.push_back(argument + " -> " + guest);
    }
}

// An argument as init reads it back (workloads/init.c next_word): as it is,
// or in single quotes when it is empty or holds a blank, a quote, a
// backslash, '#', '&' or '!' ('\'' for a quote inside).
std::string mix_word(const std::string& argument) {
  if (!argument.empty() && argument.find_first_of(" \t#&!'\"\\") == std::string::npos)
    return argument;
  std::string word = "'";
  for (const char c : argument) word += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return word + "'";
}

std::string mix_line(const std::string& guest_program, const std::vector<std::string>& arguments) {
  if (arguments.size() > kMaxProgramArguments)
    throw std::runtime_error("at most " + std::to_string(kMaxProgramArguments) +
                             " program arguments can be passed");
  std::string line = guest_program;
  for (const std::string& argument : arguments) {
    std::string without_tabs = argument;  // a tab is quoted like a blank
    std::erase(without_tabs, '\t');
    if (has_control_character(without_tabs))
      throw std::runtime_error(
          "a program argument cannot contain a newline or other control "
          "character: init reads one command a line");
    line += ' ' + mix_word(argument);
  }
  if (line.size() > kMaxMixLineBytes)
    throw std::runtime_error(
        guest_program + " and its arguments are " + std::to_string(line.size()) +
        " bytes; init runs commands of at most " + std::to_string(kMaxMixLineBytes) + " bytes");
  return line;
}

// /bin/sh for system() and popen(), unless a program took that name.
void add_shell(const ProgramRequest& request, std::vector<CpioEntry>& entries,
               std::vector<BundledImage>& images) {
  if (request.shell.empty()) return;
  if (std::any_of(entries.begin(), entries.end(), [](auto& e) { return e.name == "bin/sh"; }))
    return;
  const ElfFacts shell = read_elf_facts(request.shell);
  if (!shell.alpha || !shell.executable || !shell.problem.empty())
    throw std::runtime_error(request.shell.string() + " cannot be the guest's /bin/sh: " +
                             (shell.problem.empty() ? "not an Alpha executable" : shell.problem));
  add_image(entries, images, request.shell, "/bin/sh");
  add_dependencies(request, request.shell, shell, entries, images);
}

// The host's C.UTF-8 locale at the same guest path, with the directories
// above it, unless a --file put something there. glibc's locale files are
// the same for every 64-bit little-endian machine of one glibc version
// (and a version it does not accept makes setlocale fail, as without them).
void add_locale(const ProgramRequest& request, std::vector<CpioEntry>& entries) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (request.locale.empty() || !fs::is_directory(request.locale, error)) return;
  auto add_directory = [&](const fs::path& guest) {
    const std::string name = guest.string().substr(1);
    if (std::none_of(entries.begin(), entries.end(), [&](auto& e) { return e.name == name; }))
      entries.push_back({name, kCpioDirectory | 0755, {}});
  };
  const fs::path guest_root = request.locale;
  for (fs::path up = guest_root; up.has_relative_path(); up = up.parent_path()) add_directory(up);
  for (const auto& item : fs::recursive_directory_iterator(request.locale, error)) {
    const fs::path guest = guest_root / fs::relative(item.path(), request.locale);
    if (item.is_directory())
      add_directory(guest);
    else if (item.is_regular_file())
      put_if_absent(entries, guest.string(), read_whole_file(item.path()));
  }
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
  add_shell(request, entries, bundle.images);
  put(entries, bundle.script, kDataMode, mix);  // before the data files, which may not replace it
  add_data_files(request, entries);
  add_argument_files(request, entries, bundle.argument_files);
  // After the data files: a --file of the user's own is kept.
  put_if_absent(entries, "/etc/environment", environment_file(request.environment));
  put_if_absent(entries, "/etc/passwd", passwd_file());
  put_if_absent(entries, "/etc/group", group_file());
  add_locale(request, entries);
  for (const char* directory : {"lib", "data"})
    if (std::none_of(entries.begin(), entries.end(), [&](auto& e) { return e.name == directory; }))
      entries.push_back({directory, kCpioDirectory | 0755, {}});
  std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.name < b.name; });
  bundle.archive = write_cpio(entries);
  return bundle;
}

}  // namespace dcpi::qemu
